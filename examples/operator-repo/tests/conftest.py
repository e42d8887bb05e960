"""Nothing to set up: ``pip install fakeapi-k8s`` registers its pytest plugin (the ``fakeapi`` fixtures and marker)."""

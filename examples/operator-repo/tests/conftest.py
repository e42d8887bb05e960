"""Nothing to set up: ``pip install fakeapi`` registers its pytest plugin (the ``fakeapi`` fixtures and marker)."""

"""A stand-in for pytest-kind that starts ``fakeapi serve`` where pytest-kind starts a kind cluster.

Client libraries' own suites (kr8s's among them) get their cluster from pytest-kind's
``KindCluster``: ``create()``, ``kubeconfig_path``, ``kubectl(...)``, ``delete()``. This package
offers the same names, so such a suite runs unchanged against fakeapi: put this folder first on
``PYTHONPATH`` and load the plugin with ``-p pytest_kind.plugin`` (docs/client-suites.md).
"""

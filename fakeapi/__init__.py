"""fakeapi: a fake Kubernetes apiserver that behaves like kube-apiserver down to the bytes."""

__version__ = "0.1.0"

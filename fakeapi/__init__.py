"""fakeapi: a fake Kubernetes apiserver that behaves like kube-apiserver down to the bytes.

The public surface: :class:`FakeAPIServer` (start it, load objects, point clients at it), the
request journal it keeps (:class:`JournalEntry`), and the gate hook (:class:`GateRequest`,
:class:`GateDecision`) an engine such as ``scenarios`` uses to hold and release requests.
"""

from fakeapi.errors import APIError
from fakeapi.server import FakeAPIServer, GateDecision, GateRequest, JournalEntry, StoreSnapshot

__version__ = "0.1.0"

__all__ = ["APIError", "FakeAPIServer", "GateDecision", "GateRequest", "JournalEntry", "StoreSnapshot", "__version__"]

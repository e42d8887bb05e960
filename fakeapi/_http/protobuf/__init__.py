"""Decoding ``application/vnd.kubernetes.protobuf`` request bodies into the JSON objects fakeapi keeps.

kubectl's typed generators (``kubectl create configmap|namespace|secret|serviceaccount|deployment|
job|service``) send protobuf, because every apiserver accepts it for built-in kinds. ``wire`` reads
the wire format with gogo-protobuf's errors, ``messages`` holds the field tables of the kinds
fakeapi serves, ``schema`` parses them, ``decoding`` reads the envelope and renders the Go struct
as its JSON.
"""

from fakeapi._http.protobuf.decoding import MAGIC, decode_protobuf
from fakeapi._http.protobuf.wire import ProtobufError

__all__ = ["MAGIC", "ProtobufError", "decode_protobuf"]

"""The inputs of the typed-decoding family: built-in bodies with wrong types, unknown fields and odd values.

Writes one JSON line per case for ``tools/goref/typed`` (``{"id", "type", "body"}``), the body as
raw JSON text so that duplicate keys survive. ``tools/goref/regenerate-typed`` runs the harness on
them into ``tests/conformance/cases/typed-decoding.jsonl``.
"""

from __future__ import annotations

import json
import sys

CONFIGMAP = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},%s}'
POD = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":%s}'

CONFIGMAP_FIELDS = [
    '"data":{"a":1}',
    '"data":[1]',
    '"data":"x"',
    '"data":{"a":null,"b":"2"}',
    '"data":{}',
    '"data":{"a":true}',
    '"binaryData":{"k":"aGVsbG8="}',
    '"binaryData":{"k":"aGVs\\nbG8="}',
    '"binaryData":{"k":"not base64"}',
    '"binaryData":{"k":"aGk"}',
    '"binaryData":{"k":"a==="}',
    '"binaryData":{"k":"===="}',
    '"binaryData":{"k":"aGk=x"}',
    '"binaryData":{"k":""}',
    '"binaryData":{"k":1}',
    '"binaryData":{}',
    '"immutable":"yes"',
    '"immutable":false',
    '"immutable":null',
    '"immutable":1',
    '"bogus":1,"Data":{"a":"b"}',
    '"data":{"a":"1","a":"2"}',
    '"data":{"a":1},"binaryData":{"k":"!!!!"}',
    '"binaryData":{"k":"!!!!"},"data":{"a":1}',
]
METADATA = [
    '{"name":5}',
    '{"name":"c","labels":{"a":1}}',
    '{"name":"c","labels":{"a":null}}',
    '{"name":"c","creationTimestamp":5}',
    '{"name":"c","creationTimestamp":"yesterday"}',
    '{"name":"c","creationTimestamp":"2026-01-02T03:04:05+02:00"}',
    '{"name":"c","creationTimestamp":null}',
    '{"name":"c","finalizers":"x"}',
    '{"name":"c","bogus":{"x":1}}',
    '[]',
]
POD_SPECS = [
    '{"containers":"notalist"}',
    '{"containers":[1]}',
    '{"containers":[{"name":1}]}',
    '{"containers":[{"name":"a","image":1}]}',
    '{"containers":[{"name":"a","ports":[{"containerPort":1.5}]}]}',
    '{"containers":[{"name":"a","ports":[{"containerPort":3000000000}]}]}',
    '{"containers":[{"name":"a","ports":[{"containerPort":"80"}]}]}',
    '{"containers":[{"name":"a","ports":[{"containerPort":true}]}]}',
    '{"containers":[{"name":"a","ports":[{"containerPort":1e2}]}]}',
    '{"containers":[{"name":"a","imagePullPolicy":3}]}',
    '{"containers":[{"name":"a","stdin":"yes"}]}',
    '{"containers":[{"name":"a","command":"sh"}]}',
    '{"containers":[{"name":"a","command":[1]}]}',
    '{"restartPolicy":5,"containers":[]}',
    '{"terminationGracePeriodSeconds":"30","containers":[]}',
    '{"terminationGracePeriodSeconds":-1,"containers":[]}',
    '{"nodeSelector":{"a":true},"containers":[]}',
    '{"bogus":1,"containers":[{"name":"a","bogus":2},{"name":"b","ports":[{"containerPort":1,"bogus":3}]}]}',
    '{"containers":[{"image":1,"name":2}]}',
    '{"containers":[{"name":"a","image":1}],"restartPolicy":2}',
    '{"containers":null}',
    '{"containers":[{"name":"a","stdin":false,"image":""}]}',
    '{"containers":[{"name":"a","Image":"x"}]}',
]


def cases() -> list[dict[str, str]]:
    found = []
    for index, fields in enumerate(CONFIGMAP_FIELDS):
        found.append(("ConfigMap", f"cm-{index:03d}", CONFIGMAP % fields))
    for index, metadata in enumerate(METADATA):
        body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":%s,"data":{"a":"b"}}' % metadata
        found.append(("ConfigMap", f"meta-{index:03d}", body))
    for index, spec in enumerate(POD_SPECS):
        found.append(("Pod", f"pod-{index:03d}", POD % spec))
    return [{"id": f"typed-{name}", "type": kind, "body": body} for kind, name, body in found]


def main() -> None:
    for case in cases():
        line = '{"id":%s,"type":%s,"body":%s}' % (json.dumps(case["id"]), json.dumps(case["type"]), case["body"])
        sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()

"""The Kubernetes CEL library in CRD rules over HTTP: each library once admitting and once refusing (docs/cel.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
JOBS = "/apis/example.com/v1/namespaces/default/jobs"

PROPERTIES = {
    "memory": {"type": "string"},
    "address": {"type": "string"},
    "network": {"type": "string"},
    "endpoint": {"type": "string"},
    "name": {"type": "string"},
    "sizes": {"type": "array", "items": {"type": "integer"}},
    "zones": {"type": "array", "items": {"type": "string"}},
    "timeout": {"type": "string", "format": "duration"},
    "label": {"type": "string", "maxLength": 63},
}

CASES = [
    # (library, rule, good spec, bad spec, the bad spec's field error detail)
    (
        "quantity",
        "quantity(self.memory).isLessThan(quantity('1Gi'))",
        {"memory": "512Mi"},
        {"memory": "2G"},
        "failed rule: quantity(self.memory).isLessThan(quantity('1Gi'))",
    ),
    (
        "quantity error",
        "quantity(self.memory).sign() >= 0",
        {"memory": "1k"},
        {"memory": "10Mo"},
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' "
        "evaluating rule: quantity(self.memory).sign() >= 0",
    ),
    (
        "ip",
        "isIP(self.address) && ip(self.address).family() == 4",
        {"address": "10.0.0.1"},
        {"address": "2001:db8::1"},
        "failed rule: isIP(self.address) && ip(self.address).family() == 4",
    ),
    (
        "ip error",
        "ip(self.address).isLoopback()",
        {"address": "127.0.0.1"},
        {"address": "127.0.0.01"},
        'IP Address "127.0.0.01" parse error during conversion from string: ParseAddr("127.0.0.01"): IPv4 field '
        "has octet with leading zero evaluating rule: ip(self.address).isLoopback()",
    ),
    (
        "cidr",
        "cidr(self.network).containsIP(self.address)",
        {"network": "10.0.0.0/8", "address": "10.1.2.3"},
        {"network": "10.0.0.0/8", "address": "11.1.2.3"},
        "failed rule: cidr(self.network).containsIP(self.address)",
    ),
    (
        "url",
        "url(self.endpoint).getScheme() == 'https'",
        {"endpoint": "https://example.com/x"},
        {"endpoint": "http://example.com/x"},
        "failed rule: url(self.endpoint).getScheme() == 'https'",
    ),
    (
        "regex",
        "self.name.find('[0-9]+') == '42'",
        {"name": "job-42"},
        {"name": "job-7"},
        "failed rule: self.name.find('[0-9]+') == '42'",
    ),
    ("lists", "self.sizes.isSorted() && self.sizes.sum() < 10", {"sizes": [1, 2, 3]}, {"sizes": [3, 1]}, None),
    (
        "sets",
        "sets.contains(['a', 'b', 'c'], self.zones)",
        {"zones": ["a", "c"]},
        {"zones": ["a", "d"]},
        "failed rule: sets.contains(['a', 'b', 'c'], self.zones)",
    ),
    (
        "strings",
        "self.name.lowerAscii().startsWith('job-') && self.name.split('-').size() == 2",
        {"name": "JOB-1"},
        {"name": "job-1-2"},
        None,
    ),
    (
        "format",
        "!format.dns1123Label().validate(self.label).hasValue() && format.named('uuid').hasValue()",
        {"label": "job-1"},
        {"label": "Job_1"},
        None,
    ),
    (
        "format length in bytes",  # Go's len: 32 two-byte characters are 64 bytes, over a label's 63
        "format.dns1123Label().validate(self.label).orValue([]).size() < 2",  # the regex's error, and the length's
        {"label": "e" * 32},
        {"label": "\u00e9" * 32},
        None,
    ),
    (
        "optionals",
        "self.?timeout.orValue(duration('0s')) < duration('1m')",
        {"name": "no timeout"},
        {"timeout": "2m"},
        "failed rule: self.?timeout.orValue(duration('0s')) < duration('1m')",
    ),
]


def _job(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": name}, "spec": spec}


@pytest.mark.parametrize(("library", "rule", "good", "bad", "detail"), CASES, ids=[case[0] for case in CASES])
async def test_a_library_function_admits_and_refuses(
    client: RawClient, library: str, rule: str, good: dict[str, Any], bad: dict[str, Any], detail: str | None
) -> None:
    schema = {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": PROPERTIES, "x-kubernetes-validations": [{"rule": rule}]}
        },
    }
    created = await client.post(CRDS, crd(schema=schema))
    assert created.status == 201, created.body
    admitted = await client.post(JOBS, _job("good", good))
    assert admitted.status == 201, admitted.body
    refused = await client.post(JOBS, _job("bad", bad))
    assert refused.status == 422, refused.body
    causes = refused.json()["details"]["causes"]
    expected = detail if detail is not None else f"failed rule: {rule}"
    assert causes == [
        {"reason": "FieldValueInvalid", "message": f'Invalid value: "object": {expected}', "field": "spec"}
    ]


async def test_a_library_call_on_the_wrong_type_refuses_the_crd(client: RawClient) -> None:
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": PROPERTIES,
                "x-kubernetes-validations": [{"rule": "quantity(self.memory).isLessThan(1)"}],
            }
        },
    }
    refused = await client.post(CRDS, crd(schema=schema))
    assert refused.status == 422
    assert refused.json()["details"]["causes"][0]["message"].endswith(
        "compilation failed: ERROR: <input>:1:33: found no matching overload for 'isLessThan' applied to "
        "'kubernetes.Quantity.(int)'\n | quantity(self.memory).isLessThan(1)\n | ................................^"
    )

"""Webhook configurations refused, defaulted and kept writable as kube-apiserver 1.32 does it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakeapi.server import FakeAPIServer
from tests.admission.conftest import configuration, store_unvalidated, webhook
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

GROUP = "admissionregistration.k8s.io"
VALIDATING = f"/apis/{GROUP}/v1/validatingwebhookconfigurations"
MUTATING = f"/apis/{GROUP}/v1/mutatingwebhookconfigurations"
HTTPS = {"url": "https://hooks.example.com/check"}
FORM = "; desired format: https://host[/path]"


def invalid_status(kind: str, name: str, *errors: tuple[str, str, str]) -> bytes:
    """The 422 body: ``(reason, field, message)`` per error, the message joined as ``NewInvalid`` joins it."""
    texts = [f"{where}: {message}" for _, where, message in errors]
    joined = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'{kind}.{GROUP} "{name}" is invalid: {joined}',
        "reason": "Invalid",
        "details": {
            "name": name,
            "group": GROUP,
            "kind": kind,
            "causes": [{"reason": reason, "message": message, "field": where} for reason, where, message in errors],
        },
        "code": 422,
    }
    return json.dumps(status, separators=(",", ":")).encode() + b"\n"


async def refused(client: RawClient, kind: str, document: dict[str, Any]) -> bytes:
    path = VALIDATING if kind == "ValidatingWebhookConfiguration" else MUTATING
    reply = await client.post(path, document)
    assert reply.status == 422, reply.body
    assert (await client.get(f"{path}/{document['metadata']['name']}")).status == 404
    return reply.body


async def test_a_rule_s_wildcards_and_unknown_values_are_refused(client: RawClient) -> None:
    hook = webhook("v.example.com", HTTPS)
    hook["rules"] = [
        {
            "operations": ["GET", "*"],
            "apiGroups": ["*", "apps"],
            "apiVersions": [""],
            "resources": ["pods/*", "pods/log", "*/*"],
            "scope": "Everywhere",
        },
        {"operations": [], "apiGroups": [], "apiVersions": ["v1"], "resources": ["*", "pods"]},
    ]
    kind = "ValidatingWebhookConfiguration"
    body = await refused(client, kind, configuration(kind, "rules", hook))
    rule = "webhooks[0].rules[0]"
    assert body == invalid_status(
        kind,
        "rules",
        (
            "FieldValueInvalid",
            f"{rule}.operations",
            'Invalid value: []admissionregistration.OperationType{"GET", "*"}: '
            "if '*' is present, must not specify other operations",
        ),
        (
            "FieldValueNotSupported",
            f"{rule}.operations[0]",
            'Unsupported value: "GET": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
        ),
        (
            "FieldValueInvalid",
            f"{rule}.apiGroups",
            'Invalid value: []string{"*", "apps"}: if \'*\' is present, must not specify other API groups',
        ),
        ("FieldValueRequired", f"{rule}.apiVersions[0]", "Required value"),
        (
            "FieldValueInvalid",
            f"{rule}.resources[1]",
            "Invalid value: \"pods/log\": if 'pods/*' is present, must not specify pods/log",
        ),
        (
            "FieldValueInvalid",
            f"{rule}.resources",
            'Invalid value: []string{"pods/*", "pods/log", "*/*"}: '
            "if '*/*' is present, must not specify other resources",
        ),
        (
            "FieldValueNotSupported",
            f"{rule}.scope",
            'Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
        ),
        ("FieldValueRequired", "webhooks[0].rules[1].operations", "Required value"),
        ("FieldValueRequired", "webhooks[0].rules[1].apiGroups", "Required value"),
        (
            "FieldValueInvalid",
            "webhooks[0].rules[1].resources",
            'Invalid value: []string{"*", "pods"}: '
            "if '*' is present, must not specify other resources without subresources",
        ),
    )


async def test_a_webhook_needs_a_qualified_name_side_effects_and_review_versions(client: RawClient) -> None:
    kind = "MutatingWebhookConfiguration"
    hook = {"name": "short", "clientConfig": HTTPS, "timeoutSeconds": 31, "reinvocationPolicy": "Always"}
    duplicate = {
        **webhook("m.example.com", HTTPS),
        "failurePolicy": "Maybe",
        "matchPolicy": "Loose",
        "admissionReviewVersions": ["v2", "v2", "V3"],
    }
    body = await refused(client, kind, configuration(kind, "hooks", hook, webhook("m.example.com", HTTPS), duplicate))
    dns1035 = (
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
        "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
    )
    assert body == invalid_status(
        kind,
        "hooks",
        (
            "FieldValueInvalid",
            "webhooks[0].name",
            'Invalid value: "short": should be a domain with at least three segments separated by dots',
        ),
        ("FieldValueRequired", "webhooks[0].sideEffects", "Required value: must specify one of None, NoneOnDryRun"),
        (
            "FieldValueInvalid",
            "webhooks[0].timeoutSeconds",
            "Invalid value: 31: the timeout value must be between 1 and 30 seconds",
        ),
        (
            "FieldValueNotSupported",
            "webhooks[0].reinvocationPolicy",
            'Unsupported value: "Always": supported values: "IfNeeded", "Never"',
        ),
        (
            "FieldValueRequired",
            "webhooks[0].admissionReviewVersions",
            "Required value: must specify one of v1, v1beta1",
        ),
        (
            "FieldValueNotSupported",
            "webhooks[2].failurePolicy",
            'Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
        ),
        (
            "FieldValueNotSupported",
            "webhooks[2].matchPolicy",
            'Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
        ),
        ("FieldValueInvalid", "webhooks[2].admissionReviewVersions[1]", 'Invalid value: "v2": duplicate version'),
        ("FieldValueInvalid", "webhooks[2].admissionReviewVersions[2]", f'Invalid value: "V3": {dns1035}'),
        (
            "FieldValueInvalid",
            "webhooks[2].admissionReviewVersions",
            'Invalid value: []string{"v2", "v2", "V3"}: must include at least one of v1, v1beta1',
        ),
        ("FieldValueDuplicate", "webhooks[2].name", 'Duplicate value: "m.example.com"'),
    )


async def test_a_url_must_be_https_to_a_host_without_user_query_or_fragment(client: RawClient) -> None:
    kind = "ValidatingWebhookConfiguration"
    hooks = [
        webhook("a.example.com", {"url": "http://user:pw@hooks.example.com/check?x=1#top"}),
        webhook("b.example.com", {"url": "https:hooks.example.com"}),
        webhook("c.example.com", {"url": "https://[::1/check"}),
        webhook("d.example.com", {"url": "https://hooks.example.com:web/check"}),
        webhook(
            "e.example.com", {"url": "https://hooks.example.com/check", "service": {"namespace": "n", "name": "s"}}
        ),
        webhook("f.example.com", {}),
        webhook("g.example.com", {"url": ""}),
    ]
    body = await refused(client, kind, configuration(kind, "urls", *hooks))
    url = "clientConfig.url"
    assert body == invalid_status(
        kind,
        "urls",
        (
            "FieldValueInvalid",
            f"webhooks[0].{url}",
            f"Invalid value: \"http\": 'https' is the only allowed URL scheme{FORM}",
        ),
        (
            "FieldValueInvalid",
            f"webhooks[0].{url}",
            'Invalid value: "user:pw": user information is not permitted in the URL',
        ),
        ("FieldValueInvalid", f"webhooks[0].{url}", 'Invalid value: "top": fragments are not permitted in the URL'),
        (
            "FieldValueInvalid",
            f"webhooks[0].{url}",
            'Invalid value: "x=1": query parameters are not permitted in the URL',
        ),
        ("FieldValueInvalid", f"webhooks[1].{url}", f'Invalid value: "": host must be specified{FORM}'),
        (
            "FieldValueRequired",
            f"webhooks[2].{url}",
            f"Required value: url must be a valid URL: parse \"https://[::1/check\": missing ']' in host{FORM}",
        ),
        (
            "FieldValueRequired",
            f"webhooks[3].{url}",
            "Required value: url must be a valid URL: "
            f'parse "https://hooks.example.com:web/check": invalid port ":web" after host{FORM}',
        ),
        ("FieldValueRequired", "webhooks[4].clientConfig", "Required value: exactly one of url or service is required"),
        ("FieldValueRequired", "webhooks[5].clientConfig", "Required value: exactly one of url or service is required"),
        (
            "FieldValueInvalid",
            f"webhooks[6].{url}",
            f"Invalid value: \"\": 'https' is the only allowed URL scheme{FORM}",
        ),
        ("FieldValueInvalid", f"webhooks[6].{url}", f'Invalid value: "": host must be specified{FORM}'),
    )


async def test_a_service_reference_is_checked_with_name_and_namespace_swapped(client: RawClient) -> None:
    """The webhook validation passes the name where the check takes the namespace: upstream reports it so.

    A path that does not start with ``/`` loses its first character all the same before its segments
    are checked (``heck``, ``""``, ``Now``).
    """
    kind = "ValidatingWebhookConfiguration"
    hooks = [
        webhook("a.example.com", {"service": {"namespace": "hooks", "name": ""}}),
        webhook("b.example.com", {"service": {"namespace": "", "name": "hooks", "port": 70000}}),
        webhook("c.example.com", {"service": {"namespace": "n", "name": "s", "path": "check//Now/"}}),
        webhook("d.example.com", {"service": {}}),
    ]
    body = await refused(client, kind, configuration(kind, "services", *hooks))
    subdomain = (
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    )
    service = "clientConfig.service"
    assert body == invalid_status(
        kind,
        "services",
        ("FieldValueRequired", f"webhooks[0].{service}.namespace", "Required value: service namespace is required"),
        ("FieldValueRequired", f"webhooks[1].{service}.name", "Required value: service name is required"),
        (
            "FieldValueInvalid",
            f"webhooks[1].{service}.port",
            "Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive",
        ),
        ("FieldValueInvalid", f"webhooks[2].{service}.path", "Invalid value: \"check//Now/\": must start with a '/'"),
        (
            "FieldValueInvalid",
            f"webhooks[2].{service}.path",
            'Invalid value: "check//Now/": segment[1] may not be empty',
        ),
        ("FieldValueInvalid", f"webhooks[2].{service}.path", f'Invalid value: "check//Now/": segment[2]: {subdomain}'),
        ("FieldValueRequired", f"webhooks[3].{service}.name", "Required value: service name is required"),
        ("FieldValueRequired", f"webhooks[3].{service}.namespace", "Required value: service namespace is required"),
    )


async def test_a_selector_value_must_be_a_label_value(client: RawClient) -> None:
    kind = "ValidatingWebhookConfiguration"
    selector = {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["not a label"]}]}
    body = await refused(
        client, kind, configuration(kind, "selectors", webhook("s.example.com", HTTPS, objectSelector=selector))
    )
    value = (
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
        "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    )
    assert body == invalid_status(
        kind,
        "selectors",
        (
            "FieldValueInvalid",
            "webhooks[0].objectSelector.matchExpressions[0].values[0]",
            f'Invalid value: "not a label": {value}',
        ),
    )


async def test_the_scheme_s_defaults_are_stored(client: RawClient) -> None:
    mutating = {
        "apiVersion": f"{GROUP}/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": "defaults"},
        "webhooks": [
            {
                "name": "m.example.com",
                "clientConfig": {"service": {"namespace": "hooks", "name": "webhook"}},
                "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}],
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
            }
        ],
    }
    assert (await client.post(MUTATING, mutating)).status == 201
    stored = (await client.get(f"{MUTATING}/defaults")).json()
    assert stored["webhooks"] == [
        {
            "name": "m.example.com",
            "clientConfig": {"service": {"namespace": "hooks", "name": "webhook", "port": 443}},
            "rules": [
                {
                    "operations": ["CREATE"],
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "resources": ["pods"],
                    "scope": "*",
                }
            ],
            "failurePolicy": "Fail",
            "matchPolicy": "Equivalent",
            "namespaceSelector": {},
            "objectSelector": {},
            "sideEffects": "None",
            "timeoutSeconds": 10,
            "admissionReviewVersions": ["v1"],
            "reinvocationPolicy": "Never",
        }
    ]


async def test_an_update_keeps_what_the_stored_configuration_already_had(
    server: FakeAPIServer, client: RawClient
) -> None:
    """Side effects, unknown review versions, repeated names and odd selector values stay writable."""
    kind = "ValidatingWebhookConfiguration"
    selector = {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["not a label"]}]}
    legacy = webhook(
        "old.example.com", HTTPS, sideEffects="Unknown", admissionReviewVersions=["v2"], namespaceSelector=selector
    )
    store_unvalidated(server, configuration(kind, "legacy", legacy, dict(legacy)))
    stored = (await client.get(f"{VALIDATING}/legacy")).json()
    stored["metadata"]["labels"] = {"touched": "yes"}
    updated = await client.put(f"{VALIDATING}/legacy", stored)
    assert updated.status == 200, updated.body
    assert updated.json()["metadata"]["labels"] == {"touched": "yes"}
    assert (await client.post(VALIDATING, configuration(kind, "fresh", legacy))).status == 422

    stored = updated.json()
    stored["webhooks"][0]["sideEffects"] = "Sometimes"
    stored["webhooks"][1]["timeoutSeconds"] = 0
    reply = await client.put(f"{VALIDATING}/legacy", stored)
    assert reply.status == 422
    assert reply.body == invalid_status(
        kind,
        "legacy",
        (
            "FieldValueNotSupported",
            "webhooks[0].sideEffects",
            'Unsupported value: "Sometimes": supported values: "None", "NoneOnDryRun", "Some", "Unknown"',
        ),
        (
            "FieldValueInvalid",
            "webhooks[1].timeoutSeconds",
            "Invalid value: 0: the timeout value must be between 1 and 30 seconds",
        ),
    )


async def test_an_update_of_a_valid_configuration_is_held_to_the_create_rules(client: RawClient) -> None:
    kind = "ValidatingWebhookConfiguration"
    assert (await client.post(VALIDATING, configuration(kind, "strict", webhook("v.example.com", HTTPS)))).status == 201
    stored = (await client.get(f"{VALIDATING}/strict")).json()
    stored["webhooks"][0]["sideEffects"] = "Some"
    stored["webhooks"].append(dict(stored["webhooks"][0], sideEffects="None"))
    reply = await client.put(f"{VALIDATING}/strict", stored)
    assert reply.body == invalid_status(
        kind,
        "strict",
        (
            "FieldValueNotSupported",
            "webhooks[0].sideEffects",
            'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
        ),
        ("FieldValueDuplicate", "webhooks[1].name", 'Duplicate value: "v.example.com"'),
    )
    assert (await client.get(f"{VALIDATING}/strict")).json()["metadata"]["resourceVersion"] == stored["metadata"][
        "resourceVersion"
    ]


async def test_a_url_is_read_as_go_s_url_parse_reads_it(client: RawClient) -> None:
    """Escapes are checked (and a fragment unescaped) as ``net/url`` does before the webhook checks run."""
    kind = "MutatingWebhookConfiguration"
    hooks = [
        webhook("a.example.com", {"url": "https://hooks.example.com/check#part%20two"}),
        webhook("b.example.com", {"url": "https://hooks example.com/check"}),
        webhook("c.example.com", {"url": "https://hooks.example.com/%zzcheck"}),
        webhook("d.example.com", {"url": "://hooks.example.com/check"}),
        webhook("e.example.com", {"url": "HTTPS://hooks.example.com/check"}),
    ]
    body = await refused(client, kind, configuration(kind, "escapes", *hooks))
    url = "clientConfig.url"
    parse = "Required value: url must be a valid URL: parse"
    assert body == invalid_status(
        kind,
        "escapes",
        (
            "FieldValueInvalid",
            f"webhooks[0].{url}",
            'Invalid value: "part two": fragments are not permitted in the URL',
        ),
        (
            "FieldValueRequired",
            f"webhooks[1].{url}",
            f'{parse} "https://hooks example.com/check": invalid character " " in host name{FORM}',
        ),
        (
            "FieldValueRequired",
            f"webhooks[2].{url}",
            f'{parse} "https://hooks.example.com/%zzcheck": invalid URL escape "%zz"{FORM}',
        ),
        (
            "FieldValueRequired",
            f"webhooks[3].{url}",
            f'{parse} "://hooks.example.com/check": missing protocol scheme{FORM}',
        ),
    )

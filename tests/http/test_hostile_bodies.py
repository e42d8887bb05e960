"""Hostile bodies and parameters: YAML aliases and keys, deep documents, resourceVersions, DELETE options.

Each request gets the status and Status message the apiserver gives (docs/yaml.md, docs/http-limits.md,
docs/writes.md, docs/depth.md), nothing stored changes when it is refused, and the server records no failure of its
own: a 500 here is one the apiserver answers too, with the same text.
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import pytest
import pytest_asyncio

from fakeapi._patching.goencode import compact as compact_json
from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient, crd

JOBS = "/apis/example.com/v1/namespaces/default/jobs"
ITEM = f"{JOBS}/job-1"
HEAD = b"apiVersion: example.com/v1\nkind: Job\nmetadata:\n  name: made\nspec:"
UNRECOGNIZED = "the object provided is unrecognized (must be of type Job): "


def _bomb() -> bytes:
    """8 levels of 10 aliases each: 10^8 nodes once expanded, from about 500 bytes."""
    lines = [b'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [{','.join([f'*{previous}'] * 10)}]".encode())
        previous = name
    return b"\n".join(lines) + b"\n"


def _deep_json(levels: int, name: str = "deep") -> bytes:
    return (
        b'{"apiVersion":"example.com/v1","kind":"Job","metadata":{"name":"'
        + name.encode()
        + b'"},"spec":'
        + b'{"a":' * levels
        + b"1"
        + b"}" * levels
        + b"}"
    )


@pytest_asyncio.fixture
async def seeded(server: FakeAPIServer, client: RawClient) -> RawClient:
    server.load(crd())
    server.load({"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "job-1"}, "spec": {"a": 1}})
    return client


async def _unchanged_after(server: FakeAPIServer, client: RawClient, *request: Any, **kwargs: Any) -> Any:
    before = (server.revision, (await client.get(ITEM)).body)
    reply = await client.request(*request, **kwargs)
    assert (server.revision, (await client.get(ITEM)).body) == before
    return reply


YAML_REFUSALS = [
    ("self-alias", HEAD + b" &s {a: *s}", "yaml: anchor 's' value contains itself"),
    ("alias-bomb", _bomb(), "yaml: document contains excessive aliasing"),
    ("flow-10001-deep", HEAD + b" " + b"[" * 10001 + b"]" * 10001, "yaml: line 5: exceeded max depth of 10000"),
    ("null-key", HEAD + b"\n  ~: a", 'unsupported map key of type: %!s(<nil>), key: <nil>, value: "a"'),
    ("list-key", HEAD + b"\n  ? [1]\n  : a", "yaml: invalid map key: []interface {}{1}"),
    (
        "uint64-key",
        HEAD + b"\n  18446744073709551615: a",
        'unsupported map key of type: uint64, key: 0xffffffffffffffff, value: "a"',
    ),
    ("unknown-anchor", HEAD + b" *nowhere", "yaml: unknown anchor 'nowhere' referenced"),
    ("bad-binary", HEAD + b"\n  a: !!binary '%%%'", "yaml: !!binary value contains invalid base64 data"),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(("body", "problem"), [case[1:] for case in YAML_REFUSALS], ids=[c[0] for c in YAML_REFUSALS])
async def test_a_yaml_create_the_decoder_refuses_is_400_at_once(
    server: FakeAPIServer, seeded: RawClient, body: bytes, problem: str
) -> None:
    reply = await _unchanged_after(server, seeded, "POST", JOBS, body, content_type="application/yaml")
    assert reply.status == 400
    message = reply.json()["message"]
    assert message.startswith(UNRECOGNIZED + problem + " ("), message


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        (b" &s {a: *s}", "error converting YAML to JSON: yaml: anchor 's' value contains itself"),
        (b"\n  a: .nan", "error converting YAML to JSON: json: unsupported value: NaN"),
        (b"\n  a: -.inf", "error converting YAML to JSON: json: unsupported value: -Inf"),
    ],
    ids=["self-alias", "nan", "minus-infinity"],
)
async def test_an_apply_the_decoder_refuses_is_400(
    server: FakeAPIServer, seeded: RawClient, spec: bytes, problem: str
) -> None:
    path = f"{ITEM}?fieldManager=m"
    body = HEAD.replace(b"name: made", b"name: job-1") + spec
    reply = await _unchanged_after(server, seeded, "PATCH", path, body, content_type="application/apply-patch+yaml")
    assert (reply.status, reply.json()["message"]) == (400, "error decoding YAML: " + problem)


@pytest.mark.asyncio
async def test_yaml_keys_and_scalars_are_converted_as_sigs_yaml_converts_them(
    server: FakeAPIServer, seeded: RawClient
) -> None:
    body = HEAD + (
        b"\n  1: int\n  true: bool\n  1.5: float\n  y: yes-is-true\n  2024-01-02: date"
        b"\n  big: " + b"9" * 400 + b"\n  when: 2024-01-02T03:04:05Z\n  octal: 010\n  on: off"
    )
    reply = await seeded.post(JOBS, body, content_type="application/yaml")
    assert reply.status == 201, reply.body
    assert reply.json()["spec"] == {
        "1": "int",
        "1.5": "float",
        "2024-01-02": "date",
        "big": "9" * 400,  # too large for int64, uint64 and float64: yaml.v2 keeps the text
        "octal": 8,
        "true": False,  # `true`, `y` and `on` are all the key "true"; the last one written wins
        "when": "2024-01-02T03:04:05Z",
    }


@pytest.mark.asyncio
async def test_apply_with_binary_is_stored_as_go_writes_invalid_utf8(server: FakeAPIServer, seeded: RawClient) -> None:
    body = HEAD.replace(b"name: made", b"name: bin") + b"\n  a: !!binary " + base64.b64encode(b"ok\x80\xe2\x82")
    reply = await seeded.patch(f"{JOBS}/bin?fieldManager=m", body, content_type="application/apply-patch+yaml")
    assert reply.status == 201, reply.body
    assert reply.json()["spec"]["a"] == "ok\ufffd\ufffd\ufffd"  # one U+FFFD per invalid byte, as json.Marshal
    assert json.loads((await seeded.get(f"{JOBS}/bin")).body)["spec"]["a"] == "ok\ufffd\ufffd\ufffd"


@pytest.mark.asyncio
async def test_an_object_9990_levels_deep_is_stored_and_readable_in_every_form(
    server: FakeAPIServer, seeded: RawClient
) -> None:
    created = await seeded.post(JOBS, _deep_json(9990))
    assert created.status == 201
    compact = await seeded.get(f"{JOBS}/deep")
    assert compact.status == 200 and compact.body == created.body
    pretty = await seeded.get(f"{JOBS}/deep?pretty=true")
    assert pretty.status == 200 and compact_json(pretty.body) + b"\n" == compact.body
    assert pretty.body.startswith(b'{\n  "apiVersion": "example.com/v1",\n')
    curl = await seeded.get(f"{JOBS}/deep", headers={"User-Agent": "curl/8.5.0"})
    assert curl.body == pretty.body
    as_yaml = await seeded.get(f"{JOBS}/deep", headers={"Accept": "application/yaml"})
    assert as_yaml.status == 200 and as_yaml.body.startswith(b"apiVersion: example.com/v1\n")
    listed = await seeded.get(f"{JOBS}?pretty=true")
    assert listed.status == 200 and compact_json(listed.body).count(b'"kind":"Job"') == 2


@pytest.mark.asyncio
async def test_json_deeper_than_go_allows_is_400(server: FakeAPIServer, seeded: RawClient) -> None:
    reply = await _unchanged_after(server, seeded, "POST", JOBS, _deep_json(10001))
    assert reply.status == 400
    assert "exceeded max depth" in reply.json()["message"]


@pytest.mark.asyncio
@pytest.mark.parametrize("version", ["²", "١٢", "𝟙", "-1", "18446744073709551616", "1.0", "9" * 10_000])
@pytest.mark.parametrize(
    ("query", "code", "prefix"),
    [
        ("", 500, ""),  # the watch cache returns the versioner's error as it is
        ("&watch=1", 500, ""),
        ("&limit=1", 400, "invalid resource version: "),  # delegated to etcd3, which wraps it
        ("&resourceVersionMatch=Exact", 400, "invalid resource version: "),
    ],
    ids=["list", "watch", "limit", "exact"],
)
async def test_a_resource_version_go_does_not_parse_is_refused(
    server: FakeAPIServer, seeded: RawClient, version: str, query: str, code: int, prefix: str
) -> None:
    quoted = json.dumps(version, ensure_ascii=False)
    kind = "value out of range" if version.isascii() and version.isdigit() else "invalid syntax"
    reply = await seeded.get(f"{JOBS}?resourceVersion={version}{query}")
    assert reply.status == code
    problem = f"strconv.ParseUint: parsing {quoted}: {kind}"
    assert reply.json()["message"] == f"{prefix}resourceVersion: Invalid value: {quoted}: {problem}"


@pytest.mark.asyncio
async def test_a_get_with_an_unparsable_resource_version_is_the_cachers_500(
    server: FakeAPIServer, seeded: RawClient
) -> None:
    reply = await seeded.get(f"{ITEM}?resourceVersion=%C2%B2")
    assert reply.status == 500
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'resourceVersion: Invalid value: "²": strconv.ParseUint: parsing "²": invalid syntax',
        "code": 500,
    }


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("rv", True, "json: cannot unmarshal bool into Go struct field continueToken.rv of type int64"),
        ("rv", "5", "json: cannot unmarshal string into Go struct field continueToken.rv of type int64"),
        ("v", 1, "json: cannot unmarshal number into Go struct field continueToken.v of type string"),
        ("start", [], "json: cannot unmarshal array into Go struct field continueToken.start of type string"),
    ],
)
async def test_a_continue_token_of_the_wrong_types_is_400(
    server: FakeAPIServer, seeded: RawClient, field: str, value: Any, problem: str
) -> None:
    token: dict[str, Any] = {"v": "meta.k8s.io/v1", "rv": 3, "start": "default/job-1\x00"}
    token[field] = value
    encoded = base64.urlsafe_b64encode(json.dumps(token).encode()).decode()
    reply = await seeded.get(f"{JOBS}?limit=1&continue={encoded}")
    assert reply.status == 400
    assert reply.json()["message"] == f"invalid continue token: continue key is not valid: {problem}"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"preconditions": [1]}, "array into Go struct field DeleteOptions.preconditions of type v1.Preconditions"),
        ({"preconditions": {"uid": 1}}, "number into Go struct field Preconditions.preconditions.uid of type string"),
        ({"gracePeriodSeconds": "5"}, "string into Go struct field DeleteOptions.gracePeriodSeconds of type int64"),
        ({"gracePeriodSeconds": 1.5}, "number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64"),
        ({"dryRun": "All"}, "string into Go struct field DeleteOptions.dryRun of type []string"),
        ({"orphanDependents": "yes"}, "string into Go struct field DeleteOptions.orphanDependents of type bool"),
    ],
)
async def test_delete_options_of_the_wrong_types_are_the_handlers_500_and_delete_nothing(
    server: FakeAPIServer, seeded: RawClient, body: dict[str, Any], problem: str
) -> None:
    reply = await _unchanged_after(server, seeded, "DELETE", ITEM, body)
    assert reply.status == 500
    assert reply.json()["message"] == f"json: cannot unmarshal {problem}"
    assert "reason" not in reply.json()


@pytest.mark.asyncio
async def test_content_encoding_is_not_decoded(server: FakeAPIServer, seeded: RawClient) -> None:
    plain = json.dumps({"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "plain"}}).encode()
    reply = await seeded.post(JOBS, plain, headers={"Content-Encoding": "gzip"})
    assert reply.status == 201  # Go's server leaves the header to the handler, which ignores it
    compressed = await _unchanged_after(
        server, seeded, "POST", JOBS, gzip.compress(plain), headers={"Content-Encoding": "gzip"}
    )
    assert compressed.status == 400
    assert compressed.json()["message"].startswith(UNRECOGNIZED + "couldn't get version/kind; json parse error: ")


@pytest.mark.asyncio
@pytest.mark.parametrize("version", ["v1", "abc", "-1", "٥", "18446744073709551616"])
async def test_a_create_with_a_resource_version_that_is_not_a_number_clears_it(
    server: FakeAPIServer, seeded: RawClient, version: str
) -> None:
    body = {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "rv", "resourceVersion": version}}
    reply = await seeded.post(JOBS, body)
    assert reply.status == 201
    assert reply.json()["metadata"]["resourceVersion"] == str(server.revision)


@pytest.mark.asyncio
async def test_a_create_with_a_non_zero_resource_version_is_etcds_500(server: FakeAPIServer, seeded: RawClient) -> None:
    body = {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "rv", "resourceVersion": "5"}}
    reply = await _unchanged_after(server, seeded, "POST", JOBS, body)
    assert (reply.status, reply.json()["message"]) == (
        500,
        "resourceVersion should not be set on objects to be created",
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("control", ["\x7f"])  # the one control character JSON lets through raw
async def test_a_spelling_warning_with_a_control_character_still_reaches_the_client(
    server: FakeAPIServer, seeded: RawClient, control: str
) -> None:
    server.load(
        {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "c"}, "spec": {"s": f"a<b{control}"}}
    )
    sent = b'[{"op":"test","path":"/spec/s","value":"a<b' + control.encode() + b'"}]'
    reply = await seeded.patch(f"{JOBS}/c", sent)
    assert reply.status == 422
    assert len(reply.warnings) == 1
    assert reply.warnings[0].startswith('299 - "JSON patch test of /spec/s failed only because of spelling')
    assert f"<U+{ord(control):04X}>" in reply.warnings[0]


def test_warning_header_values_are_go_quoted_and_writable() -> None:
    from fakeapi._http.responses import warning_header_value

    assert warning_header_value('say "hi" \\ now') == '299 - "say \\"hi\\" \\\\ now"'
    assert warning_header_value("two\r\nlines") == '299 - "two  lines"'  # net/http: CR and LF become spaces
    assert warning_header_value("del\x7f nul\x00") == '299 - "del\\\\x7f nul\\\\x00"'
    assert warning_header_value("lone \ud800") is None  # not valid UTF-8: NewWarningHeader refuses it

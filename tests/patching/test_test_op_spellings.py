"""A ``test`` op compares bytes: which spellings of a stored string pass, and which strict errors a body earns.

Each case is worked out from Go's rules: the stored value is written as ``encoding/json`` writes
it, the patch value keeps the bytes the client sent (whitespace aside), and they must be equal.
The tricky part is text that merely looks like an escape (an escaped backslash followed by ``u003c``).
Every outcome here was also checked with the Go reference harness (``tools/goref``).
"""

from __future__ import annotations

import pytest

from fakeapi._patching import apply_patch, decode_patch, predecode_json_patch

BACKSLASH = "\\"


def claim_applies(stored: str, spelling: bytes) -> bool:
    document = {"spec": {"note": stored}}
    body = (
        b'[{"op":"test","path":"/spec/note","value":' + spelling + b'},{"op":"add","path":"/spec/seen","value":true}]'
    )
    outcome = apply_patch(document, decode_patch(predecode_json_patch(body).text))
    return outcome.ok


@pytest.mark.parametrize(
    ("stored", "spelling", "passes"),
    [
        # The text "a\u003cb" (backslash, u, digits), spelled as Go spells it: an escaped backslash.
        (f"a{BACKSLASH}u003cb", rb'"a\\u003cb"', True),
        # The same bytes, but the stored string is "a<b": Go writes "a\u003cb", which differs.
        ("a<b", rb'"a\\u003cb"', False),
        ("a<b", rb'"a\u003cb"', True),
        ("a<b", b'"a<b"', False),
        # A backslash then "<": Go writes an escaped backslash and then \u003c.
        (f"x{BACKSLASH}<", rb'"x\\\u003c"', True),
        (f"x{BACKSLASH}<", rb'"x\\<"', False),
        ("é", b'"\xc3\xa9"', True),
        ("é", rb'"\u00e9"', False),
        ("a/b", rb'"a\/b"', False),
        ("a/b", b'"a/b"', True),
        ("line\u2028break", rb'"line\u2028break"', True),
        ("line\u2028break", b'"line\xe2\x80\xa8break"', False),
    ],
)
def test_a_test_op_passes_only_for_gos_spelling(stored: str, spelling: bytes, passes: bool) -> None:
    assert claim_applies(stored, spelling) is passes


def test_a_whole_map_test_with_an_escaped_backslash_before_u_compares_bytes() -> None:
    stored = {"last": '{"cmd": "echo \\u003e"}', "plain": "a<b"}
    document = {"metadata": {"annotations": stored}}
    go_spelled = rb'{"last":"{\"cmd\": \"echo \\u003e\"}","plain":"a\u003cb"}'
    python_spelled = rb'{"last":"{\"cmd\": \"echo \\u003e\"}","plain":"a<b"}'
    for spelling, passes in ((go_spelled, True), (python_spelled, False)):
        body = b'[{"op":"test","path":"/metadata/annotations","value":' + spelling + b"}]"
        assert apply_patch(document, decode_patch(predecode_json_patch(body).text)).ok is passes


@pytest.mark.parametrize(
    "body",
    [
        # A duplicated member hidden behind an escaped quote or colon elsewhere in the body.
        rb'[{"op":"test","path":"/a","value":"\u0022:","value":"x"}]',
        rb'[{"op":"test","path":"/a","value":"\u003a\"","value":"x"}]',
        rb'[{"op":"test","path":"/a","value":{"k\u0022":1,"k\u0022":2}}]',
    ],
)
def test_duplicate_members_are_strict_errors_whatever_the_escapes(body: bytes) -> None:
    errors = predecode_json_patch(body).strict_errors
    assert len(errors) == 1 and errors[0].startswith("duplicate field")

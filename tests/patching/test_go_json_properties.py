"""Properties of the Go JSON codec, over generated values and spellings (Hypothesis).

The conformance corpus pins exact Go bytes for chosen inputs; these properties cover the space
between them: decoding what we encode gives the value back, the orjson fast path and the
Go-faithful slow decoder agree, and the float spelling shortcuts agree with the general method.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fakeapi._patching import GoFloat, decode, encode, normalize
from fakeapi._patching.godecode import _decode_slowly
from fakeapi._patching.goencode import _fixed_notation, format_float

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    # -0.0 is the one value that does not survive: Go writes it "-0", which reads back as the int 0.
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: f != 0 or str(f) == "0.0")
    | st.text()
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=25,
)


def _same(a: Any, b: Any) -> bool:
    """Equal as stored: numbers by their Go spelling (a float 1.0 is stored as 1, and read back as
    the integer 1; a float above 2**53 can be read back as a slightly different int64, the same
    bytes), everything else exactly."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return encode(normalize(a)) == encode(normalize(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@settings(max_examples=400)
@given(JSON_VALUES)
def test_decoding_what_is_encoded_gives_the_value_back(value: Any) -> None:
    value = normalize(value)
    encoded = encode(value)
    assert _same(decode(encoded), value)
    assert encode(decode(encoded)) == encoded


@settings(max_examples=400)
@given(JSON_VALUES, st.booleans(), st.booleans())
def test_the_fast_and_the_go_faithful_decoders_agree(value: Any, ascii_only: bool, spaced: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=1 if spaced else None).encode()
    fast = decode(text)
    slow = _decode_slowly(text)
    assert encode(fast) == encode(slow)
    assert [type(x) for x in _leaves(fast)] == [type(x) for x in _leaves(slow)]


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _leaves(value[key])]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


@settings(max_examples=3000)
@given(st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: 1e-6 <= abs(f) < 1e21))
def test_float_spelling_shortcuts_agree_with_the_general_method(number: float) -> None:
    assert format_float(GoFloat(number)) == _fixed_notation(repr(number))


@settings(max_examples=1000)
@given(st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: f != 0 or str(f) == "0.0"))
def test_every_float_spelling_is_stable(number: float) -> None:
    """Every spelling reads back to itself (negative zero aside, see JSON_SCALARS)."""
    spelled = format_float(number).encode()
    decoded = decode(spelled)
    assert encode(decoded) == spelled
    if "." in spelled.decode() or "e" in spelled.decode():
        assert decoded == number  # a spelling that stays a float reads back exactly

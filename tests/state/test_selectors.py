"""Label and field selectors: the apiserver's exact 400 texts and its matching rules (apimachinery's labels.Parse and fields.ParseSelector)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakeapi._state.selectors import (
    FieldSelector,
    SelectorError,
    parse_field_selector,
    parse_label_selector,
)

NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric"
    " character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is"
    " '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
QUALIFIED_NAME = (
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
    " alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is"
    " '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/'"
    " (e.g. 'example.com/MyName')"
)
PREFIX_PART = (
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and"
    " must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is"
    " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start"
    " and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for"
    " validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
NOT_INTEGER = "for 'Gt', 'Lt' operators, the value must be an integer"
REQ = "unable to parse requirement: "


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        # between requirements
        ("a=b c", "found 'c', expected: ',' or 'end of string'"),
        ("a=b=c", "found '=', expected: ',' or 'end of string'"),
        ("!a=b", "found '=', expected: ',' or 'end of string'"),
        ("a,=b", "found '=', expected: identifier after ','"),
        ("a,", "found '', expected: identifier after ','"),
        ("a,,b", "found ',', expected: identifier after ','"),
        ("=a", "found '=', expected: !, identifier, or 'end of string'"),
        (",a", "found ',', expected: !, identifier, or 'end of string'"),
        ("!=a", "found '!=', expected: !, identifier, or 'end of string'"),
        ("(a)", "found '(', expected: !, identifier, or 'end of string'"),
        # inside one requirement
        ("!", REQ + "found '', expected: identifier"),
        ("!!a", REQ + "found '!', expected: identifier"),
        ("a b", REQ + "found 'b', expected: in, notin, =, ==, !=, gt, lt"),
        ("a (b)", REQ + "found '(', expected: in, notin, =, ==, !=, gt, lt"),
        ("a in b", REQ + "found 'b' expected: '('"),
        ("a in", REQ + "found '' expected: '('"),
        ("a in (b c)", REQ + "found 'c', expected: ',' or ')'"),
        ("a in (b", REQ + "found '', expected: ',' or ')'"),
        ("a in (b,=)", REQ + "found '=', expected: ',', or identifier"),
        ("a in (b,", REQ + "found '', expected: ',', or identifier"),
        ("a in (=)", REQ + "found '=', expected: ',', ')' or identifier"),
        ("a in (", REQ + "found '', expected: ',', ')' or identifier"),
        ("a=(", REQ + "found '(', expected: identifier"),
        ("a=!", REQ + "found '!', expected: identifier"),
        ("a>=1", REQ + "found '=', expected: identifier"),
        # keys: validated against a nil path
        ("app:monolith", REQ + '<nil>: Invalid value: "app:monolith": ' + NAME_PART),
        ("-a=b", REQ + '<nil>: Invalid value: "-a": ' + NAME_PART),
        ("x/y/z", REQ + '<nil>: Invalid value: "x/y/z": ' + QUALIFIED_NAME),
        ("/a", REQ + '<nil>: Invalid value: "/a": prefix part must be non-empty'),
        ("a/", REQ + '<nil>: Invalid value: "a/": name part must be non-empty; ' + NAME_PART),
        ("Foo.com/a", REQ + '<nil>: Invalid value: "Foo.com/a": ' + PREFIX_PART),
        ("k" * 64, REQ + f'<nil>: Invalid value: "{"k" * 64}": name part must be no more than 63 characters'),
        (
            "-" + "k" * 63,
            REQ + f'<nil>: Invalid value: "-{"k" * 63}": name part must be no more than 63 characters; ' + NAME_PART,
        ),
        (
            "a" * 254 + "/b",
            REQ + f'<nil>: Invalid value: "{"a" * 254}/b": prefix part must be no more than 253 characters',
        ),
        ("é", REQ + '<nil>: Invalid value: "é": ' + NAME_PART),
        ('a"\\b', REQ + '<nil>: Invalid value: "a\\"\\\\b": ' + NAME_PART),
        # values: validated under values[i][key], i counting the sorted, de-duplicated set
        ("a=-b", REQ + 'values[0][a]: Invalid value: "-b": ' + LABEL_VALUE),
        ("a!=b_", REQ + 'values[0][a]: Invalid value: "b_": ' + LABEL_VALUE),
        ("a=" + "v" * 64, REQ + f'values[0][a]: Invalid value: "{"v" * 64}": must be no more than 63 characters'),
        ("a in (z,-y)", REQ + 'values[0][a]: Invalid value: "-y": ' + LABEL_VALUE),
        (
            "a in (x,-y,-x,-y)",
            REQ
            + f'[values[0][a]: Invalid value: "-x": {LABEL_VALUE}, values[1][a]: Invalid value: "-y": {LABEL_VALUE}]',
        ),
        # > and < want an int64
        ("a>x", REQ + f'values[0]: Invalid value: "x": {NOT_INTEGER}'),
        ("a<1.5", REQ + f'values[0]: Invalid value: "1.5": {NOT_INTEGER}'),
        ("a>9223372036854775808", REQ + f'values[0]: Invalid value: "9223372036854775808": {NOT_INTEGER}'),
        ("a>", REQ + f'values[0]: Invalid value: "": {NOT_INTEGER}'),
        ("a>-5", REQ + 'values[0][a]: Invalid value: "-5": ' + LABEL_VALUE),
        (
            "a>-x",
            REQ + f'[values[0]: Invalid value: "-x": {NOT_INTEGER}, values[0][a]: Invalid value: "-x": {LABEL_VALUE}]',
        ),
        # a NUL inside a token only ends that token
        ("a=b\0c", "found 'c', expected: ',' or 'end of string'"),
        # the first bad requirement in input order wins, before any sorting
        ("z=-1,a b", REQ + 'values[0][z]: Invalid value: "-1": ' + LABEL_VALUE),
    ],
)
def test_label_selector_errors_are_the_apiservers_texts(selector: str, message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        parse_label_selector(selector)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("selector", "canonical"),
    [
        ("", ""),
        (" \t\r\n", ""),
        ("a", "a"),
        ("!a", "!a"),
        ("! a", "!a"),
        ("a=b", "a=b"),
        ("a==b", "a==b"),
        ("a!=b", "a!=b"),
        ("a=", "a="),
        ("a=,b", "a=,b"),
        ("a in (y,x,y)", "a in (x,y)"),
        ("a notin(x)", "a notin (x)"),
        ("a in ()", "a in ()"),
        ("a in (,x)", "a in (,x)"),
        ("a in (x,)", "a in (,x)"),
        ("a in (x,,y)", "a in (,x,y)"),
        ("a in (in,notin)", "a in (in,notin)"),
        ("in=notin", "in=notin"),
        ("a>5,a<10", "a>5,a<10"),
        (" b in (y, x) ,\ta ,\n!c,d notin ( z ),e == f,g > 1 ", "a,b in (x,y),!c,d notin (z),e==f,g>1"),
        ("example.com/app=web", "example.com/app=web"),
        # Go reads a NUL byte as the end of input where a token would start
        ("a=b \0ignored", "a=b"),
    ],
)
def test_label_selector_string_is_canonical_and_sorted_by_key(selector: str, canonical: str) -> None:
    parsed = parse_label_selector(selector)
    assert str(parsed) == canonical
    assert parsed.empty == (canonical == "")


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        ("", {}, True),
        ("a", {"a": ""}, True),
        ("a", {}, False),
        ("!a", {}, True),
        ("!a", {"a": ""}, False),
        ("a=b", {"a": "b"}, True),
        ("a=b", {}, False),
        ("a==b", {"a": "c"}, False),
        ("a=", {"a": ""}, True),
        ("a=", {}, False),
        ("a!=b", {}, True),
        ("a!=b", {"a": "b"}, False),
        ("a!=b", {"a": ""}, True),
        ("a in (b,c)", {"a": "c"}, True),
        ("a in (b,c)", {}, False),
        ("a in ()", {"a": ""}, True),
        ("a in ()", {"a": "b"}, False),
        ("a in (,b)", {"a": ""}, True),
        ("a notin (b)", {}, True),
        ("a notin (b)", {"a": "b"}, False),
        ("a notin ()", {"a": ""}, False),
        ("a notin ()", {"a": "x"}, True),
        ("a>5", {"a": "6"}, True),
        ("a>5", {"a": "5"}, False),
        ("a>5", {}, False),
        ("a>5", {"a": "x"}, False),
        ("a>5", {"a": "+7"}, True),
        ("a>5", {"a": "9223372036854775808"}, False),
        ("a<5", {"a": "-9223372036854775808"}, True),
        ("a<5", {"a": "5"}, False),
        ("a=b,c", {"a": "b"}, False),
        ("a=b,c", {"a": "b", "c": "d"}, True),
    ],
)
def test_label_selector_matching(selector: str, labels: dict[str, str], expected: bool) -> None:
    assert parse_label_selector(selector).matches(labels) is expected


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        ("metadata.name", "invalid selector: 'metadata.name'; can't understand 'metadata.name'"),
        ("b=1,a", "invalid selector: 'b=1,a'; can't understand 'a'"),
        ("a=1,x,b", "invalid selector: 'a=1,x,b'; can't understand 'b'"),
        ("metadata.name=a=b", "invalid field selector: unescaped character in value: 61"),
        ("a!==b", "invalid field selector: unescaped character in value: 61"),
        ("a===b", "invalid field selector: unescaped character in value: 61"),
        ("a=b\\", "invalid field selector: invalid escape sequence: \\"),
        ("a=b\\x", "invalid field selector: invalid escape sequence: \\x"),
        ("a=\\é", "invalid field selector: invalid escape sequence: \\é"),
        # terms are sorted before they are checked: "a=x=y" sorts before "b"
        ("b,a=x=y", "invalid field selector: unescaped character in value: 61"),
    ],
)
def test_field_selector_errors_are_the_apiservers_texts(selector: str, message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        parse_field_selector(selector)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("selector", "requirements"),
    [
        ("", []),
        (",", []),
        ("=", []),
        ("!=,==", []),
        ("metadata.name=foo", [("metadata.name", "=", "foo")]),
        ("metadata.name==foo", [("metadata.name", "=", "foo")]),
        ("status.phase!=Running", [("status.phase", "!=", "Running")]),
        ("metadata.name=", [("metadata.name", "=", "")]),
        ("=x", [("", "=", "x")]),
        ("a = b", [("a ", "=", " b")]),
        ("a!b=c", [("a!b", "=", "c")]),
        ("a=x\\,y\\=z\\\\", [("a", "=", "x,y=z\\")]),
        ("b=2,,a!=1", [("a", "!=", "1"), ("b", "=", "2")]),
    ],
)
def test_field_selector_terms(selector: str, requirements: list[tuple[str, str, str]]) -> None:
    parsed = parse_field_selector(selector)
    assert parsed.requirements == requirements
    assert parsed.empty == (requirements == [])


@pytest.mark.parametrize(
    ("selector", "fields", "expected"),
    [
        ("", {}, True),
        ("metadata.name=a", {"metadata.name": "a"}, True),
        ("metadata.name=a", {"metadata.name": "b"}, False),
        ("metadata.name=", {}, True),
        ("spec.nodeName!=n1", {}, True),
        ("spec.nodeName!=", {}, False),
        ("a=1,b!=2", {"a": "1", "b": "3"}, True),
        ("a=1,b!=2", {"a": "1", "b": "2"}, False),
    ],
)
def test_field_selector_matching_reads_missing_fields_as_empty(
    selector: str, fields: dict[str, str], expected: bool
) -> None:
    assert parse_field_selector(selector).matches(fields) is expected


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        ("spec.color=red", "field label not supported: spec.color"),
        ("spec.b=1,spec.a=2,metadata.name=x", "field label not supported: spec.a"),
        ("=x", "field label not supported: "),
    ],
)
def test_unsupported_field_labels_are_reported_in_sorted_order(selector: str, message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        parse_field_selector(selector).check_supported({"metadata.name", "metadata.namespace"})
    assert str(caught.value) == message


def test_supported_field_labels_and_empty_terms_pass() -> None:
    parse_field_selector("metadata.namespace=ns,metadata.name!=x,=").check_supported(
        {"metadata.name", "metadata.namespace"}
    )


@pytest.mark.parametrize(
    ("selector", "value"),
    [
        ("metadata.name=foo", "foo"),
        ("metadata.name==foo,metadata.namespace=ns", "foo"),
        ("metadata.name=", ""),
        ("metadata.name!=foo", None),
        ("metadata.namespace=ns", None),
        ("metadata.name=b,metadata.name=a", "a"),
    ],
)
def test_required_value(selector: str, value: str | None) -> None:
    assert parse_field_selector(selector).required_value("metadata.name") == value


def test_selector_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"^found '=', expected"):
        parse_label_selector("=")


# --- properties ------------------------------------------------------------------------------------------------

_ws = st.text(alphabet=" \t\r\n", max_size=2)
_ws1 = st.text(alphabet=" \t\r\n", min_size=1, max_size=2)
_name = st.from_regex(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?", fullmatch=True)
_prefix = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?){0,3}", fullmatch=True)
_key = st.one_of(_name, st.builds(lambda prefix, name: f"{prefix}/{name}", _prefix, _name))
_value = st.from_regex(r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,20}[A-Za-z0-9])?)?", fullmatch=True)


@st.composite
def _requirement_text(draw: st.DrawFn) -> str:
    key = draw(_key)
    form = draw(st.sampled_from(["exists", "!", "=", "==", "!=", "in", "notin", ">", "<"]))
    if form == "exists":
        return key
    if form == "!":
        return "!" + draw(_ws) + key
    if form in ("in", "notin"):
        values = draw(st.lists(_value, max_size=4))
        inner = ",".join(draw(_ws) + value + draw(_ws) for value in values)
        return key + draw(_ws1) + form + draw(_ws) + "(" + inner + ")"
    value = str(draw(st.integers(0, 2**63 - 1))) if form in (">", "<") else draw(_value)
    return key + draw(_ws) + form + draw(_ws) + value


_label_selector_text = st.lists(_requirement_text(), max_size=5).flatmap(
    lambda parts: st.builds(lambda sep: sep.join(parts), st.builds(lambda a, b: a + "," + b, _ws, _ws))
)


@given(_label_selector_text, st.dictionaries(_name, _value, max_size=4))
def test_label_selector_string_reparses_to_an_equivalent_selector(text: str, labels: dict[str, str]) -> None:
    parsed = parse_label_selector(text)
    reparsed = parse_label_selector(str(parsed))
    assert reparsed == parsed
    assert str(reparsed) == str(parsed)
    assert reparsed.matches(labels) == parsed.matches(labels)


_field_name = st.from_regex(r"[a-z]+(\.[a-zA-Z]+){0,2}", fullmatch=True)


@given(st.lists(st.tuples(_field_name, st.sampled_from(["=", "!="]), st.text(max_size=8)), max_size=4))
def test_field_selector_string_escapes_any_value(requirements: list[tuple[str, str, str]]) -> None:
    reparsed = parse_field_selector(str(FieldSelector(requirements)))
    assert sorted(reparsed.requirements) == sorted(requirements)

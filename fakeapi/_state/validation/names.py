"""The string formats the apiserver validates, with its messages (apimachinery ``util/validation/validation.go``).

Each check returns the list of problems Go's ``Is...`` function returns (empty when the value is
valid), which a caller turns into ``Invalid`` field errors: DNS-1123 labels and subdomains,
DNS-1035 labels, qualified names, label values, port names (IANA service names), environment
variable names (relaxed, as 1.32 validates them with the RelaxedEnvironmentVariableValidation gate on),
config map keys, C identifiers, percents, URL path segments (``path.IsValidPathSegmentName``).
``RegexError`` joins its examples with ``' or '`` after a comma, so two spaces sit between them.

The object name rules of the kinds (``apimachinery/pkg/api/validation/generic.go``
``NameIsDNSSubdomain`` and friends) take a ``prefix`` flag for ``generateName``: a trailing dash
is allowed there, by masking the last two characters as ``a`` before the check.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "NameRule",
    "is_c_identifier",
    "is_config_map_key",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_env_var_name",
    "is_label_value",
    "is_percent",
    "is_port_name",
    "is_qualified_name",
    "max_len_error",
    "name_is_dns1035_label",
    "name_is_dns_label",
    "name_is_dns_subdomain",
    "name_is_path_segment",
    "regex_error",
]

# A kind's name rule: (name, is it a generateName prefix) -> problems.
NameRule = Callable[[str, bool], list[str]]

_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN = _DNS1123_LABEL + "(\\." + _DNS1123_LABEL + ")*"
_DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?"
_QUALIFIED_NAME = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = "(" + _QUALIFIED_NAME + ")?"
_CONFIG_MAP_KEY = "[-._a-zA-Z0-9]+"
_C_IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]*"
_PERCENT = "[0-9]+%"

_DNS1123_LABEL_MESSAGE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_MESSAGE = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character"
)
_QUALIFIED_NAME_MESSAGE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MESSAGE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_CONFIG_MAP_KEY_MESSAGE = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
_C_IDENTIFIER_MESSAGE = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_'"
)
_RELAXED_ENV_VAR_MESSAGE = (
    "a valid environment variable name must consist only of printable ASCII characters other than '='"
)
_PERCENT_MESSAGE = "a valid percent string must be a numeric string followed by an ending '%'"


def regex_error(message: str, pattern: str, *examples: str) -> str:
    """``RegexError``."""
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{pattern}')"


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def _byte_len(text: str) -> int:
    # Go's len() counts UTF-8 bytes, not characters.
    return len(text.encode("utf-8", "surrogatepass"))


_compiled: dict[str, re.Pattern[str]] = {}


def _matches(pattern: str, value: str) -> bool:
    compiled = _compiled.get(pattern)
    if compiled is None:
        compiled = _compiled[pattern] = re.compile(pattern)
    return compiled.fullmatch(value) is not None


def is_dns1123_label(value: str) -> list[str]:
    problems = []
    if _byte_len(value) > 63:
        problems.append(max_len_error(63))
    if not _matches(_DNS1123_LABEL, value):
        if _matches(_DNS1123_SUBDOMAIN, value):
            problems.append("must not contain dots")
        else:
            problems.append(regex_error(_DNS1123_LABEL_MESSAGE, _DNS1123_LABEL, "my-name", "123-abc"))
    return problems


def is_dns1123_subdomain(value: str) -> list[str]:
    problems = []
    if _byte_len(value) > 253:
        problems.append(max_len_error(253))
    if not _matches(_DNS1123_SUBDOMAIN, value):
        problems.append(regex_error(_DNS1123_SUBDOMAIN_MESSAGE, _DNS1123_SUBDOMAIN, "example.com"))
    return problems


def is_dns1035_label(value: str) -> list[str]:
    problems = []
    if _byte_len(value) > 63:
        problems.append(max_len_error(63))
    if not _matches(_DNS1035_LABEL, value):
        problems.append(regex_error(_DNS1035_LABEL_MESSAGE, _DNS1035_LABEL, "my-name", "abc-123"))
    return problems


def is_qualified_name(value: str) -> list[str]:
    """``IsQualifiedName``: an optional DNS subdomain prefix and a name part of at most 63 characters."""
    problems: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            problems.append("prefix part must be non-empty")
        else:
            problems.extend(f"prefix part {problem}" for problem in is_dns1123_subdomain(prefix))
    else:
        return [
            "a qualified name "
            + regex_error(_QUALIFIED_NAME_MESSAGE, _QUALIFIED_NAME, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        problems.append("name part must be non-empty")
    elif _byte_len(name) > 63:
        problems.append("name part " + max_len_error(63))
    if not _matches(_QUALIFIED_NAME, name):
        problems.append(
            "name part " + regex_error(_QUALIFIED_NAME_MESSAGE, _QUALIFIED_NAME, "MyName", "my.name", "123-abc")
        )
    return problems


def is_label_value(value: str) -> list[str]:
    problems = []
    if _byte_len(value) > 63:
        problems.append(max_len_error(63))
    if not _matches(_LABEL_VALUE, value):
        problems.append(regex_error(_LABEL_VALUE_MESSAGE, _LABEL_VALUE, "MyValue", "my_value", "12345"))
    return problems


def is_port_name(value: str) -> list[str]:
    """``IsValidPortName``: an IANA service name."""
    problems = []
    if _byte_len(value) > 15:
        problems.append(max_len_error(15))
    if not _matches("[-a-z0-9]+", value):
        problems.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if re.search("[a-z]", value) is None:
        problems.append("must contain at least one letter (a-z)")
    if "--" in value:
        problems.append("must not contain consecutive hyphens")
    if value and (value[0] == "-" or value[-1] == "-"):
        problems.append("must not begin or end with a hyphen")
    return problems


def is_env_var_name(value: str) -> list[str]:
    """``IsRelaxedEnvVarName``: printable ASCII but ``=``."""
    problems = []
    if not value:
        problems.append("environment variable name must be non-empty")
    if any(not (0x20 <= ord(ch) < 0x7F) or ch == "=" for ch in value):
        problems.append(_RELAXED_ENV_VAR_MESSAGE)
    return problems


def is_config_map_key(value: str) -> list[str]:
    problems = []
    if _byte_len(value) > 253:
        problems.append(max_len_error(253))
    if not _matches(_CONFIG_MAP_KEY, value):
        problems.append(regex_error(_CONFIG_MAP_KEY_MESSAGE, _CONFIG_MAP_KEY, "key.name", "KEY_NAME", "key-name"))
    problems.extend(_chdir_prefix(value))
    return problems


def is_c_identifier(value: str) -> list[str]:
    if _matches(_C_IDENTIFIER, value):
        return []
    return [regex_error(_C_IDENTIFIER_MESSAGE, _C_IDENTIFIER, "my_name", "MY_NAME", "MyName")]


def is_percent(value: str) -> list[str]:
    if _matches(_PERCENT, value):
        return []
    return [regex_error(_PERCENT_MESSAGE, _PERCENT, "1%", "93%")]


def _chdir_prefix(value: str) -> list[str]:
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    if value.startswith(".."):
        return ["must not start with '..'"]
    return []


# -- object name rules (generic.go, path.go) ---------------------------------------------------


def _masked(name: str, prefix: bool) -> str:
    """``maskTrailingDash``: a generateName may end in a dash; its last two characters become ``a``."""
    if prefix and len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    return is_dns1123_subdomain(_masked(name, prefix))


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    return is_dns1123_label(_masked(name, prefix))


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    return is_dns1035_label(_masked(name, prefix))


def name_is_path_segment(name: str, prefix: bool) -> list[str]:
    """``path.ValidatePathSegmentName`` (``IsValidPathSegmentName``): usable as one URL path segment."""
    if not prefix and name in (".", ".."):
        return [f"may not be '{name}'"]
    problems = []
    for illegal in ("/", "%"):
        if illegal in name:
            problems.append(f"may not contain '{illegal}'")
    return problems

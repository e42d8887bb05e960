"""Telling Go's number ``-0`` apart from the text ``-0`` in an encoding (the shortcut's guard).

A stored float -0 reads back from the apiserver as the integer 0, so a patched document that holds
one must be decoded for real; names, dates and strings that merely contain ``-0`` must not say so.
"""

from __future__ import annotations

import pytest

from fakeapi._patching.lazynode import holds_negative_zero


@pytest.mark.parametrize(
    ("encoded", "holds"),
    [
        (b"-0", True),
        (b"[-0]", True),
        (b"[1,-0,2]", True),
        (b'{"a":-0}', True),
        (b'{"a":{"b":-0},"c":1}', True),
        (b'{"a":"x-0"}', False),
        (b'{"name":"job-00001","time":"2026-01-02T03:04:05Z"}', False),
        (b'{"a":-0.5}', False),
        (b'{"a":-05}', False),
        (b'"-0"', False),
        (b'{"a":"-0"}', False),
        # A string that looks like a member: the guard says yes, and the real decode then settles it.
        (b'{"a":"b:-0,"}', True),
    ],
)
def test_only_the_number_minus_zero_counts(encoded: bytes, holds: bool) -> None:
    assert holds_negative_zero(encoded) is holds

"""The float64 of a decoded JSON document, marked so the encoder writes it as Go does.

The apiserver decodes custom resources with kjson's PreserveInts: an integer literal that fits int64
stays an integer, every other number becomes a float64, and Go writes that float64 its own way
(``1.0`` becomes ``1``, ``1e21`` becomes ``1e+21``). orjson spells floats differently and offers a
hook only for types it does not know, so decoded floats carry this subclass to reach that hook.
"""

from __future__ import annotations


class GoFloat(float):
    """A float64 that came from JSON (or was normalized); behaves as a plain float otherwise."""

    __slots__ = ()

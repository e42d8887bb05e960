"""The apiserver's JSON spelling and patch engines, pure: no aiohttp, no asyncio.

Go-compatible JSON (:mod:`.goencode`, :mod:`.godecode`), JSON patch as evanphx/json-patch v4.12.0
applies it (:mod:`.jsonpatch`), merge patch (:mod:`.mergepatch`), the handler's strict pre-decode
(:mod:`.predecode`) and the spelling diagnosis (:mod:`.diagnosis`).
"""

from fakeapi._patching.diagnosis import SpellingDiagnosis, diagnose_failed_test
from fakeapi._patching.godecode import GoNumberRangeError, decode, normalize
from fakeapi._patching.goencode import GoFloat, encode, encode_in_order, encode_string
from fakeapi._patching.goscanner import GoSyntaxError
from fakeapi._patching.jsonpatch import JSONPatch, PatchOutcome, apply_patch, decode_patch, json_kind
from fakeapi._patching.lazynode import GoError, GoPanic
from fakeapi._patching.mergepatch import INVALID_JSON_PATCH, MergeOutcome, merge_patch
from fakeapi._patching.patchtext import UNDECODED, PatchText
from fakeapi._patching.predecode import PreDecoded, PreDecodeError, predecode_json_patch, predecode_merge_patch

__all__ = [
    "INVALID_JSON_PATCH",
    "UNDECODED",
    "GoError",
    "GoFloat",
    "GoNumberRangeError",
    "GoPanic",
    "GoSyntaxError",
    "JSONPatch",
    "MergeOutcome",
    "PatchOutcome",
    "PatchText",
    "PreDecodeError",
    "PreDecoded",
    "SpellingDiagnosis",
    "apply_patch",
    "decode",
    "decode_patch",
    "diagnose_failed_test",
    "encode",
    "encode_in_order",
    "encode_string",
    "json_kind",
    "merge_patch",
    "normalize",
    "predecode_json_patch",
    "predecode_merge_patch",
]

"""The runtime cost limits of CRD validation rules over HTTP: 1,000,000 per evaluation, 10,000,000 per
object (docs/cel.md, "Runtime cost").

The expected costs are worked out by hand from cel-go's cost tracker (interpreter/runtimecost.go) as the
docs describe it: an identifier 1, a field selection 1 more, a literal 0, ``x == y`` on ints 1 and on
strings a tenth of the shorter one's length (rounded up), ``x > 0`` 1, ``@not_strictly_false`` (the
condition of ``all``) 1, ``&&`` and ``?:`` nothing of their own, an attribute branch of ``?:`` nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.cel.test_rules_http import CRDS, JOBS, invalid, job
from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

UNIQUE = "self.all(x, self.exists_one(y, x == y))"


def _schema(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": {"items": items}}}}


async def _setup(client: RawClient, items: dict[str, Any]) -> None:
    reply = await client.post(CRDS, crd(schema=_schema(items)))
    assert reply.status == 201, reply.body


def _refused(path: str, detail: str) -> bytes:
    text = f'Invalid value: "array": {detail}'
    return invalid("job-1", f'Job.example.com "job-1" is invalid: {path}: {text}', [("FieldValueInvalid", text, path)])


def _cancelled(rule: str) -> str:
    return (
        "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call "
        f"cost exceeds limit for rule: {rule}"
    )


OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


async def test_an_unbounded_list_passes_the_per_call_limit_by_one_item(client: RawClient) -> None:
    # No maxItems: the estimate counts the 1,572,863 ints a 3 MiB request holds, 5 each, 7,864,317 with ``self`` and the result,
    # within the 10,000,000 a rule may cost, so the CRD is admitted.
    # Actual cost of ``self.all(x, x > 0)`` on n ints: ``self`` 1; per item the condition
    # ``@not_strictly_false(@result)`` 2 and the step ``@result && x > 0`` 1 + 1 + 0 + 1 = 3; the result
    # ``@result`` 1: 5n + 2 (the rule is on the list, ``self`` is the list). n = 199,999 gives 999,997, within
    # the limit; n = 200,000 gives 1,000,002, over it: cel-go stops at the first node past 1,000,000.
    rule = "self.all(x, x > 0)"
    await _setup(client, {"type": "array", "items": {"type": "integer"}, "x-kubernetes-validations": [{"rule": rule}]})
    under = await client.post(JOBS, job(items=[1] * 199_999))
    assert under.status == 201, under.body[:300]
    over = await client.post(JOBS, job("job-1", items=[1] * 200_000))
    assert over.status == 422
    assert over.body == _refused("spec.items", _cancelled(rule))


async def test_a_rule_over_the_per_call_limit_stops_the_rules_after_it(client: RawClient) -> None:
    # maxItems 100 of strings up to 1,000 characters: an estimate of 4,040,602, admitted.
    # Actual cost of UNIQUE on n distinct strings of 1,000 characters: ``self`` 1; per x: the condition 2,
    # then ``@result`` 1 and ``exists_one``: ``self`` 1, per y the condition ``true`` 0 and the step
    # ``x == y ? @result + 1 : @result``: ``x == y`` 1 + 1 + 100 = 102, plus 2 (``@result + 1``) for the one y
    # equal to x, nothing for the attribute branch; its result ``@result == 1`` 2: 102n + 5; so 102n + 8 per x,
    # and the outer result 1: 102n² + 8n + 2. n = 98: 980,394, within the limit; n = 99: over it.
    # The second rule fails for 99 items, and is never run: the first one stopped the validation.
    rules = [{"rule": UNIQUE}, {"rule": "self.size() < 99"}]
    items = {
        "type": "array",
        "maxItems": 100,
        "items": {"type": "string", "maxLength": 1000},
        "x-kubernetes-validations": rules,
    }
    await _setup(client, items)
    strings = [f"{index:04d}" + "x" * 996 for index in range(99)]
    under = await client.post(JOBS, job("job-0", items=strings[:98]))
    assert under.status == 201, under.body[:300]
    over = await client.post(JOBS, job(items=strings))
    assert over.status == 422
    assert over.body == _refused("spec.items", _cancelled(UNIQUE))
    assert (await client.get(f"{JOBS}/job-1")).status == 404


async def test_rules_that_together_pass_the_object_budget_stop_with_the_budget_error(client: RawClient) -> None:
    # Twelve copies of UNIQUE (each within the per-call limit) on 98 strings: each evaluation costs 980,394
    # (see above). Ten of them use 9,803,940 of the 10,000,000; the eleventh costs more than the 196,060 left:
    # the budget error, and the twelfth rule (which would fail) is not run. The message names no rule.
    rules = [{"rule": UNIQUE, "message": f"not unique ({index})"} for index in range(11)]
    rules.append({"rule": "self.size() == 0"})
    items = {
        "type": "array",
        "maxItems": 100,
        "items": {"type": "string", "maxLength": 1000},
        "x-kubernetes-validations": rules,
    }
    await _setup(client, items)
    strings = [f"{index:04d}" + "x" * 996 for index in range(98)]
    reply = await client.post(JOBS, job(items=strings))
    assert reply.status == 422
    assert reply.body == _refused("spec.items", OUT_OF_BUDGET)
    # Ten copies fit: only the last rule's own error.
    await _replace_schema(client, {**items, "x-kubernetes-validations": rules[:10] + rules[11:]})
    reply = await client.post(JOBS, job(items=strings))
    assert reply.status == 422
    assert reply.body == _refused("spec.items", "failed rule: self.size() == 0")


async def _replace_schema(client: RawClient, items: dict[str, Any]) -> None:
    current = await client.get(f"{CRDS}/jobs.example.com")
    assert current.status == 200
    body = current.json()
    body["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = _schema(items)
    reply = await client.put(f"{CRDS}/jobs.example.com", body)
    assert reply.status == 200, reply.body


async def test_the_budget_is_shared_by_the_items_of_a_list(client: RawClient) -> None:
    # Six copies of UNIQUE on each item of an outer list of two (each rule's estimate, 4,040,602 times 2
    # items, within the CRD's limit), each item 98 strings: 980,394 per evaluation. The first item uses
    # 5,882,364; the second's first four rules bring it to 9,803,940; its fifth finds 196,060 left: the budget
    # error at the second item's path.
    inner = {
        "type": "array",
        "maxItems": 100,
        "items": {"type": "string", "maxLength": 1000},
        "x-kubernetes-validations": [{"rule": UNIQUE}] * 6,
    }
    await _setup(client, {"type": "array", "maxItems": 2, "items": inner})
    strings = [f"{index:04d}" + "x" * 996 for index in range(98)]
    reply = await client.post(JOBS, job(items=[strings, strings]))
    assert reply.status == 422
    assert reply.body == _refused("spec.items[1]", OUT_OF_BUDGET)


async def test_a_message_expression_over_the_per_call_limit(client: RawClient) -> None:
    # The rule ``self.size() < 0`` fails, at a cost of 3; its messageExpression evaluates UNIQUE on 99 strings
    # (over 1,000,000, see above): the messageExpression's own error, Go-quoted, and nothing after it.
    expression = "self.all(x, self.exists_one(y, x == y)) ? 'no duplicates' : 'duplicates'"
    rules = [{"rule": "self.size() < 0", "messageExpression": expression}, {"rule": "self.size() == 0"}]
    items = {
        "type": "array",
        "maxItems": 100,
        "items": {"type": "string", "maxLength": 1000},
        "x-kubernetes-validations": rules,
    }
    await _setup(client, items)
    strings = [f"{index:04d}" + "x" * 996 for index in range(99)]
    reply = await client.post(JOBS, job(items=strings))
    assert reply.status == 422
    detail = (
        "no further validation rules will be run due to call cost exceeds limit for messageExpression: "
        "\"self.all(x, self.exists_one(y, x == y)) ? 'no duplicates' : 'duplicates'\""
    )
    assert reply.body == _refused("spec.items", detail)
    # On 98 strings it costs 980,394 + 0 (the branch is a literal): the message it gives.
    reply = await client.post(JOBS, job(items=strings[:98]))
    assert reply.status == 422
    both = [
        ("FieldValueInvalid", 'Invalid value: "array": no duplicates', "spec.items"),
        ("FieldValueInvalid", 'Invalid value: "array": failed rule: self.size() == 0', "spec.items"),
    ]
    message = (
        'Job.example.com "job-1" is invalid: [spec.items: Invalid value: "array": no duplicates, spec.items: '
        'Invalid value: "array": failed rule: self.size() == 0]'
    )
    assert reply.body == invalid("job-1", message, both)


async def test_a_message_expression_past_the_budget(client: RawClient) -> None:
    # Ten copies of UNIQUE on 98 strings use 9,803,940; the failing rule costs 3 more; its messageExpression
    # (980,394) finds 196,057 left: the messageExpression's budget error, at the rule's path.
    expression = "self.all(x, self.exists_one(y, x == y)) ? 'no duplicates' : 'duplicates'"
    rules: list[dict[str, Any]] = [{"rule": UNIQUE}] * 10
    rules.append({"rule": "self.size() < 0", "messageExpression": expression})
    items = {
        "type": "array",
        "maxItems": 100,
        "items": {"type": "string", "maxLength": 1000},
        "x-kubernetes-validations": rules,
    }
    await _setup(client, items)
    strings = [f"{index:04d}" + "x" * 996 for index in range(98)]
    reply = await client.post(JOBS, job(items=strings))
    assert reply.status == 422
    detail = (
        "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"
    )
    assert reply.body == _refused("spec.items", detail)

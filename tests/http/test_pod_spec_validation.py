"""Pod spec checks of ``ValidatePodSpec``: security contexts, affinity, topology spread, envFrom; 422 bytes, nothing stored."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RawClient
from tests.http.test_builtin_validation import assert_rejected, status_422

pytestmark = pytest.mark.asyncio

PODS = "/api/v1/namespaces/default/pods"
ID_RANGE = "must be between 0 and 2147483647, inclusive"
QUALIFIED_EMPTY = "name part must be non-empty"
QUALIFIED_RULE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def pod(container: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    main = {"name": "main", "image": "busybox:1.36", **(container or {})}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [main], **spec}}


def pod_422(*causes: tuple[str, str, str]) -> bytes:
    return status_422("Pod", "p", "Pod", "", list(causes))


async def test_user_and_group_ids_are_in_range(client: RawClient) -> None:
    body = pod({"securityContext": {"runAsGroup": 2147483648}}, securityContext={"runAsUser": -1, "fsGroup": -2})
    expected = pod_422(
        (
            "FieldValueInvalid",
            f"Invalid value: 2147483648: {ID_RANGE}",
            "spec.containers[0].securityContext.runAsGroup",
        ),
        ("FieldValueInvalid", f"Invalid value: -2: {ID_RANGE}", "spec.securityContext.fsGroup"),
        ("FieldValueInvalid", f"Invalid value: -1: {ID_RANGE}", "spec.securityContext.runAsUser"),
    )
    await assert_rejected(client, PODS, body, expected)


async def test_seccomp_and_apparmor_profiles_have_known_types(client: RawClient) -> None:
    container = {"securityContext": {"seccompProfile": {"type": "Localhost"}, "appArmorProfile": {"type": "Strict"}}}
    body = pod(container, securityContext={"seccompProfile": {"type": "Strict"}, "appArmorProfile": {}})
    expected = pod_422(
        (
            "FieldValueRequired",
            "Required value: must be set when seccomp type is Localhost",
            "spec.containers[0].securityContext.seccompProfile.localhostProfile",
        ),
        (
            "FieldValueNotSupported",
            'Unsupported value: "Strict": supported values: "Localhost", "RuntimeDefault", "Unconfined"',
            "spec.containers[0].securityContext.appArmorProfile.type",
        ),
        (
            "FieldValueNotSupported",
            'Unsupported value: "Strict": supported values: "Localhost", "RuntimeDefault", "Unconfined"',
            "spec.securityContext.seccompProfile.type",
        ),
        (
            "FieldValueRequired",
            "Required value: type is required when appArmorProfile is set",
            "spec.securityContext.appArmorProfile.type",
        ),
    )
    await assert_rejected(client, PODS, body, expected)


async def test_a_localhost_seccomp_profile_is_a_relative_path_without_backsteps(client: RawClient) -> None:
    profile = {"type": "Localhost", "localhostProfile": "/etc/../profile.json"}
    expected = pod_422(
        (
            "FieldValueInvalid",
            'Invalid value: "/etc/../profile.json": must be a relative path',
            "spec.securityContext.seccompProfile.localhostProfile",
        ),
        (
            "FieldValueInvalid",
            "Invalid value: \"/etc/../profile.json\": must not contain '..'",
            "spec.securityContext.seccompProfile.localhostProfile",
        ),
    )
    await assert_rejected(client, PODS, pod(securityContext={"seccompProfile": profile}), expected)


async def test_no_sys_admin_capability_without_privilege_escalation(client: RawClient) -> None:
    context = {"allowPrivilegeEscalation": False, "capabilities": {"add": ["CAP_SYS_ADMIN"]}}
    before = await client.get(PODS)
    reply = await client.post(PODS, pod({"securityContext": context}))
    assert reply.status == 422
    causes = reply.json()["details"]["causes"]
    assert [(cause["reason"], cause["field"]) for cause in causes] == [
        ("FieldValueInvalid", "spec.containers[0].securityContext")
    ]
    assert causes[0]["message"].endswith(
        ": cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
    )
    assert (await client.get(PODS)).json()["items"] == before.json()["items"]


async def test_affinity_terms_need_selectors_operators_and_a_topology_key(client: RawClient) -> None:
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}},
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "Within", "values": ["a"]}]}}
            ]
        },
    }
    term = "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
    expected = pod_422(
        (
            "FieldValueRequired",
            "Required value: must have at least one node selector term",
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
        ),
        (
            "FieldValueInvalid",
            'Invalid value: "Within": not a valid selector operator',
            f"{term}.labelSelector.matchExpressions[0].operator",
        ),
        ("FieldValueRequired", "Required value: can not be empty", f"{term}.topologyKey"),
        ("FieldValueInvalid", f'Invalid value: "": {QUALIFIED_EMPTY}', f"{term}.topologyKey"),
        ("FieldValueInvalid", f'Invalid value: "": {QUALIFIED_RULE}', f"{term}.topologyKey"),
    )
    await assert_rejected(client, PODS, pod(affinity=affinity), expected)


async def test_topology_spread_constraints_skew_key_and_action(client: RawClient) -> None:
    constraints = [
        {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "Sometimes"},
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "minDomains": 0},
    ]
    where = "spec.topologySpreadConstraints"
    expected = pod_422(
        ("FieldValueInvalid", "Invalid value: 0: must be greater than zero", f"{where}[0].maxSkew"),
        ("FieldValueRequired", "Required value: can not be empty", f"{where}[0].topologyKey"),
        (
            "FieldValueNotSupported",
            'Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"',
            f"{where}[0].whenUnsatisfiable",
        ),
        (
            "FieldValueDuplicate",
            'Duplicate value: "{zone, DoNotSchedule}"',
            f"{where}[1].{{topologyKey, whenUnsatisfiable}}",
        ),
        ("FieldValueInvalid", "Invalid value: 0: must be greater than zero", f"{where}[2].minDomains"),
    )
    await assert_rejected(client, PODS, pod(topologySpreadConstraints=constraints), expected)


async def test_env_from_needs_one_named_source_and_a_valid_prefix(client: RawClient) -> None:
    env_from = [{"prefix": "A=B", "configMapRef": {"name": ""}}, {"prefix": "OK_"}]
    where = "spec.containers[0].envFrom"
    expected = pod_422(
        (
            "FieldValueInvalid",
            'Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII '
            "characters other than '='",
            f"{where}[0].prefix",
        ),
        ("FieldValueRequired", "Required value", f"{where}[0].configMapRef.name"),
        ("FieldValueInvalid", 'Invalid value: "": must specify one of: `configMapRef` or `secretRef`', where),
    )
    await assert_rejected(client, PODS, pod({"envFrom": env_from}), expected)

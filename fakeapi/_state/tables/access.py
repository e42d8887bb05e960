"""Rows of the kinds that govern access and scale: disruption budgets, autoscalers, quotas, role bindings,
certificate requests, admission configuration and API priority and fairness.

Reproduced from kube-apiserver 1.32 ``pkg/printers/internalversion/printers.go``
(``printPodDisruptionBudget``, ``printHorizontalPodAutoscaler`` with ``formatHPAMetrics``,
``printResourceQuota``, ``printRoleBinding`` and ``printClusterRoleBinding`` with
``rbac.SubjectsStrings``, ``printCertificateSigningRequest`` with ``extractCSRStatus``,
``printMutatingWebhook``, ``printValidatingWebhook``, ``printValidatingAdmissionPolicy``,
``printValidatingAdmissionPolicyBinding``, ``printFlowSchema``, ``printPriorityLevelConfiguration``),
always wide. An autoscaler written at ``autoscaling/v1`` is read as the internal version sees it: its
``targetCPUUtilizationPercentage`` is a CPU utilization metric. FlowSchema lists are printed in the
store's order, not sorted by matching precedence as ``printFlowSchemaList`` sorts them.
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.tables.columns import AGE_COLUMN, NAME_COLUMN, Printer, column
from fakeapi._state.tables.durations import age, human_duration
from fakeapi._state.tables.fields import Obj, as_int, as_list, as_obj, as_str, dicts, metadata, nested
from fakeapi._state.tables.swagger_docs import SWAGGER_DOCS

__all__ = [
    "CLUSTER_ROLE_BINDING_PRINTER",
    "CSR_PRINTER",
    "FLOW_SCHEMA_PRINTER",
    "HPA_PRINTER",
    "MUTATING_WEBHOOK_PRINTER",
    "PDB_PRINTER",
    "PRIORITY_LEVEL_PRINTER",
    "RESOURCE_QUOTA_PRINTER",
    "ROLE_BINDING_PRINTER",
    "VALIDATING_ADMISSION_POLICY_BINDING_PRINTER",
    "VALIDATING_ADMISSION_POLICY_PRINTER",
    "VALIDATING_WEBHOOK_PRINTER",
]


def _name(obj: Obj) -> Any:
    return metadata(obj).get("name", "")


def _doc(key: str) -> str:
    return SWAGGER_DOCS[key]


def _int_or_string(value: Any) -> str:
    """``IntOrString.String()``; a nil pointer is N/A."""
    if value is None:
        return "N/A"
    return str(value) if isinstance(value, (int, str)) else "N/A"


def _pdb_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = as_obj(obj.get("spec"))
    return [
        _name(obj),
        _int_or_string(spec.get("minAvailable")),
        _int_or_string(spec.get("maxUnavailable")),
        as_int(nested(obj, "status", "disruptionsAllowed")),
        age(obj, now_ns),
    ]


def _hpa_metrics(spec: Obj, status: Obj) -> tuple[list[Obj], list[Obj]]:
    """The internal version's metrics: v2's as they are, v1's CPU target and current utilization as one."""
    if "metrics" in spec or "targetCPUUtilizationPercentage" not in spec:
        return dicts(spec.get("metrics")), dicts(status.get("currentMetrics"))
    target = {"type": "Utilization", "averageUtilization": spec["targetCPUUtilizationPercentage"]}
    metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": target}}]
    current = status.get("currentCPUUtilizationPercentage")
    statuses = (
        [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": current}}}]
        if current is not None
        else []
    )
    return metrics, statuses


def _hpa_metric(spec: Obj, current: Obj | None) -> str:
    kind = spec.get("type")
    if kind in ("External", "Object", "Pods"):
        field = {"External": "external", "Object": "object", "Pods": "pods"}[kind]
        target = as_obj(nested(spec, field, "target"))
        # ``statuses[i].<Source> != nil``: a status of another source type counts as none.
        observed = as_obj(nested(current, field, "current")) if isinstance(nested(current, field), dict) else None
        if kind == "Pods" or target.get("averageValue") is not None:
            shown = "<unknown>"
            if observed is not None and (kind == "Pods" or observed.get("averageValue") is not None):
                shown = as_str(observed.get("averageValue")) or "0"
            suffix = " (avg)" if kind != "Pods" else ""
            return f"{shown}/{as_str(target.get('averageValue')) or '0'}{suffix}"
        shown = (as_str(observed.get("value")) or "0") if observed is not None else "<unknown>"
        return f"{shown}/{as_str(target.get('value')) or '0'}"
    if kind in ("Resource", "ContainerResource"):
        field = "resource" if kind == "Resource" else "containerResource"
        source = as_obj(spec.get(field))
        target = as_obj(source.get("target"))
        observed = as_obj(nested(current, field, "current")) if isinstance(nested(current, field), dict) else None
        name = as_str(source.get("name"))
        if target.get("averageValue") is not None:
            shown = (as_str(observed.get("averageValue")) or "0") if observed is not None else "<unknown>"
            return f"{name}: {shown}/{as_str(target['averageValue'])}"
        shown = "<unknown>"
        if observed is not None and observed.get("averageUtilization") is not None:
            shown = f"{as_int(observed['averageUtilization'])}%"
        wanted = (
            f"{as_int(target['averageUtilization'])}%" if target.get("averageUtilization") is not None else "<auto>"
        )
        return f"{name}: {shown}/{wanted}"
    return "<unknown type>"


def _hpa_targets(spec: Obj, status: Obj) -> str:
    """``formatHPAMetrics``: the first two metrics, then ``+ N more...``."""
    metrics, statuses = _hpa_metrics(spec, status)
    if not metrics:
        return "<none>"
    shown = [_hpa_metric(metric, statuses[i] if i < len(statuses) else None) for i, metric in enumerate(metrics)]
    if len(shown) > 2:
        return f"{', '.join(shown[:2])} + {len(shown) - 2} more..."
    return ", ".join(shown)


def _hpa_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = as_obj(obj.get("spec")), as_obj(obj.get("status"))
    target = as_obj(spec.get("scaleTargetRef"))
    minimum = spec.get("minReplicas")
    return [
        _name(obj),
        f"{as_str(target.get('kind'))}/{as_str(target.get('name'))}",
        _hpa_targets(spec, status),
        str(as_int(minimum)) if minimum is not None else "<unset>",
        as_int(spec.get("maxReplicas")),
        as_int(status.get("currentReplicas")),
        age(obj, now_ns),
    ]


def _quota_cells(obj: Obj, now_ns: int) -> list[Any]:
    status = as_obj(obj.get("status"))
    hard, used = as_obj(status.get("hard")), as_obj(status.get("used"))
    requests: list[str] = []
    limits: list[str] = []
    for resource in sorted(hard):
        pieces = resource.split(".")
        target = limits if len(pieces) > 1 and pieces[0] == "limits" else requests
        target.append(f"{resource}: {as_str(used.get(resource)) or '0'}/{as_str(hard[resource]) or '0'}")
    return [_name(obj), ", ".join(requests), ", ".join(limits), age(obj, now_ns)]


def _subjects(subjects: list[Obj]) -> list[str]:
    """``rbac.SubjectsStrings``: users, groups and ServiceAccounts (``namespace/name``), each joined."""
    users = [as_str(s.get("name")) for s in subjects if s.get("kind") == "User"]
    groups = [as_str(s.get("name")) for s in subjects if s.get("kind") == "Group"]
    accounts = [
        f"{as_str(s.get('namespace'))}/{as_str(s.get('name'))}" for s in subjects if s.get("kind") == "ServiceAccount"
    ]
    return [", ".join(users), ", ".join(groups), ", ".join(accounts)]


def _binding_cells(obj: Obj, now_ns: int) -> list[Any]:
    role = as_obj(obj.get("roleRef"))
    return [
        _name(obj),
        f"{as_str(role.get('kind'))}/{as_str(role.get('name'))}",
        age(obj, now_ns),
        *_subjects(dicts(obj.get("subjects"))),
    ]


def _csr_status(obj: Obj) -> str:
    kinds = {as_str(c.get("type")) for c in dicts(nested(obj, "status", "conditions"))}
    state = "Denied" if "Denied" in kinds else "Approved" if "Approved" in kinds else "Pending"
    if "Failed" in kinds:
        state += ",Failed"
    if as_str(nested(obj, "status", "certificate")):
        state += ",Issued"
    return state


def _csr_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = as_obj(obj.get("spec"))
    seconds = spec.get("expirationSeconds")
    return [
        _name(obj),
        age(obj, now_ns),
        as_str(spec.get("signerName")) or "<none>",
        as_str(spec.get("username")),
        human_duration(as_int(seconds)) if seconds is not None else "<none>",
        _csr_status(obj),
    ]


def _webhook_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [_name(obj), len(as_list(obj.get("webhooks"))), age(obj, now_ns)]


def _policy_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = as_obj(obj.get("spec"))
    kind = spec.get("paramKind")
    param_kind = f"{as_str(kind.get('apiVersion'))}/{as_str(kind.get('kind'))}" if isinstance(kind, dict) else "<unset>"
    return [_name(obj), len(as_list(spec.get("validations"))), param_kind, age(obj, now_ns)]


def _policy_binding_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = as_obj(obj.get("spec"))
    reference = spec.get("paramRef")
    param = "<unset>"
    if isinstance(reference, dict):
        if as_str(reference.get("name")):
            namespace = as_str(reference.get("namespace"))
            param = f"{namespace or '*'}/{as_str(reference['name'])}"
        elif isinstance(reference.get("selector"), dict):
            param = _label_selector_debug_string(reference["selector"])
    return [_name(obj), as_str(spec.get("policyName")), param, age(obj, now_ns)]


def _label_selector_debug_string(selector: Obj) -> str:
    """``(*metav1.LabelSelector).String()``, the gogo-protobuf debug form ``printers.go`` prints a selector in."""
    labels = as_obj(selector.get("matchLabels"))
    label_text = "".join(f"{key}: {labels[key]}," for key in sorted(labels))
    expressions = "".join(
        f"LabelSelectorRequirement{{Key:{as_str(e.get('key'))},Operator:{as_str(e.get('operator'))},"
        f"Values:[{' '.join(as_str(v) for v in as_list(e.get('values')))}],}},"
        for e in dicts(selector.get("matchExpressions"))
    )
    return (
        f"&LabelSelector{{MatchLabels:map[string]string{{{label_text}}},"
        f"MatchExpressions:[]LabelSelectorRequirement{{{expressions}}},}}"
    )


def _flow_schema_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = as_obj(obj.get("spec"))
    method = spec.get("distinguisherMethod")
    dangling = next(
        (as_str(c.get("status")) for c in dicts(nested(obj, "status", "conditions")) if c.get("type") == "Dangling"),
        "?",
    )
    return [
        _name(obj),
        as_str(nested(spec, "priorityLevelConfiguration", "name")),
        as_int(spec.get("matchingPrecedence")),
        as_str(method.get("type")) if isinstance(method, dict) else "<none>",
        age(obj, now_ns),
        dangling,
    ]


def _priority_level_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = as_obj(obj.get("spec"))
    shares: Any = "<none>"
    queues: Any = "<none>"
    hand: Any = "<none>"
    length: Any = "<none>"
    limited = spec.get("limited")
    if isinstance(limited, dict):
        shares = as_int(limited.get("nominalConcurrencyShares"))
        queuing = nested(limited, "limitResponse", "queuing")
        if isinstance(queuing, dict):
            queues = as_int(queuing.get("queues"))
            hand = as_int(queuing.get("handSize"))
            length = as_int(queuing.get("queueLengthLimit"))
    return [_name(obj), as_str(spec.get("type")), shares, queues, hand, length, age(obj, now_ns)]


PDB_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Min Available", "string", "The minimum number of pods that must be available."),
        column("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
        column("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
        AGE_COLUMN,
    ),
    _pdb_cells,
)

HPA_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Reference", "string", _doc("autoscaling.v2beta1.HorizontalPodAutoscalerSpec.scaleTargetRef")),
        column("Targets", "string", _doc("autoscaling.v2beta1.HorizontalPodAutoscalerSpec.metrics")),
        column("MinPods", "string", _doc("autoscaling.v2beta1.HorizontalPodAutoscalerSpec.minReplicas")),
        column("MaxPods", "string", _doc("autoscaling.v2beta1.HorizontalPodAutoscalerSpec.maxReplicas")),
        column("Replicas", "string", _doc("autoscaling.v2beta1.HorizontalPodAutoscalerStatus.currentReplicas")),
        AGE_COLUMN,
    ),
    _hpa_cells,
)

RESOURCE_QUOTA_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
        column(
            "Limit",
            "string",
            "Limits control the maximum amount of cpu/memory that a container may use independent of contention on "
            "the node.",
        ),
        AGE_COLUMN,
    ),
    _quota_cells,
)


def _binding_printer(kind: str, role_doc: str) -> Printer:
    return Printer(
        (
            NAME_COLUMN,
            column("Role", "string", role_doc),
            AGE_COLUMN,
            column("Users", "string", f"Users in the {kind}", priority=1),
            column("Groups", "string", f"Groups in the {kind}", priority=1),
            column("ServiceAccounts", "string", f"ServiceAccounts in the {kind}", priority=1),
        ),
        _binding_cells,
    )


ROLE_BINDING_PRINTER = _binding_printer("roleBinding", _doc("rbac.v1beta1.RoleBinding.roleRef"))
CLUSTER_ROLE_BINDING_PRINTER = _binding_printer("clusterRoleBinding", _doc("rbac.v1beta1.ClusterRoleBinding.roleRef"))

CSR_PRINTER = Printer(
    (
        NAME_COLUMN,
        AGE_COLUMN,
        column("SignerName", "string", _doc("certificates.v1beta1.CertificateSigningRequestSpec.signerName")),
        column("Requestor", "string", _doc("certificates.v1beta1.CertificateSigningRequestSpec.request")),
        column(
            "RequestedDuration", "string", _doc("certificates.v1beta1.CertificateSigningRequestSpec.expirationSeconds")
        ),
        column("Condition", "string", _doc("certificates.v1beta1.CertificateSigningRequestStatus.conditions")),
    ),
    _csr_cells,
)

_WEBHOOKS_COLUMN = column(
    "Webhooks", "integer", "Webhooks indicates the number of webhooks registered in this configuration"
)
MUTATING_WEBHOOK_PRINTER = Printer((NAME_COLUMN, _WEBHOOKS_COLUMN, AGE_COLUMN), _webhook_cells)
VALIDATING_WEBHOOK_PRINTER = Printer((NAME_COLUMN, _WEBHOOKS_COLUMN, AGE_COLUMN), _webhook_cells)

VALIDATING_ADMISSION_POLICY_PRINTER = Printer(
    (
        NAME_COLUMN,
        column(
            "Validations",
            "integer",
            "Validations indicates the number of validation rules defined in this configuration",
        ),
        column("ParamKind", "string", "ParamKind specifies the kind of resources used to parameterize this policy"),
        AGE_COLUMN,
    ),
    _policy_cells,
)

VALIDATING_ADMISSION_POLICY_BINDING_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("PolicyName", "string", "PolicyName indicates the policy definition which the policy binding binded to"),
        column("ParamRef", "string", "ParamRef indicates the param resource which sets the configration param"),
        AGE_COLUMN,
    ),
    _policy_binding_cells,
)

FLOW_SCHEMA_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("PriorityLevel", "string", _doc("flowcontrol.v1.PriorityLevelConfigurationReference.name")),
        column("MatchingPrecedence", "string", _doc("flowcontrol.v1.FlowSchemaSpec.matchingPrecedence")),
        column("DistinguisherMethod", "string", _doc("flowcontrol.v1.FlowSchemaSpec.distinguisherMethod")),
        AGE_COLUMN,
        column("MissingPL", "string", "references a broken or non-existent PriorityLevelConfiguration"),
    ),
    _flow_schema_cells,
)

PRIORITY_LEVEL_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Type", "string", _doc("flowcontrol.v1.PriorityLevelConfigurationSpec.type")),
        column(
            "NominalConcurrencyShares",
            "string",
            _doc("flowcontrol.v1.LimitedPriorityLevelConfiguration.nominalConcurrencyShares"),
        ),
        column("Queues", "string", _doc("flowcontrol.v1.QueuingConfiguration.queues")),
        column("HandSize", "string", _doc("flowcontrol.v1.QueuingConfiguration.handSize")),
        column("QueueLengthLimit", "string", _doc("flowcontrol.v1.QueuingConfiguration.queueLengthLimit")),
        AGE_COLUMN,
    ),
    _priority_level_cells,
)

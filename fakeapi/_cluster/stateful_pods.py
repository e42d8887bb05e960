"""A StatefulSet's pods and claims: ``pkg/controller/statefulset/stateful_pod_control.go`` and the
identity and claim-retention helpers of ``stateful_set_utils.go``.

A pod is ``<set>-<ordinal>``, with ``generateName`` ``<set>-`` (``controller.GetPodFromTemplate``),
the template's labels plus ``controller-revision-hash``, ``statefulset.kubernetes.io/pod-name`` and
``apps.kubernetes.io/pod-index``, ``hostname``/``subdomain`` from ``serviceName``, and one volume per
claim template in front of the template's own. ``CreateStatefulPod`` creates the missing claims
``<template>-<set>-<ordinal>`` (labels: the template's and the selector's ``matchLabels``) before
the pod, then sets the claims' owners for ``persistentVolumeClaimRetentionPolicy``
(``isClaimOwnerUpToDate``, ``updateClaimOwnerRefForSetAndPod``): ``whenDeleted: Delete`` makes the
set their controller, ``whenScaled: Delete`` makes a condemned pod their controller. The Events are
``recordPodEvent``'s and ``recordClaimEvent``'s: ``Successful<Verb>`` ``<verb> Pod <pod> in
StatefulSet <set> successful`` and ``create Claim <claim> Pod <pod> in StatefulSet <set> success``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.controller_refs import controller_reference
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = [
    "CLAIMS",
    "COMPONENT",
    "ORDINAL",
    "PODS",
    "REVISION_LABEL",
    "claim_is_stale",
    "claims_match_policy",
    "create_claims",
    "create_pod",
    "delete_pod",
    "fix_claims",
    "new_pod",
    "ordinal_of",
    "phase",
    "record_pod_event",
    "terminating",
    "update_claim_owners",
]

PODS = builtin_type("", "v1", "Pod")
CLAIMS = builtin_type("", "v1", "PersistentVolumeClaim")
COMPONENT = "statefulset-controller"
REVISION_LABEL = "controller-revision-hash"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
ORDINAL = re.compile(r"(.*)-([0-9]+)$")


def ordinal_of(pod: dict[str, Any]) -> int:
    match = ORDINAL.match(str(metadata_of(pod).get("name") or ""))
    return int(match.group(2)) if match and int(match.group(2)) < 2**31 else -1


def phase(pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def terminating(pod: dict[str, Any]) -> bool:
    return metadata_of(pod).get("deletionTimestamp") is not None


def new_pod(stateful_set: dict[str, Any], template: dict[str, Any], ordinal: int, revision: str) -> dict[str, Any]:
    meta = metadata_of(stateful_set)
    set_name = str(meta.get("name") or "")
    name = f"{set_name}-{ordinal}"
    template_meta = template.get("metadata") or {}
    spec = dict(template.get("spec") or {})
    claims = claim_names(stateful_set, ordinal)
    volumes = [{"name": volume, "persistentVolumeClaim": {"claimName": claim}} for volume, claim in claims.items()]
    volumes += [v for v in spec.get("volumes") or [] if v.get("name") not in claims]
    spec["volumes"] = volumes or None
    spec["hostname"] = name
    spec["subdomain"] = (stateful_set.get("spec") or {}).get("serviceName") or None
    labels = {
        **(template_meta.get("labels") or {}),
        POD_NAME_LABEL: name,
        POD_INDEX_LABEL: str(ordinal),
        REVISION_LABEL: revision,
    }
    metadata: dict[str, Any] = {"name": name, "generateName": f"{set_name}-", "namespace": meta.get("namespace")}
    metadata["labels"] = labels
    if template_meta.get("annotations"):
        metadata["annotations"] = dict(template_meta["annotations"])
    if template_meta.get("finalizers"):
        metadata["finalizers"] = list(template_meta["finalizers"])
    metadata["ownerReferences"] = [controller_reference(stateful_set, "apps/v1", "StatefulSet")]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {key: value for key, value in spec.items() if value is not None},
    }


def claim_names(stateful_set: dict[str, Any], ordinal: int) -> dict[str, str]:
    """Template name -> claim name (``getPersistentVolumeClaimName``)."""
    set_name = metadata_of(stateful_set).get("name")
    templates = (stateful_set.get("spec") or {}).get("volumeClaimTemplates") or []
    return {str(metadata_of(t).get("name")): f"{metadata_of(t).get('name')}-{set_name}-{ordinal}" for t in templates}


def create_pod(simulation: ControllerContext, stateful_set: dict[str, Any], pod: dict[str, Any]) -> None:
    """``CreateStatefulPod``: the claims first, then the pod, then the claims' owners."""
    create_claims(simulation, stateful_set, pod)
    namespace = metadata_of(pod)["namespace"]
    try:
        stored = simulation.store.create(PODS, namespace, pod, manager=CONTROLLER_MANAGER).object
    except APIError as error:
        if error.reason == "AlreadyExists":
            return
        raise
    record_pod_event(simulation, stateful_set, "create", stored)
    update_claim_owners(simulation, stateful_set, stored)


def delete_pod(simulation: ControllerContext, stateful_set: dict[str, Any], pod: dict[str, Any]) -> None:
    meta = metadata_of(pod)
    try:
        simulation.store.delete(PODS, meta.get("namespace", ""), meta["name"])
    except APIError as error:
        if error.reason != "NotFound":
            raise
        return
    record_pod_event(simulation, stateful_set, "delete", pod)


def record_pod_event(
    simulation: ControllerContext, stateful_set: dict[str, Any], verb: str, pod: dict[str, Any]
) -> None:
    message = f"{verb} Pod {metadata_of(pod)['name']} in StatefulSet {metadata_of(stateful_set)['name']} successful"
    reason = f"Successful{verb.title()}"
    simulation.recorder.record(stateful_set, "Normal", reason, message, component=COMPONENT, manager=CONTROLLER_MANAGER)


def create_claims(simulation: ControllerContext, stateful_set: dict[str, Any], pod: dict[str, Any]) -> None:
    """``createPersistentVolumeClaims``: each missing claim, with its Event."""
    store = simulation.store
    meta = metadata_of(stateful_set)
    namespace = meta.get("namespace", "")
    selector_labels = ((stateful_set.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    names = claim_names(stateful_set, ordinal_of(pod))
    for template in (stateful_set.get("spec") or {}).get("volumeClaimTemplates") or []:
        claim_name = names[str(metadata_of(template).get("name"))]
        if store.find(CLAIMS, namespace, claim_name) is not None:
            continue
        template_meta = {k: v for k, v in metadata_of(template).items() if k != "creationTimestamp"}
        claim = {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                **template_meta,
                "name": claim_name,
                "namespace": namespace,
                "labels": {**(template_meta.get("labels") or {}), **selector_labels},
            },
            "spec": template.get("spec") or {},
        }
        try:
            store.create(CLAIMS, namespace, claim, manager=CONTROLLER_MANAGER)
        except APIError as error:
            if error.reason == "AlreadyExists":
                continue
            raise
        message = f"create Claim {claim_name} Pod {metadata_of(pod)['name']} in StatefulSet {meta['name']} success"
        simulation.recorder.record(
            stateful_set, "Normal", "SuccessfulCreate", message, component=COMPONENT, manager=CONTROLLER_MANAGER
        )


def _policy(stateful_set: dict[str, Any]) -> tuple[str, str]:
    policy = (stateful_set.get("spec") or {}).get("persistentVolumeClaimRetentionPolicy") or {}
    return str(policy.get("whenScaled") or "Retain"), str(policy.get("whenDeleted") or "Retain")


def _matches_ref(ref: dict[str, Any], obj: dict[str, Any], api_version: str, kind: str) -> bool:
    return bool(
        ref.get("apiVersion") == api_version
        and ref.get("kind") == kind
        and ref.get("name") == metadata_of(obj).get("name")
    )


def _refs(claim: dict[str, Any]) -> list[dict[str, Any]]:
    return list(metadata_of(claim).get("ownerReferences") or [])


def _has_owner(claim: dict[str, Any], owner: dict[str, Any]) -> bool:
    return any(ref.get("uid") == metadata_of(owner).get("uid") for ref in _refs(claim))


def _has_stale(claim: dict[str, Any], obj: dict[str, Any], api_version: str, kind: str) -> bool:
    for ref in _refs(claim):
        if _matches_ref(ref, obj, api_version, kind):
            return bool(ref.get("uid") != metadata_of(obj).get("uid"))
    return False


def _unexpected_controller(claim: dict[str, Any], stateful_set: dict[str, Any], pod: dict[str, Any]) -> bool:
    if _policy(stateful_set) == ("Retain", "Retain"):
        return False
    for ref in _refs(claim):
        for owner, api_version, kind in ((stateful_set, "apps/v1", "StatefulSet"), (pod, "v1", "Pod")):
            if _matches_ref(ref, owner, api_version, kind):
                if ref.get("uid") != metadata_of(owner).get("uid"):
                    return True
                break
        else:
            if ref.get("controller") is True:
                return True
    return False


def _in_range(stateful_set: dict[str, Any], pod: dict[str, Any]) -> bool:
    spec = stateful_set.get("spec") or {}
    start = int((spec.get("ordinals") or {}).get("start") or 0)
    return start <= ordinal_of(pod) < start + int(spec.get("replicas", 1))


def _claim_up_to_date(claim: dict[str, Any], stateful_set: dict[str, Any], pod: dict[str, Any]) -> bool:
    """``isClaimOwnerUpToDate``."""
    if _has_stale(claim, stateful_set, "apps/v1", "StatefulSet") or _has_stale(claim, pod, "v1", "Pod"):
        return True
    if _unexpected_controller(claim, stateful_set, pod):
        return not (_has_owner(claim, stateful_set) or _has_owner(claim, pod))
    uids = {metadata_of(stateful_set).get("uid"), metadata_of(pod).get("uid")}
    if any(ref.get("uid") in uids and ref.get("controller") is not True for ref in _refs(claim)):
        return False
    scaled, deleted = _policy(stateful_set)
    scaled_down = not _in_range(stateful_set, pod)
    want_set = (deleted == "Delete" and scaled == "Retain") or (scaled == deleted == "Delete" and not scaled_down)
    want_pod = scaled == "Delete" and scaled_down
    return _has_owner(claim, stateful_set) == want_set and _has_owner(claim, pod) == want_pod


def _claim_owners(claim: dict[str, Any], stateful_set: dict[str, Any], pod: dict[str, Any]) -> list[dict[str, Any]]:
    """``updateClaimOwnerRefForSetAndPod``: the owner references the claim should have."""
    unexpected = _unexpected_controller(claim, stateful_set, pod)
    refs = [
        ref
        for ref in _refs(claim)
        if not _matches_ref(ref, stateful_set, "apps/v1", "StatefulSet") and not _matches_ref(ref, pod, "v1", "Pod")
    ]
    if unexpected:
        return refs
    scaled, deleted = _policy(stateful_set)
    scaled_down = not _in_range(stateful_set, pod)
    if scaled == "Delete" and scaled_down:
        refs.append(controller_reference(pod, "v1", "Pod"))
    if (deleted == "Delete" and scaled == "Retain") or (scaled == deleted == "Delete" and not scaled_down):
        refs.append(controller_reference(stateful_set, "apps/v1", "StatefulSet"))
    return refs


def _pod_claims(
    simulation: ControllerContext, stateful_set: dict[str, Any], pod: dict[str, Any]
) -> list[dict[str, Any]]:
    namespace = metadata_of(stateful_set).get("namespace", "")
    names = claim_names(stateful_set, ordinal_of(pod)).values()
    found = [simulation.store.find(CLAIMS, namespace, name) for name in names]
    return [claim for claim in found if claim is not None]


def claims_match_policy(simulation: ControllerContext, stateful_set: dict[str, Any], pod: dict[str, Any]) -> bool:
    return all(_claim_up_to_date(c, stateful_set, pod) for c in _pod_claims(simulation, stateful_set, pod))


def update_claim_owners(simulation: ControllerContext, stateful_set: dict[str, Any], pod: dict[str, Any]) -> None:
    """``UpdatePodClaimForRetentionPolicy``."""
    for claim in _pod_claims(simulation, stateful_set, pod):
        if _claim_up_to_date(claim, stateful_set, pod):
            continue
        refs = _claim_owners(claim, stateful_set, pod)

        def with_owners(current: dict[str, Any], refs: list[dict[str, Any]] = refs) -> dict[str, Any]:
            metadata = {**metadata_of(current), "ownerReferences": refs}
            if not refs:
                metadata.pop("ownerReferences")
            return {**current, "metadata": metadata}

        meta = metadata_of(claim)
        simulation.store.update(
            CLAIMS, meta.get("namespace", ""), meta["name"], with_owners, manager=CONTROLLER_MANAGER
        )


def fix_claims(simulation: ControllerContext, stateful_set: dict[str, Any], pod: dict[str, Any]) -> None:
    if not claims_match_policy(simulation, stateful_set, pod):
        update_claim_owners(simulation, stateful_set, pod)


def claim_is_stale(simulation: ControllerContext, stateful_set: dict[str, Any], pod: dict[str, Any]) -> bool:
    """``PodClaimIsStale``: a claim still owned by an earlier pod of that name blocks the new one."""
    if _policy(stateful_set)[0] == "Retain":
        return False
    return any(_has_stale(c, pod, "v1", "Pod") for c in _pod_claims(simulation, stateful_set, pod))

"""The same scenario against a real cluster, from a kubeconfig: no gates, so the timing is whatever
the cluster and the network make it, but the effect checks and the user's predicates still judge it.

This is how to compare the fake's verdict with a real apiserver's. Each run deletes the scenario's
objects (clearing their finalizers, and watching for the deletion to finish), creates them again
(CRDs once), writes their status, runs the setup hook, then runs every actor's ticks concurrently.
At the end the scenario's objects are deleted again, and so are the CRDs the exploration created:
the cluster is left as it was found (objects of the scenario that existed before are not
restored: the first run replaced them). There is no journal, so the journal-based checks (lost
update, resourceVersion order, fragile preconditions) do not apply; nor do faults.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import time
from pathlib import Path
from typing import Any

from scenarios._actors import ActorClients, ActorRuntime, KubeconfigPointer, SetupContext, TickContext, describe_error
from scenarios._actors import run_tick as _run_tick
from scenarios._checks import judge
from scenarios._exploration import Exploration, Settings
from scenarios._exploring import CheckCoverage, Progress
from scenarios._model import ActorError, Effect, ObjectKey, RunRecord, Scenario

__all__ = ["explore_live"]

_CRD = "CustomResourceDefinition"


def _path(obj: dict[str, Any], plural: str) -> str:
    group_version = obj["apiVersion"]
    prefix = f"/apis/{group_version}" if "/" in group_version else f"/api/{group_version}"
    namespace = (obj.get("metadata") or {}).get("namespace") or "default"
    return f"{prefix}/namespaces/{namespace}/{plural}/{obj['metadata']['name']}"


async def _plural(api: Any, obj: dict[str, Any]) -> tuple[str, bool]:
    """The resource name and scope of an object's kind, from discovery."""
    group_version = obj["apiVersion"]
    path = f"/apis/{group_version}" if "/" in group_version else f"/api/{group_version}"
    for _ in range(50):
        with contextlib.suppress(Exception):
            listing = await _request(api, "GET", path)
            for resource in listing.get("resources", []):
                if resource.get("kind") == obj["kind"] and "/" not in resource.get("name", ""):
                    return resource["name"], bool(resource.get("namespaced"))
        await asyncio.sleep(0.1)  # waiting for a CRD to be served, not ordering actors
    raise LookupError(f"the cluster does not serve {obj['kind']} in {group_version}")


async def _request(api: Any, method: str, path: str, body: Any = None, content_type: str = "application/json") -> Any:
    session = api.session
    data = json.dumps(body) if body is not None else None
    async with session.request(method, path, data=data, headers={"Content-Type": content_type}) as response:
        text = await response.text()
        if response.status == 404 and method in ("GET", "DELETE", "PATCH"):
            return None
        if response.status >= 300 and not (method == "POST" and response.status == 409):
            raise RuntimeError(f"{method} {path}: {response.status} {text[:300]}")
        return json.loads(text) if text else None


_CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
_MERGE = "application/merge-patch+json"


async def _create_crds(admin: ActorClients, scenario: Scenario) -> list[str]:
    """Create the scenario's CRDs; the paths of those this created (not those that were there)."""
    created = []
    for obj in scenario.objects:
        if obj.get("kind") == _CRD:
            async with admin.session.post(_CRDS, json=obj) as response:
                if response.status == 201:
                    created.append(f"{_CRDS}/{obj['metadata']['name']}")
                elif response.status != 409:
                    raise RuntimeError(f"POST {_CRDS}: {response.status} {(await response.text())[:300]}")
    return created


async def _delete(admin: ActorClients, path: str, *, timeout: float = 60.0) -> None:
    """Delete the object at ``path`` (finalizers cleared) and watch until the cluster has removed it."""
    await _request(admin, "PATCH", path, {"metadata": {"finalizers": None}}, _MERGE)
    await _request(admin, "DELETE", path)
    current = await _request(admin, "GET", path)
    if current is None:
        return
    collection, _, name = path.rpartition("/")
    query = f"?watch=1&fieldSelector=metadata.name%3D{name}&resourceVersion={current['metadata']['resourceVersion']}"
    async with asyncio.timeout(timeout):
        async with admin.session.get(collection + query) as response:
            while line := await response.content.readline():
                if json.loads(line).get("type") == "DELETED":
                    return
    if await _request(admin, "GET", path) is not None:
        raise RuntimeError(f"{path} was not deleted within {timeout:g} s")


async def _recreate(admin: ActorClients, scenario: Scenario) -> dict[ObjectKey, str]:
    paths: dict[ObjectKey, str] = {}
    for obj in scenario.objects:
        if obj.get("kind") == _CRD:
            continue
        plural, _ = await _plural(admin, obj)
        path = _path(obj, plural)
        merge = _MERGE
        await _delete(admin, path)
        collection = path.rsplit("/", 1)[0]
        created = {key: value for key, value in obj.items() if key != "status"}
        await _request(admin, "POST", collection, created)
        if obj.get("status"):
            await _request(admin, "PATCH", path + "/status", {"status": obj["status"]}, merge)
        group = obj["apiVersion"].rpartition("/")[0]
        namespace = (obj.get("metadata") or {}).get("namespace") or "default"
        paths[(group, plural, namespace, obj["metadata"]["name"])] = path
    return paths


async def _one_run(
    scenario: Scenario, clients: dict[str, ActorClients], admin: ActorClients
) -> tuple[RunRecord, dict[ObjectKey, str]]:
    paths = await _recreate(admin, scenario)
    if scenario.before_run is not None:
        outcome = scenario.before_run()
        if inspect.isawaitable(outcome):
            await outcome
    if scenario.setup is not None:
        await scenario.setup(SetupContext(admin.api))
    record = RunRecord(choices=[], outcome="live")
    for key, path in paths.items():
        record.initial[key] = await _request(admin, "GET", path) or {}

    async def actor_loop(runtime: ActorRuntime) -> None:
        actor = runtime.actor
        while runtime.ticks_done < actor.ticks:

            def effect(name: str, key: str, tick: int = runtime.ticks_done) -> None:
                record.effects.append(Effect(name, key, actor.name, 0, tick, 0))

            context = TickContext(runtime, clients[actor.name], effect, "default")
            try:
                await _run_tick(runtime, context)
            except Exception as error:
                record.errors.append(ActorError(actor.name, 0, runtime.ticks_done, 0, describe_error(error)))
            runtime.ticks_done += 1

    await asyncio.gather(*(actor_loop(ActorRuntime(actor)) for actor in scenario.actors))
    for key, path in paths.items():
        record.final[key] = await _request(admin, "GET", path)
    return record, paths


async def explore_live(
    scenario: Scenario, kubeconfig: Path, settings: Settings, *, progress: Progress | None = None
) -> Exploration:
    """Run the scenario ``settings.schedules`` times (default 20 when not random) against a real cluster."""
    if scenario.webhooks:
        raise ValueError(
            "a scenario with in-process webhook handlers runs against fakeapi only: a real cluster calls its "
            "webhooks over HTTPS, so serve them there and leave webhooks out of the scenario"
        )
    if scenario.operator is not None:
        raise ValueError(
            "a scenario with an operator runs its replicas against fakeapi only: on a real cluster, deploy "
            "the operator there and race it with actors of the scenario"
        )
    result = Exploration(scenario, settings, "live")
    started = time.perf_counter()
    pointer = KubeconfigPointer()
    pointer.point(kubeconfig)
    admin = ActorClients("admin", kubeconfig, "", None)
    clients = {actor.name: ActorClients(actor.name, kubeconfig, "", None) for actor in scenario.actors}
    created: list[str] = []
    paths: dict[ObjectKey, str] = {}
    coverage = CheckCoverage(scenario.checks)
    try:
        for client in (admin, *clients.values()):
            await client.open()
        created = await _create_crds(admin, scenario)
        runs = settings.schedules if settings.exhaustive is False else 20
        for _ in range(runs):
            run, paths = await _one_run(scenario, clients, admin)
            run.violations = judge(run, scenario.checks)
            coverage.note(run)
            result.runs += 1
            if run.violations:
                result.violating += 1
                if result.counterexample is None:
                    result.counterexample = run
                if not settings.keep_going:
                    break
            if progress is not None:
                progress(result)
    finally:
        with contextlib.suppress(Exception):
            for path in [*paths.values(), *created]:
                await _delete(admin, path)
        for client in (admin, *clients.values()):
            with contextlib.suppress(Exception):
                await client.close()
        pointer.restore()
    result.untested = coverage.untested()
    result.elapsed = time.perf_counter() - started
    return result

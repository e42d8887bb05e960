"""lightkube and kr8s against the fake, each loading the kubeconfig the server writes.

Each creates, gets, lists, watches, patches, applies server-side and deletes a ConfigMap and a
custom resource, the way an operator written with it would.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fakeapi.server import FakeAPIServer
from tests.conftest import crd

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"


def test_lightkube_crud_watch_patch_and_apply(tmp_path: Path) -> None:
    from lightkube import ApiError, Client, KubeConfig
    from lightkube.generic_resource import create_namespaced_resource
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import ConfigMap
    from lightkube.types import PatchType

    job_kind = create_namespaced_resource(GROUP, VERSION, "Job", PLURAL)
    with FakeAPIServer(tls=True, token_auth=True) as server:
        server.load(crd())
        client = Client(config=KubeConfig.from_file(server.kubeconfig(tmp_path / "config")), field_manager="lk")

        created = client.create(ConfigMap(metadata=ObjectMeta(name="cm", namespace="default"), data={"k": "v"}))
        assert created.metadata is not None and created.metadata.resourceVersion
        assert client.get(ConfigMap, "cm", namespace="default").data == {"k": "v"}
        listed = [item.metadata.name for item in client.list(ConfigMap, namespace="default") if item.metadata]
        assert listed == ["cm", "kube-root-ca.crt"]
        patched = client.patch(ConfigMap, "cm", {"data": {"k": "w"}}, namespace="default")
        assert patched.data == {"k": "w"}
        applied = client.apply(
            ConfigMap(
                apiVersion="v1", kind="ConfigMap", metadata=ObjectMeta(name="cm", namespace="default"), data={"k": "x"}
            ),
            force=True,
        )
        assert applied.data == {"k": "x"}
        assert applied.metadata is not None and applied.metadata.managedFields
        assert {entry.manager for entry in applied.metadata.managedFields} == {"lk"}

        job = client.create(job_kind(metadata=ObjectMeta(name="j", namespace="default"), spec={"n": 1}))
        assert job.metadata is not None
        version = job.metadata.resourceVersion
        client.patch(job_kind, "j", {"spec": {"n": 2}}, namespace="default", patch_type=PatchType.MERGE)
        claim = [{"op": "test", "path": "/spec/n", "value": 2}, {"op": "replace", "path": "/spec/n", "value": 3}]
        client.patch(job_kind, "j", claim, namespace="default", patch_type=PatchType.JSON)
        with pytest.raises(ApiError) as refused:
            client.patch(job_kind, "j", claim, namespace="default", patch_type=PatchType.JSON)
        assert refused.value.status.code == 422
        seen = []
        for event, obj in client.watch(job_kind, namespace="default", resource_version=version, server_timeout=5):
            seen.append((event, obj["spec"]["n"]))
            if len(seen) == 2:
                break
        assert seen == [("MODIFIED", 2), ("MODIFIED", 3)]
        applied_job = client.apply(
            job_kind(
                apiVersion=f"{GROUP}/{VERSION}",
                kind="Job",
                metadata=ObjectMeta(name="j", namespace="default"),
                spec={"n": 4},
            ),
            force=True,
        )
        assert applied_job["spec"] == {"n": 4}

        client.delete(job_kind, "j", namespace="default")
        client.delete(ConfigMap, "cm", namespace="default")
        with pytest.raises(ApiError) as missing:
            client.get(ConfigMap, "cm", namespace="default")
        assert missing.value.status.code == 404
        assert server.errors == []


async def _apply(api: Any, path: str, body: dict[str, Any], version: str = "v1") -> dict[str, Any]:
    """kr8s has no server-side apply of its own: its raw call, as its users write it."""
    async with api.call_api(
        "PATCH",
        version=version,
        namespace="default",
        url=path,
        params={"fieldManager": "kr8s", "force": "true"},
        content=json.dumps(body),
        headers={"Content-Type": "application/apply-patch+yaml"},
    ) as response:
        applied: dict[str, Any] = response.json()
    return applied


@pytest.mark.asyncio
async def test_kr8s_crud_watch_patch_and_apply(tmp_path: Path) -> None:
    import kr8s.asyncio
    from kr8s.asyncio.objects import ConfigMap, new_class

    job_kind = new_class("Job", f"{GROUP}/{VERSION}", namespaced=True, plural=PLURAL)
    async with FakeAPIServer() as server:
        server.load(crd())
        api = await kr8s.asyncio.api(kubeconfig=str(server.kubeconfig(tmp_path / "config")))

        cm = await ConfigMap({"metadata": {"name": "cm", "namespace": "default"}, "data": {"k": "v"}}, api=api)
        await cm.create()
        got = await ConfigMap.get("cm", namespace="default", api=api)
        assert got.raw["data"] == {"k": "v"}
        listed = [item.name async for item in api.get("configmaps", namespace="default") if isinstance(item, ConfigMap)]
        assert listed == ["cm", "kube-root-ca.crt"]
        await got.patch({"data": {"k": "w"}})
        assert got.raw["data"] == {"k": "w"}
        applied = await _apply(
            api,
            "configmaps/cm",
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"k": "x"}},
        )
        assert applied["data"] == {"k": "x"}
        # The create's Update entry keeps the data map itself; the forced apply owns the key it set.
        entries = applied["metadata"]["managedFields"]
        assert sorted((entry["manager"], entry["operation"]) for entry in entries) == [
            ("kr8s", "Apply"),
            ("kr8s", "Update"),
        ]

        job = await job_kind({"metadata": {"name": "j", "namespace": "default"}, "spec": {"n": 1}}, api=api)
        await job.create()
        version = job.raw["metadata"]["resourceVersion"]
        await job.patch({"spec": {"n": 2}})
        await job.patch([{"op": "replace", "path": "/spec/n", "value": 3}], type="json")
        assert (await job_kind.get("j", namespace="default", api=api)).raw["spec"] == {"n": 3}
        seen = []
        async for event, obj in api.watch(f"{PLURAL}.{GROUP}", namespace="default", since=version):
            seen.append((event, obj.raw["spec"]["n"]))
            if len(seen) == 2:
                break
        assert seen == [("MODIFIED", 2), ("MODIFIED", 3)]
        applied_job = await _apply(
            api,
            f"{PLURAL}/j",
            {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Job", "metadata": {"name": "j"}, "spec": {"n": 4}},
            version=f"{GROUP}/{VERSION}",
        )
        assert applied_job["spec"] == {"n": 4}

        await job.delete()
        await cm.delete()
        assert not await cm.exists()
        assert server.errors == []

"""Real Python clients against the fake: kubernetes_asyncio and the official ``kubernetes`` client.

They load a kubeconfig the usual way and do CRUD, both patch types and watch, on a built-in kind
and on a custom resource.
"""

from __future__ import annotations

import threading
from pathlib import Path

import kubernetes
import pytest
from kubernetes_asyncio import client as async_client
from kubernetes_asyncio import config as async_config
from kubernetes_asyncio import watch as async_watch

from fakeapi.server import FakeAPIServer
from tests.conftest import crd

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"


@pytest.mark.asyncio
async def test_kubernetes_asyncio_crud_patch_and_watch(tmp_path: Path) -> None:
    async with FakeAPIServer() as server:
        server.load(crd())
        kubeconfig = server.kubeconfig(tmp_path / "config")
        api_client = await async_config.new_client_from_config(config_file=str(kubeconfig))
        async with api_client:
            core = async_client.CoreV1Api(api_client)
            custom = async_client.CustomObjectsApi(api_client)

            created = await core.create_namespaced_config_map(
                "default", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"k": "v"}}
            )
            assert created.metadata.resource_version
            patched = await core.patch_namespaced_config_map("cm", "default", {"data": {"k": "w"}})
            assert patched.data == {"k": "w"}
            listed = await core.list_namespaced_config_map("default")
            assert [item.metadata.name for item in listed.items] == ["cm", "kube-root-ca.crt"]

            job = await custom.create_namespaced_custom_object(
                GROUP,
                VERSION,
                "default",
                PLURAL,
                {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"n": 1}},
            )
            claim = [
                {"op": "test", "path": "/metadata/resourceVersion", "value": job["metadata"]["resourceVersion"]},
                {"op": "replace", "path": "/spec/n", "value": 2},
            ]
            # As with a real apiserver, custom objects need the patch type spelled out.
            updated = await custom.patch_namespaced_custom_object(
                GROUP, VERSION, "default", PLURAL, "j", claim, _content_type="application/json-patch+json"
            )
            assert updated["spec"]["n"] == 2
            with pytest.raises(async_client.ApiException) as caught:
                await custom.patch_namespaced_custom_object(
                    GROUP, VERSION, "default", PLURAL, "j", claim, _content_type="application/json-patch+json"
                )
            assert caught.value.status == 422
            merged = await custom.patch_namespaced_custom_object_status(
                GROUP,
                VERSION,
                "default",
                PLURAL,
                "j",
                {"status": {"phase": "Done"}},
                _content_type="application/merge-patch+json",
            )
            assert merged["status"] == {"phase": "Done"}

            watcher = async_watch.Watch()
            stream = watcher.stream(
                custom.list_namespaced_custom_object,
                GROUP,
                VERSION,
                "default",
                PLURAL,
                resource_version=job["metadata"]["resourceVersion"],
                timeout_seconds=5,
            )
            seen = []
            async for event in stream:
                seen.append((event["type"], event["object"]["spec"]["n"]))
                if len(seen) == 2:
                    break
            await watcher.close()
            assert seen == [("MODIFIED", 2), ("MODIFIED", 2)]

            await custom.delete_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "j")
            await core.delete_namespaced_config_map("cm", "default")
            with pytest.raises(async_client.ApiException) as missing:
                await core.read_namespaced_config_map("cm", "default")
            assert missing.value.status == 404


def test_official_client_crud_patch_and_watch(tmp_path: Path) -> None:
    with FakeAPIServer() as server:
        server.load(crd())
        kubeconfig = server.kubeconfig(tmp_path / "config")
        api_client = kubernetes.config.new_client_from_config(config_file=str(kubeconfig))
        core = kubernetes.client.CoreV1Api(api_client)
        custom = kubernetes.client.CustomObjectsApi(api_client)

        core.create_namespaced_secret(
            "default", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"a": "b"}}
        )
        job = custom.create_namespaced_custom_object(
            GROUP,
            VERSION,
            "default",
            PLURAL,
            {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"n": 1}},
        )
        events: list[tuple[str, int]] = []

        def watch() -> None:
            watcher = kubernetes.watch.Watch()
            for event in watcher.stream(
                custom.list_namespaced_custom_object,
                GROUP,
                VERSION,
                "default",
                PLURAL,
                resource_version=job["metadata"]["resourceVersion"],
                timeout_seconds=5,
            ):
                events.append((event["type"], event["object"]["spec"]["n"]))
                if len(events) == 2:
                    watcher.stop()

        thread = threading.Thread(target=watch)
        thread.start()
        custom.patch_namespaced_custom_object(
            GROUP, VERSION, "default", PLURAL, "j", {"spec": {"n": 2}}, _content_type="application/merge-patch+json"
        )
        custom.patch_namespaced_custom_object(
            GROUP,
            VERSION,
            "default",
            PLURAL,
            "j",
            [{"op": "replace", "path": "/spec/n", "value": 3}],
            _content_type="application/json-patch+json",
        )
        thread.join(timeout=10)
        assert events == [("MODIFIED", 2), ("MODIFIED", 3)]
        got = custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "j")
        assert got["spec"]["n"] == 3
        custom.delete_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "j")
        assert custom.list_namespaced_custom_object(GROUP, VERSION, "default", PLURAL)["items"] == []
        assert server.errors == []

"""The pytest fixture with ``controllers="all"`` gives kind's storage: a claim made through the
kubernetes_asyncio client is provisioned and bound once a pod uses it, each test starting with the
``standard`` class again and tests without controllers without it (docs/storage.md)."""

from __future__ import annotations

from collections.abc import Callable

import pytest


def test_the_fixture_binds_a_claim_made_with_the_async_client(
    pytester: pytest.Pytester, ini: Callable[..., None]
) -> None:
    ini("auto")
    pytester.makepyfile(
        test_storage="""
        import pytest
        from kubernetes_asyncio import client

        CLAIM = {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "3Gi"}}},
        }
        POD = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "app"},
            "spec": {
                "containers": [{"name": "main", "image": "nginx"}],
                "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
            },
        }

        @pytest.mark.fakeapi(controllers="all")
        async def test_a_claim_is_bound_for_its_pod(fakeapi, kube_api_client):
            core = client.CoreV1Api(kube_api_client)
            created = await core.create_namespaced_persistent_volume_claim("default", CLAIM)
            assert created.spec.storage_class_name == "standard"
            assert created.metadata.finalizers == ["kubernetes.io/pvc-protection"]
            fakeapi.advance(0)
            assert (await core.read_namespaced_persistent_volume_claim("data", "default")).status.phase == "Pending"
            await core.create_namespaced_pod("default", POD)
            fakeapi.advance(0)
            bound = await core.read_namespaced_persistent_volume_claim("data", "default")
            assert bound.status.phase == "Bound"
            assert bound.status.capacity == {"storage": "3Gi"}
            assert bound.spec.volume_name == "pvc-" + created.metadata.uid
            volume = await core.read_persistent_volume(bound.spec.volume_name)
            assert volume.spec.claim_ref.name == "data"
            assert volume.spec.host_path.type == "DirectoryOrCreate"
            assert volume.spec.node_affinity.required.node_selector_terms[0].match_expressions[0].values == ["node-1"]
            assert (await core.read_namespaced_pod("app", "default")).spec.node_name == "node-1"

        @pytest.mark.fakeapi(controllers="all")
        async def test_the_next_test_starts_with_the_class_alone(fakeapi, kube_api_client):
            storage = client.StorageV1Api(kube_api_client)
            classes = await storage.list_storage_class()
            assert [c.metadata.name for c in classes.items] == ["standard"]
            assert (await client.CoreV1Api(kube_api_client).list_persistent_volume()).items == []

        async def test_without_controllers_there_is_no_class(fakeapi, kube_api_client):
            assert (await client.StorageV1Api(kube_api_client).list_storage_class()).items == []
            made = await client.CoreV1Api(kube_api_client).create_namespaced_persistent_volume_claim("default", CLAIM)
            assert made.spec.storage_class_name is None and made.metadata.finalizers is None
        """
    )
    pytester.runpytest().assert_outcomes(passed=3)

"""A Service's cluster IPs, families and node ports as the apiserver's validation and allocators check them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RawClient
from tests.http.test_builtin_validation import assert_rejected, status_422

pytestmark = pytest.mark.asyncio

SERVICES = "/api/v1/namespaces/default/services"
INVALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
IP_RANGE = "provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/12"
PORT_RANGE = "provided port is not in the valid range. The range of valid ports is 30000-32767"


def service(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": {"app": name}, "ports": [{"port": 80}], **spec},
    }


def service_422(*causes: tuple[str, str, str], name: str = "web") -> bytes:
    return status_422("Service", name, "Service", "", list(causes))


async def test_a_cluster_ip_another_service_holds_is_already_allocated(client: RawClient) -> None:
    assert (await client.post(SERVICES, service("first", clusterIP="10.96.0.50"))).status == 201
    expected = service_422(
        (
            "FieldValueInvalid",
            'Invalid value: []string{"10.96.0.50"}: failed to allocate IP 10.96.0.50: provided IP is already allocated',
            "spec.clusterIPs",
        )
    )
    await assert_rejected(client, SERVICES, service(clusterIP="10.96.0.50"), expected)


@pytest.mark.parametrize("address", ["10.0.0.5", "10.96.0.0", "10.111.255.255"])
async def test_a_cluster_ip_outside_the_service_cidr_is_not_in_range(client: RawClient, address: str) -> None:
    expected = service_422(
        (
            "FieldValueInvalid",
            f'Invalid value: []string{{"{address}"}}: failed to allocate IP {address}: {IP_RANGE}',
            "spec.clusterIPs",
        )
    )
    await assert_rejected(client, SERVICES, service(clusterIP=address), expected)


async def test_a_cluster_ip_must_be_an_address_of_this_clusters_family(client: RawClient) -> None:
    expected = service_422(("FieldValueInvalid", f'Invalid value: "not-an-ip": {INVALID_IP}', "spec.clusterIPs[0]"))
    await assert_rejected(client, SERVICES, service(clusterIP="not-an-ip"), expected)
    expected = service_422(
        (
            "FieldValueInvalid",
            'Invalid value: []string{"fd00::10"}: IPv6 is not configured on this cluster',
            "spec.clusterIPs[0]",
        )
    )
    await assert_rejected(client, SERVICES, service(clusterIP="fd00::10"), expected)
    expected = service_422(
        (
            "FieldValueInvalid",
            'Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
            "spec.ipFamilyPolicy",
        )
    )
    await assert_rejected(client, SERVICES, service(ipFamilyPolicy="RequireDualStack"), expected)
    expected = service_422(
        ("FieldValueInvalid", 'Invalid value: "IPv6": not configured on this cluster', "spec.ipFamilies[0]")
    )
    await assert_rejected(client, SERVICES, service(ipFamilies=["IPv6"]), expected)


async def test_none_is_the_only_cluster_ip_of_a_headless_service(client: RawClient) -> None:
    expected = service_422(
        (
            "FieldValueInvalid",
            'Invalid value: []string{"None", "10.96.0.5"}: \'None\' must be the first and only value',
            "spec.clusterIPs",
        )
    )
    await assert_rejected(client, SERVICES, service(clusterIP="None", clusterIPs=["None", "10.96.0.5"]), expected)
    expected = service_422(
        (
            "FieldValueInvalid",
            "Invalid value: \"None\": may not be set to 'None' for NodePort services",
            "spec.clusterIPs[0]",
        )
    )
    await assert_rejected(client, SERVICES, service(type="NodePort", clusterIP="None"), expected)
    headless = await client.post(SERVICES, service("headless", clusterIP="None"))
    assert headless.status == 201
    assert headless.json()["spec"]["clusterIPs"] == ["None"]


async def test_a_cluster_ip_may_not_change_but_resending_the_yaml_keeps_it(client: RawClient) -> None:
    created = await client.post(SERVICES, service())
    assert created.status == 201
    allocated = created.json()["spec"]["clusterIP"]
    resent = await client.put(f"{SERVICES}/web", service())
    assert resent.status == 200, resent.body
    assert resent.json()["spec"]["clusterIPs"] == [allocated]
    expected = service_422(
        (
            "FieldValueInvalid",
            'Invalid value: []string{"10.96.0.99"}: may not change once set',
            "spec.clusterIPs[0]",
        )
    )
    await assert_rejected(client, f"{SERVICES}/web", service(clusterIP="10.96.0.99"), expected, method="PUT")


async def test_a_node_port_in_use_or_out_of_range_is_refused(client: RawClient) -> None:
    first = service("first", type="NodePort", ports=[{"port": 80, "nodePort": 30080}])
    assert (await client.post(SERVICES, first)).status == 201
    expected = service_422(
        ("FieldValueInvalid", "Invalid value: 30080: provided port is already allocated", "spec.ports[0].nodePort")
    )
    await assert_rejected(client, SERVICES, service(type="NodePort", ports=[{"port": 80, "nodePort": 30080}]), expected)
    expected = service_422(("FieldValueInvalid", f"Invalid value: 8080: {PORT_RANGE}", "spec.ports[0].nodePort"))
    await assert_rejected(client, SERVICES, service(type="NodePort", ports=[{"port": 80, "nodePort": 8080}]), expected)
    created = await client.post(SERVICES, service(type="NodePort"))
    assert created.status == 201
    taken = service(type="NodePort", ports=[{"port": 80, "nodePort": 30080}])
    expected = service_422(
        ("FieldValueInvalid", "Invalid value: 30080: provided port is already allocated", "spec.ports[0].nodePort")
    )
    await assert_rejected(client, f"{SERVICES}/web", taken, expected, method="PUT")


async def test_a_node_port_service_keeps_its_ports_and_drops_them_when_it_becomes_cluster_ip(
    client: RawClient,
) -> None:
    created = await client.post(SERVICES, service(type="NodePort"))
    assert created.status == 201
    node_port = created.json()["spec"]["ports"][0]["nodePort"]
    resent = await client.put(f"{SERVICES}/web", service(type="NodePort"))
    assert resent.status == 200, resent.body
    assert resent.json()["spec"]["ports"][0]["nodePort"] == node_port
    stored = resent.json()
    stored["spec"]["type"] = "ClusterIP"
    moved = await client.put(f"{SERVICES}/web", stored)
    assert moved.status == 200, moved.body
    spec = moved.json()["spec"]
    assert "nodePort" not in spec["ports"][0] and "externalTrafficPolicy" not in spec
    stored = moved.json()
    stored["spec"]["type"] = "ExternalName"
    stored["spec"]["externalName"] = "db.example.com"
    renamed = await client.put(f"{SERVICES}/web", stored)
    assert renamed.status == 200, renamed.body
    assert not {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"} & set(renamed.json()["spec"])


async def test_an_external_traffic_policy_needs_an_externally_reachable_service(client: RawClient) -> None:
    expected = service_422(
        (
            "FieldValueInvalid",
            'Invalid value: "Local": may only be set for externally-accessible services',
            "spec.externalTrafficPolicy",
        )
    )
    await assert_rejected(client, SERVICES, service(externalTrafficPolicy="Local"), expected)
    expected = service_422(
        (
            "FieldValueForbidden",
            "Forbidden: may only be used when `type` is 'LoadBalancer'",
            "spec.loadBalancerClass",
        )
    )
    await assert_rejected(client, SERVICES, service(loadBalancerClass="example.com/lb"), expected)

"""The CRD, objects and answers the conversion tests share: example.com Jobs at v1 (storage) and v2."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import crd

V1 = "/apis/example.com/v1/namespaces/default/jobs"
V2 = "/apis/example.com/v2/namespaces/default/jobs"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
SOURCE = "example.com/v1, Kind=Job"


def webhook_crd(client_config: dict[str, Any], review_versions: tuple[str, ...] = ("v1",)) -> dict[str, Any]:
    definition = crd(versions=["v1", "v2"])
    definition["spec"]["conversion"] = {
        "strategy": "Webhook",
        "webhook": {"clientConfig": client_config, "conversionReviewVersions": list(review_versions)},
    }
    return definition


def job(version: str, name: str = "job-1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"example.com/{version}", "kind": "Job", "metadata": {"name": name}, "spec": spec}


def failed(message: str) -> bytes:
    """The answer to a request whose conversion failed: ``ErrorToAPIStatus`` of a plain error."""
    status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message}
    return json.dumps({**status, "code": 500}, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"

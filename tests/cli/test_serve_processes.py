"""``fakeapi serve --outcome 'IMAGE=process [...]'``: a container backed by a local program on the
wall clock; deleting its pod stops it with SIGTERM, stopping the server kills what is left
(docs/process-containers.md)."""

from __future__ import annotations

import http.client
import json
import os
import select
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.cli.serving import READ_TIMEOUT, ServeProcess

PODS = "/api/v1/namespaces/default/pods"


def request(url: str, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=READ_TIMEOUT)
    data = None if body is None else json.dumps(body)
    connection.request(method, path, data, {"Content-Type": "application/json"})
    response = connection.getresponse()
    answer = json.loads(response.read())
    connection.close()
    return response.status, answer


def watch_until(url: str, name: str, since: str, accept: Any) -> dict[str, Any]:
    """The first watch event of pod ``name`` after ``since`` that ``accept`` takes."""
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=READ_TIMEOUT)
    connection.request("GET", f"{PODS}?watch=1&fieldSelector=metadata.name%3D{name}&resourceVersion={since}")
    response = connection.getresponse()
    try:
        while line := response.readline():
            event: dict[str, Any] = json.loads(line)
            if accept(event):
                return event
    finally:
        connection.close()
    raise AssertionError(f"the watch of {name} ended first")


def first_log_line(url: str, name: str) -> bytes:
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=READ_TIMEOUT)
    connection.request("GET", f"{PODS}/{name}/log?follow=true")
    line = connection.getresponse().readline()
    connection.close()
    return line


def pod(name: str, image: str) -> dict[str, Any]:
    spec = {"containers": [{"name": "main", "image": image}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def running(event: dict[str, Any]) -> bool:
    return (event["object"].get("status") or {}).get("phase") == "Running"


def test_serve_runs_the_process_stops_it_on_deletion_and_kills_the_rest_when_it_stops(tmp_path: Path) -> None:
    polite = "import signal, sys, time\nsignal.signal(signal.SIGTERM, lambda *_: (print('bye'), sys.exit(0)))\nprint('up')\ntime.sleep(600)"
    stubborn = (
        "import os, signal, subprocess, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "print(os.getpid(), child.pid)\ntime.sleep(600)"
    )
    rules = []
    for image, code in (("polite", polite), ("stubborn", stubborn)):
        rules += ["--outcome", f"{image}=process {json.dumps([sys.executable, '-u', '-c', code])}"]
    with ServeProcess("--port", "0", "--controllers", "all", *rules) as server:
        status, created = request(server.url, "POST", PODS, pod("polite", "polite"))
        assert status == 201
        watch_until(server.url, "polite", created["metadata"]["resourceVersion"], running)
        assert first_log_line(server.url, "polite") == b"up\n"
        status, deleting = request(server.url, "DELETE", f"{PODS}/polite")
        assert status == 200
        deleted = watch_until(
            server.url, "polite", deleting["metadata"]["resourceVersion"], lambda e: e["type"] == "DELETED"
        )
        assert deleted["object"]["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 0

        status, created = request(server.url, "POST", PODS, pod("stubborn", "stubborn"))
        watch_until(server.url, "stubborn", created["metadata"]["resourceVersion"], running)
        pids = [int(word) for word in first_log_line(server.url, "stubborn").split()]
        descriptors = [os.pidfd_open(pid) for pid in pids]
        try:
            assert server.stop() == 0
            pending = list(descriptors)
            while pending:  # a pidfd is readable once its process has ended
                readable, _, _ = select.select(pending, [], [], READ_TIMEOUT)
                assert readable, "a process the container started outlived the server"
                pending = [fd for fd in pending if fd not in readable]
        finally:
            for descriptor in descriptors:
                os.close(descriptor)
    assert server.stderr_text() == ""

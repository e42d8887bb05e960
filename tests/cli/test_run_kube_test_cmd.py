"""``tools/run_kube_test_cmd.sh`` as docs/kube-test-cmd.md describes it: one line per function, a
failing command fails its function, the set-up a test/cmd function relies on is there.

The upstream libraries are not part of the project, so ``KUBE_ROOT`` here holds small stand-ins of
this test's own: a ``kube::log::status``, a ``kube::test::if_has_string``, and functions that use
what the harness promises (kubectl's context, ``kube_flags``, ``create_and_use_new_namespace``,
the node ``127.0.0.1``, the bootstrap ClusterRoles, the controllers).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.cli.serving import require_tool

HARNESS = Path(__file__).resolve().parents[2] / "tools" / "run_kube_test_cmd.sh"

LOGGING = """
kube::log::status() { echo "+++ $*"; }
"""

TEST_LIB = """
kube::test::if_has_string() { grep -q "$2" <<< "$1"; }
"""

FUNCTIONS = """
run_set_up_tests() {
  set -o errexit
  [[ "$(kubectl config current-context)" == test ]]
  [[ "${kube_flags[*]}" == "-s https://127.0.0.1:${SECURE_API_PORT} --insecure-skip-tls-verify" ]]
  create_and_use_new_namespace
  output_message=$(kubectl get serviceaccounts "${kube_flags[@]}")
  kube::test::if_has_string "${output_message}" default
  kube::test::if_has_string "$(kubectl get node 127.0.0.1 -o name)" node/127.0.0.1
  kube::test::if_has_string "$(kubectl get clusterrole cluster-admin -o name)" cluster-admin
  kube::test::if_has_string "$(kubectl get --raw /version --token=admin-token)" gitVersion
  [[ "${id_field}" == .metadata.name ]]
}

run_failing_tests() {
  set -o errexit
  kubectl get configmap does-not-exist
  echo "not reached"
}
"""


def make_root(root: Path) -> Path:
    (root / "hack" / "lib").mkdir(parents=True)
    (root / "test" / "cmd").mkdir(parents=True)
    (root / "hack" / "lib" / "logging.sh").write_text(LOGGING)
    (root / "hack" / "lib" / "test.sh").write_text(TEST_LIB)
    (root / "test" / "cmd" / "sample.sh").write_text(FUNCTIONS)
    return root


def run_harness(tmp_path: Path, root: Path, *functions: str) -> subprocess.CompletedProcess[str]:
    require_tool("kubectl", "the test/cmd harness")
    env = dict(os.environ, PYTHON=sys.executable, KUBE_TEST_CMD_LOGS=str(tmp_path / "logs"), TMPDIR=str(tmp_path))
    env.pop("KUBECONFIG", None)
    return subprocess.run(
        ["bash", str(HARNESS), str(root), *functions], capture_output=True, text=True, timeout=300, env=env
    )


def test_a_function_that_runs_to_its_end_passes_and_one_whose_command_fails_does_not(tmp_path: Path) -> None:
    root = make_root(tmp_path / "kube")

    done = run_harness(tmp_path, root, "run_set_up_tests", "run_failing_tests", "run_missing_tests")

    lines = done.stdout.splitlines()
    logs = tmp_path / "logs"
    assert done.returncode == 1, done.stdout + done.stderr
    assert lines, done.stderr  # the harness stopped before its first function: say why
    assert lines[0] == "PASS run_set_up_tests", (logs / "run_set_up_tests.log").read_text()
    assert lines[1] == f"FAIL run_failing_tests (exit 1, log: {logs / 'run_failing_tests.log'})"
    assert lines[2] == f"FAIL run_missing_tests (exit 127, log: {logs / 'run_missing_tests.log'})"
    failing_log = (logs / "run_failing_tests.log").read_text()
    assert 'configmaps "does-not-exist" not found' in failing_log
    assert "not reached" not in failing_log


def test_a_set_up_step_that_fails_stops_the_run_and_says_why(tmp_path: Path) -> None:
    root = make_root(tmp_path / "kube")
    (root / "hack" / "testdata").mkdir()
    (root / "hack" / "testdata" / "kubernetes-service.yaml").write_text("kind: [Service\n")  # not YAML

    done = run_harness(tmp_path, root, "run_set_up_tests")

    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith(f"the cluster set-up failed (log: {tmp_path / 'logs' / 'setup.log'}):\n")
    assert (tmp_path / "logs" / "setup.log").read_text() in done.stderr
    assert not (tmp_path / "logs" / "run_set_up_tests.log").exists()


def test_a_root_without_the_libraries_is_refused(tmp_path: Path) -> None:
    done = run_harness(tmp_path, tmp_path, "run_set_up_tests")

    assert done.returncode == 2
    assert done.stdout == ""
    assert "hack/lib/logging.sh (see docs/kube-test-cmd.md)" in done.stderr

#!/usr/bin/env bash
# Run dask-kubernetes' operator controller tests, unchanged, against `fakeapi serve` (docs/client-suites.md).
#   tools/client_suites/run_dask_kubernetes.sh [VERSION] [pytest arguments...]
# Installs that release with its test dependencies, downloads its source distribution from PyPI into
# a temporary folder (the tests live there), and runs dask_kubernetes/operator/controller/tests with:
# - the pytest-kind stand-in of this folder first on PYTHONPATH, so the suite's `k8s_cluster` is a
#   `fakeapi serve --tls --controllers all` of this checkout;
# - the outcome rules of dask_kubernetes/outcomes.yaml, which run `dask scheduler`, `dask worker`
#   and the job runners' Python as local processes for the containers of the suite's manifests;
# - dask_kubernetes/bin first on PATH, for what the suite's conftest calls around kind: `docker
#   build` (skipped: no image runs), `helm` (required on PATH, used only for dask-gateway) and
#   `k8s-crd-resolver` (installed from git upstream; its output for each CRD is the Helm chart's).
# KUBECONFIG names, before the session starts, the file the stand-in writes when the suite's fixture
# creates the cluster, as the project's CI names pytest-kind's (the kubernetes client reads the
# variable when it is imported). The project's addopts are left out: their --keep-cluster would
# leave the server running.
# Extra flags for the server go in FAKEAPI_SERVE_FLAGS (it replaces the default, the rules file).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
checkout="$(cd "$here/../.." && pwd)"
version="${1:-2026.3.0}"
shift || true
work="$(mktemp -d -t dask-kubernetes-suite-XXXXXX)"
python3 -m pip install --quiet "dask-kubernetes==${version}" distributed pytest pytest-asyncio pytest-timeout anyio
python3 -m pip download --quiet --no-deps --no-binary :all: "dask-kubernetes==${version}" -d "$work"
tar -xzf "$work/dask_kubernetes-${version}.tar.gz" -C "$work"
cd "$work/dask_kubernetes-${version}"
export PATH="$here/dask_kubernetes/bin:$PATH"
export KUBECONFIG="$PWD/.pytest-kind/pytest-kind/kubeconfig"
export FAKEAPI_SERVE_FLAGS="${FAKEAPI_SERVE_FLAGS---outcomes $here/dask_kubernetes/outcomes.yaml}"
PYTHONPATH="$here:$checkout${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m pytest dask_kubernetes/operator/controller/tests \
  -p pytest_kind.plugin -p no:cacheprovider -o addopts="" -q -rfE "$@"

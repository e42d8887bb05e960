#!/usr/bin/env bash
# Run ark-operator's own cluster tests (`pytest -m k8s`), unchanged, against `fakeapi serve`
# (docs/client-suites.md).
#   tools/client_suites/run_ark_operator.sh [VERSION] [pytest arguments...]
# PyPI's ark-operator is a placeholder without the operator or its tests, so the tagged source
# comes from the repository (ARK_OPERATOR_REPO, a URL or a local clone). The suite's pinned
# dev-requirements.txt goes into a virtualenv of its own, but for its two git pins: `steam` is
# installed from PyPI instead of a fork's commit, and `oscrypto` (only for building certificates,
# which these tests do not) as certbuilder's dependency from PyPI. The server is this checkout's
# fakeapi, started with a kubeconfig file and no other setup: the suite finds it through KUBECONFIG,
# with kubectl (which must be on PATH) and kubernetes_asyncio. Extra server flags go in
# FAKEAPI_SERVE_FLAGS; the suite needs no outcome rules (its Job pods succeed and its server pods run
# under the cluster defaults, docs/cluster-defaults.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version="${1:-0.10.10}"
shift || true
repo="${ARK_OPERATOR_REPO:-https://github.com/AngellusMortis/ark-operator}"
command -v kubectl >/dev/null || { echo "kubectl must be on PATH" >&2; exit 2; }
work="$(mktemp -d -t ark-operator-suite-XXXXXX)"
git clone --quiet --depth 1 --branch "v${version}" "$repo" "$work/ark-operator"
grep -v "git+" "$work/ark-operator/dev-requirements.txt" >"$work/requirements.txt"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet -r "$work/requirements.txt" "steam[client]==1.4.4"
SETUPTOOLS_SCM_PRETEND_VERSION="$version" "$work/venv/bin/python" -m pip install --quiet --no-deps \
  -e "$work/ark-operator"

# shellcheck disable=SC2086 # FAKEAPI_SERVE_FLAGS is a list of flags
PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" python3 -m fakeapi serve --port 0 --tls --controllers all \
  --kubeconfig "$work/kubeconfig" ${FAKEAPI_SERVE_FLAGS:-} >"$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
until grep -q "^fakeapi serving on" "$work/server.log"; do
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 2; }
  sleep 0.2
done

cd "$work/ark-operator"
PATH="$work/venv/bin:$PATH" KUBECONFIG="$work/kubeconfig" python -m pytest -m k8s -p no:cacheprovider "$@"

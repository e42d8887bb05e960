#!/usr/bin/env bash
# Run kr8s's own test suite, unchanged, against `fakeapi serve` (docs/client-suites.md).
#   tools/client_suites/run_kr8s.sh [VERSION] [pytest arguments...]
# Downloads kr8s's source distribution from PyPI into a temporary folder, puts the pytest-kind
# stand-in of this folder first on PYTHONPATH, and runs `pytest kr8s/tests` there. Extra flags for
# the server go in FAKEAPI_SERVE_FLAGS (the default gives kind's certificate kubeconfig).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:-0.20.15}"
shift || true
work="$(mktemp -d -t kr8s-suite-XXXXXX)"
python3 -m pip download --quiet --no-deps --no-binary :all: "kr8s==${version}" -d "$work"
tar -xzf "$work/kr8s-${version}.tar.gz" -C "$work"
cd "$work/kr8s-${version}"
export FAKEAPI_SERVE_FLAGS="${FAKEAPI_SERVE_FLAGS---kubeconfig-credentials certificate}"
PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m pytest kr8s/tests -p pytest_kind.plugin \
  -p no:cacheprovider -o addopts="" -q -rfE "$@"

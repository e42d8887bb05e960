#!/usr/bin/env bash
# Run functions of Kubernetes' own kubectl integration suite (test/cmd/*.sh) against `fakeapi serve`.
#
# Usage: tools/run_kube_test_cmd.sh KUBE_ROOT FUNCTION...
#
# KUBE_ROOT is a directory laid out like a kubernetes checkout that holds at least hack/lib/logging.sh,
# hack/lib/test.sh, the test/cmd/*.sh files defining the FUNCTIONs and the hack/testdata and
# test/fixtures files they read (docs/kube-test-cmd.md says which, and how to fetch them).
#
# What upstream's hack/make-rules/test-cmd.sh and test/cmd/legacy-script.sh do around the functions,
# this script does around fakeapi: one HTTPS server on a free port for the whole run with the
# admission plugins test-cmd.sh turns off turned off and the controllers of the kube-controller-manager
# it starts (fakeapi's simulated ones, but the kubelet's and the scheduler's, which test-cmd.sh
# does not run either), the node 127.0.0.1 it creates, a kubeconfig
# whose context `test` sends the token `admin-token` to https://127.0.0.1:${SECURE_API_PORT} with TLS
# verification off (legacy-script.sh `setup`), the kube_flags arrays and the exported field names of
# `runTests`, the `default` namespace and `kubernetes` Service checks, create_and_use_new_namespace,
# and record_command's rule that a function passes when it runs to its end under errexit.
#
# Each function runs in its own bash process (so that errexit applies inside it, which it would not in
# a subshell started from a conditional); its output goes to ${KUBE_TEST_CMD_LOGS:-<temp>}/FUNCTION.log.
# One line per function is printed: "PASS FUNCTION" or "FAIL FUNCTION (exit N, log: PATH)".
# The exit code is 0 when every function passed, 1 otherwise, 2 when the server or the set-up around
# it did not start.
#
# Environment: KUBECTL (default: kubectl on PATH), PYTHON (default: python3), FAKEAPI_ARGS (more
# `fakeapi serve` flags), ALLOW_SKEW (default 1: kubectl's --match-server-version compares the
# client's and the server's gitVersion, which match only when both are built from one tree).
set -o errexit
set -o nounset
set -o pipefail

if [[ "${1:-}" == "--run-one" ]]; then
  # Child mode: the variables below come from the parent's environment.
  fn="$2"
  cd "${KUBE_ROOT}"
  export TERM="${TERM:-dumb}"
  # shellcheck disable=SC1091
  source "${KUBE_ROOT}/hack/lib/logging.sh"
  # shellcheck disable=SC1091
  source "${KUBE_ROOT}/hack/lib/test.sh"
  for f in "${KUBE_ROOT}"/test/cmd/*.sh; do
    case "$(basename "${f}")" in legacy-script.sh) continue ;; esac
    # shellcheck disable=SC1090
    source "${f}"
  done
  mkdir -p "${KUBE_TEST_CMD_BIN}"
  PATH="${KUBE_TEST_CMD_BIN}:${PATH}"

  create_and_use_new_namespace() {
    local ns_name
    ns_name="namespace-$(date +%s)-${RANDOM}"
    kube::log::status "Creating namespace ${ns_name}"
    kubectl create namespace "${ns_name}"
    kubectl config set-context "${CONTEXT}" --namespace="${ns_name}"
  }
  kube_flags=( '-s' "https://127.0.0.1:${SECURE_API_PORT}" '--insecure-skip-tls-verify' )
  kube_flags_without_token=( "${kube_flags[@]}" )
  kube_flags_with_token=( "${kube_flags_without_token[@]}" '--token=admin-token' )
  if [[ -z "${ALLOW_SKEW:-}" ]]; then
    kube_flags+=('--match-server-version')
    kube_flags_with_token+=('--match-server-version')
  fi
  export id_field=".metadata.name"
  export labels_field=".metadata.labels"
  export annotations_field=".metadata.annotations"
  export service_selector_field=".spec.selector"
  export rc_replicas_field=".spec.replicas"
  export rc_status_replicas_field=".status.replicas"
  export rc_container_image_field=".spec.template.spec.containers"
  export rs_replicas_field=".spec.replicas"
  export port_field="(index .spec.ports 0).port"
  export port_name="(index .spec.ports 0).name"
  export second_port_field="(index .spec.ports 1).port"
  export second_port_name="(index .spec.ports 1).name"
  export image_field="(index .spec.containers 0).image"
  export pod_container_name_field="(index .spec.containers 0).name"
  export container_name_field="(index .spec.template.spec.containers 0).name"
  export hpa_min_field=".spec.minReplicas"
  export hpa_max_field=".spec.maxReplicas"
  export hpa_cpu_field="(index .spec.metrics 0).resource.target.averageUtilization"
  export template_labels=".spec.template.metadata.labels.name"
  export statefulset_replicas_field=".spec.replicas"
  export statefulset_observed_generation=".status.observedGeneration"
  export job_parallelism_field=".spec.parallelism"
  export deployment_replicas=".spec.replicas"
  export secret_data=".data"
  export secret_type=".type"
  export change_cause_annotation='.*kubernetes.io/change-cause.*'
  export pdb_min_available=".spec.minAvailable"
  export pdb_max_unavailable=".spec.maxUnavailable"
  export generation_field=".metadata.generation"
  export container_len="(len .spec.template.spec.containers)"
  export image_field0="(index .spec.template.spec.containers 0).image"
  export image_field1="(index .spec.template.spec.containers 1).image"
  # The resource-type names legacy-script.sh defines for the functions to use.
  clusterroles="clusterroles"; configmaps="configmaps"; csr="csr"; cronjob="cronjobs"
  deployments="deployments"; namespaces="namespaces"; nodes="nodes"
  persistentvolumeclaims="persistentvolumeclaims"; persistentvolumes="persistentvolumes"; pods="pods"
  podtemplates="podtemplates"; replicasets="replicasets"; replicationcontrollers="replicationcontrollers"
  roles="roles"; secrets="secrets"; selfsubjectreviews="selfsubjectreviews"
  serviceaccounts="serviceaccounts"; services="services"; statefulsets="statefulsets"
  storageclass="storageclass"; subjectaccessreviews="subjectaccessreviews"
  customresourcedefinitions="customresourcedefinitions"; daemonsets="daemonsets"
  controllerrevisions="controllerrevisions"; job="jobs"
  export IMAGE_NGINX="registry.k8s.io/nginx:1.7.9"
  export IMAGE_DEPLOYMENT_R1="registry.k8s.io/nginx:test-cmd"
  export IMAGE_DEPLOYMENT_R2="${IMAGE_NGINX}"
  export IMAGE_PERL="registry.k8s.io/perl"
  export IMAGE_PAUSE_V2="registry.k8s.io/pause:2.0"
  export IMAGE_DAEMONSET_R2="registry.k8s.io/pause:latest"
  export IMAGE_DAEMONSET_R2_2="registry.k8s.io/nginx:test-cmd"
  export IMAGE_STATEFULSET_R1="registry.k8s.io/nginx-slim:0.7"
  export IMAGE_STATEFULSET_R2="registry.k8s.io/nginx-slim:0.8"
  PROXY_HOST=127.0.0.1
  API_HOST=127.0.0.1

  # legacy-script.sh's canary: a command failing inside a function must fail the function.
  record_command_canary() {
    set -o nounset
    set -o errexit
    bogus-expected-to-fail
    set +o nounset
    set +o errexit
  }

  set -o errexit
  set -o nounset
  "${fn}"
  exit 0
fi

if [[ $# -lt 2 ]]; then
  echo "usage: $0 KUBE_ROOT FUNCTION..." >&2
  exit 2
fi
KUBE_ROOT="$(cd "$1" && pwd)"
shift
for required in hack/lib/logging.sh hack/lib/test.sh; do
  if [[ ! -f "${KUBE_ROOT}/${required}" ]]; then
    echo "missing ${KUBE_ROOT}/${required} (see docs/kube-test-cmd.md)" >&2
    exit 2
  fi
done

KUBECTL_BIN="$(command -v "${KUBECTL:-kubectl}")"
PYTHON="${PYTHON:-python3}"
KUBE_TEMP="$(mktemp -d "${TMPDIR:-/tmp}/kube-test-cmd.XXXXXX")"
LOG_DIR="${KUBE_TEST_CMD_LOGS:-${KUBE_TEMP}/logs}"
mkdir -p "${LOG_DIR}" "${KUBE_TEMP}/home" "${KUBE_TEMP}/bin"
ln -s "${KUBECTL_BIN}" "${KUBE_TEMP}/bin/kubectl"
SERVER_OUT="${KUBE_TEMP}/fakeapi.out"
SERVER_PID=""

stop_server() {
  if [[ -n "${SERVER_PID}" ]]; then
    kill "${SERVER_PID}" 2>/dev/null || true
    wait "${SERVER_PID}" 2>/dev/null || true
  fi
}
trap stop_server EXIT

# hack/make-rules/test-cmd.sh `run_kube_apiserver` turns these admission plugins off; RBAC with
# AlwaysAllow behind it allows every request, as fakeapi's default always-allow does.
DISABLED_ADMISSION="ServiceAccount,DefaultStorageClass,DefaultTolerationSeconds,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,StorageObjectInUseProtection"
# test-cmd.sh runs kube-controller-manager with its default controllers and no kubelet or
# scheduler: fakeapi's simulated controllers but those that stand for a node.
CONTROLLERS="job,deployment,replicaset,statefulset,daemonset,cronjob,endpointslice,endpoints,persistentvolume-binder,pvc-protection,pv-protection,namespace"
# The log exists before the server starts, so `tail` below never races the redirection.
: >"${SERVER_OUT}"
# shellcheck disable=SC2086
"${PYTHON}" -m fakeapi serve --tls --port 0 --disable-admission-plugins "${DISABLED_ADMISSION}" \
  --controllers "${CONTROLLERS}" ${FAKEAPI_ARGS:-} >"${SERVER_OUT}" 2>&1 &
SERVER_PID=$!
# The ready line is the server's own signal: read it rather than sleep.
SECURE_API_PORT=""
exec 3< <(tail -n +1 -f "${SERVER_OUT}" --pid="${SERVER_PID}")
while IFS= read -r line <&3; do
  if [[ "${line}" =~ ^fakeapi\ serving\ on\ https://[^:]+:([0-9]+) ]]; then
    SECURE_API_PORT="${BASH_REMATCH[1]}"
    break
  fi
done
exec 3<&-
if [[ -z "${SECURE_API_PORT}" ]]; then
  echo "fakeapi serve did not start:" >&2
  cat "${SERVER_OUT}" >&2
  exit 2
fi

export KUBE_ROOT KUBE_TEMP SECURE_API_PORT
export HOME="${KUBE_TEMP}/home"
export KUBE_TEST_CMD_BIN="${KUBE_TEMP}/bin"
export CONTEXT="test"
export ALLOW_SKEW="${ALLOW_SKEW-1}"
export LANG=C
export SUPPORTED_RESOURCES="*"
PATH="${KUBE_TEST_CMD_BIN}:${PATH}"

# A set-up step that fails stops the run with exit code 2 and says why: errexit alone would end the
# script with 1 and nothing printed, as if a function had failed. errexit does not apply inside a
# command followed by `||`, so the steps of one block are chained with `&&`.
setup_failed() {
  echo "the cluster set-up failed (log: ${LOG_DIR}/setup.log):" >&2
  cat "${LOG_DIR}/setup.log" >&2
  exit 2
}

# legacy-script.sh `setup`: the context every kubectl call without flags uses.
{
  kubectl config set-credentials test-admin --token admin-token &&
    kubectl config set-cluster local --insecure-skip-tls-verify --server "https://127.0.0.1:${SECURE_API_PORT}" &&
    kubectl config set-context "${CONTEXT}" --user test-admin --cluster local &&
    kubectl config use-context "${CONTEXT}"
} >"${LOG_DIR}/setup.log" 2>&1 || setup_failed

# test-cmd.sh `create_node`: the node 127.0.0.1 that stands in for the kubelet it does not run.
kubectl create -f - >>"${LOG_DIR}/setup.log" 2>&1 <<'__EOF__' || setup_failed
{
  "kind": "Node",
  "apiVersion": "v1",
  "metadata": {
    "name": "127.0.0.1",
    "annotations": {
      "save-managers": "true"
    }
  },
  "status": {
    "capacity": {
      "memory": "1Gi"
    }
  }
}
__EOF__

# legacy-script.sh `runTests`: "default" must exist and the "kubernetes" Service with it.
flags=( -s "https://127.0.0.1:${SECURE_API_PORT}" --insecure-skip-tls-verify )
(
  cd "${KUBE_ROOT}" || exit
  # The list is read whole before grep looks at it: `kubectl get | grep -q` under pipefail fails
  # whenever grep exits before kubectl's last write (kubectl then dies of SIGPIPE), and the harness
  # would go on to create a namespace that exists.
  namespaces_listed="$(kubectl get "${flags[@]}" namespaces -o name)" || exit
  if ! grep -qx namespace/default <<<"${namespaces_listed}"; then
    kubectl create "${flags[@]}" ns default || exit
  fi
  if [[ -f hack/testdata/kubernetes-service.yaml ]]; then
    kubectl create "${flags[@]}" -f hack/testdata/kubernetes-service.yaml || true
    kubectl get "${flags[@]}" -f hack/testdata/kubernetes-service.yaml || exit
  fi
) >>"${LOG_DIR}/setup.log" 2>&1 || setup_failed

# record_command's canary: a function that fails at its first command must be reported failing.
if bash "$0" --run-one record_command_canary >"${LOG_DIR}/record_command_canary.log" 2>&1; then
  echo "record_command_canary succeeded unexpectedly: a failing command does not fail its function" >&2
  exit 2
fi

failed=0
for fn in "$@"; do
  log="${LOG_DIR}/${fn}.log"
  set +o errexit
  bash "$0" --run-one "${fn}" >"${log}" 2>&1
  code=$?
  set -o errexit
  if [[ ${code} -eq 0 ]]; then
    echo "PASS ${fn}"
  else
    echo "FAIL ${fn} (exit ${code}, log: ${log})"
    failed=1
  fi
done
echo "server log: ${SERVER_OUT}"
exit "${failed}"

// A small controller written with the Kubernetes JavaScript client (@kubernetes/client-node): for
// every Job (example.com/v1) marked done, it posts one "Completed" Event and records
// status.completed. CLAIM_GUARD chooses how it claims the completion:
//
//   none              read the Job, check status.completed is unset, post the Event, then mark the
//                     Job complete with a plain merge patch: two replicas that both read it unset
//                     both post the Event.
//   resource-version  claim first with a JSON patch whose `test` op checks the resourceVersion it
//                     read; only the replica whose claim succeeded posts the Event.
//
// It lists the Jobs, then watches them from the list's resourceVersion, handling one at a time.
import * as k8s from "@kubernetes/client-node";

const guard = process.env.CLAIM_GUARD || "none";
const group = "example.com";
const version = "v1";
const plural = "jobs";

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const core = kc.makeApiClient(k8s.CoreV1Api);

function refused(error) {
  return error && (error.code === 409 || error.code === 422);
}

async function announce(job) {
  const { name, namespace, uid } = job.metadata;
  await core.createNamespacedEvent({
    namespace,
    body: {
      metadata: { generateName: `${name}-completed-`, namespace },
      involvedObject: { apiVersion: job.apiVersion, kind: job.kind, name, namespace, uid },
      reason: "Completed",
      message: `job ${name} completed`,
      type: "Normal",
      source: { component: "claim-controller" },
    },
  });
}

async function markComplete(job, strategy, body) {
  const { name, namespace } = job.metadata;
  await custom.patchNamespacedCustomObjectStatus(
    { group, version, namespace, plural, name, body },
    k8s.setHeaderOptions("Content-Type", strategy),
  );
}

async function handle(job) {
  if (!job.spec || !job.spec.done || (job.status && job.status.completed)) {
    return;
  }
  if (guard === "resource-version") {
    try {
      await markComplete(job, k8s.PatchStrategy.JsonPatch, [
        { op: "test", path: "/metadata/resourceVersion", value: job.metadata.resourceVersion },
        { op: "add", path: "/status", value: { ...(job.status || {}), completed: true } },
      ]);
    } catch (error) {
      if (refused(error)) {
        return; // another replica changed the Job since this one read it: its claim stands
      }
      throw error;
    }
    await announce(job);
    return;
  }
  await announce(job);
  await markComplete(job, k8s.PatchStrategy.MergePatch, { status: { completed: true } });
}

let queue = Promise.resolve();
function enqueue(job) {
  queue = queue.then(() => handle(job)).catch((error) => console.error("handling failed:", error.message || error));
}

async function main() {
  const list = await custom.listNamespacedCustomObject({ group, version, namespace: "default", plural });
  for (const job of list.items) {
    enqueue(job);
  }
  await queue;
  const watch = new k8s.Watch(kc);
  await watch.watch(
    `/apis/${group}/${version}/namespaces/default/${plural}`,
    { resourceVersion: list.metadata.resourceVersion },
    (phase, job) => {
      if (phase === "ADDED" || phase === "MODIFIED") {
        enqueue(job);
      }
    },
    (error) => {
      console.error("watch ended:", error ? error.message || error : "closed");
      process.exit(1);
    },
  );
}

main().catch((error) => {
  console.error("claim-controller:", error.message || error);
  process.exit(1);
});

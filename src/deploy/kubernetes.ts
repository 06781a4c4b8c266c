/**
 * One sharded run as Kubernetes manifests, from the user's own options: a claim on a shared
 * volume (ReadWriteMany), an Indexed Job whose N pods each run one shard
 * (`mailvolley run TARGET --shard auto/N --start-at T --json /results/shard-I.json …`), and a
 * merge Job that waits for the N results and merges them into /results/run.json and run.html.
 * Pure: options in, manifest objects (and their YAML) out; nobody edits YAML to change -s or N.
 */

import { createRequire } from "node:module";
import type { IJob } from "kubernetes-models/batch/v1";
import type { IContainer, IPersistentVolumeClaim, IPodSpec } from "kubernetes-models/v1";
import type * as Yaml from "yaml";
import { parseCount, parseTarget } from "../config/parse.js";
import { AUTH_ENV } from "../config/security.js";
import { parseStartAt } from "../config/shard.js";
import { UsageError } from "../usage/usage-error.js";

export interface KubernetesOptions {
  /** Names the Jobs and the claim: a DNS-1123 label. */
  readonly name: string;
  /** null: the namespace kubectl is pointed at. */
  readonly namespace: string | null;
  /** The image built from deploy/kubernetes/Containerfile, as the cluster pulls it. */
  readonly image: string;
  /** The SMTP target as `mailvolley run` takes it; reachable from the pods. */
  readonly target: string;
  /** N: shards, pods running at once, and completions of the Indexed Job. */
  readonly shards: number;
  /** When every shard starts, ISO 8601 UTC (what --start-at gets). */
  readonly startAt: string;
  /** The user's own `run` options (-s, -m, --rate, --mode, …), for every shard. */
  readonly runArgs: readonly string[];
  /** Size and storage class of the results volume; null class: the cluster's default. */
  readonly storageSize: string;
  readonly storageClass: string | null;
  /** CPU and memory of each shard's pod, requested and limited alike (a guaranteed pod). */
  readonly cpu: string;
  readonly memory: string;
  /** The merge gives up when the results are not all there this long after startAt. */
  readonly mergeWaitSeconds: number;
  /**
   * A Secret (made by the user, e.g. with kubectl) whose key `auth` holds user:password: the
   * shards read it as MAILVOLLEY_AUTH. null: no AUTH from a Secret.
   */
  readonly authSecret: string | null;
}

/** The Secret's key that holds user:password. */
export const AUTH_SECRET_KEY = "auth";

/** Where every pod mounts the shared volume. */
export const RESULTS_DIR = "/results";
/** The `node` user of the official Node.js images; the Containerfile runs as it. */
const NODE_UID = 1000;
/** Set from the pod's completion index, for the $(SHARD_INDEX) in the result's file name. */
const SHARD_INDEX_VAR = "SHARD_INDEX";
/** Kubernetes writes a pod's completion index here (and into JOB_COMPLETION_INDEX). */
const INDEX_ANNOTATION = "metadata.annotations['batch.kubernetes.io/job-completion-index']";
/** `name-merge` and the pods' `name-I-xxxxx` must stay within a label's 63 characters. */
const MAX_NAME = 40;
/** Flags the manifests set themselves; the user's run options must not. */
const OWNED_FLAGS = ["--shard", "--start-at", "--json", "--html"];
/** Judged on the whole run by the merge; on the shards only with --abort-on-fail. */
const THRESHOLD_FLAG = "--threshold";
/** Judged on the whole run by the merge, whose verdict names a generator-bound shard. */
const GENERATOR_BOUND_FLAG = "--fail-on-generator-bound";

type RawKubernetesOptions = Partial<Omit<KubernetesOptions, "startAt" | "shards">> &
  Pick<KubernetesOptions, "image" | "target"> & { shards: unknown; startAt: unknown };

/** Checks and fills the renderer's options; every failure is one UsageError line. */
export function kubernetesOptions(raw: RawKubernetesOptions): KubernetesOptions {
  const name = raw.name ?? "mailvolley";
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > MAX_NAME) {
    throw new UsageError(
      "--name",
      `"${name}" is not a Kubernetes name; give lower-case letters, digits and "-", at most ${MAX_NAME}`,
    );
  }
  parseTarget("target", raw.target);
  if (!raw.image || /\s/.test(raw.image)) {
    throw new UsageError(
      "--image",
      "give the image the cluster pulls, e.g. registry.example.com/mailvolley:0.1.0",
    );
  }
  const namespace = raw.namespace ?? null;
  if (namespace !== null && !isDnsLabel(namespace)) {
    throw new UsageError(
      "--namespace",
      `"${namespace}" is not a Kubernetes namespace; give lower-case letters, digits and "-", at most 63`,
    );
  }
  const authSecret = raw.authSecret ?? null;
  if (authSecret !== null && !/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/.test(authSecret)) {
    throw new UsageError("--auth-secret", `"${authSecret}" is not a Kubernetes Secret name`);
  }
  const runArgs = [...(raw.runArgs ?? [])];
  if (runArgs.some((arg) => arg === "--auth" || arg.startsWith("--auth="))) {
    // Args are stored in the Job, shown by kubectl describe and kept in etcd unencrypted.
    throw new UsageError(
      "--auth",
      "after -- would write the password into the manifests; store it in a Secret" +
        ` (kubectl create secret generic ${name}-auth --from-literal=${AUTH_SECRET_KEY}=USER:PASSWORD)` +
        ` and give --auth-secret ${name}-auth`,
    );
  }
  for (const arg of runArgs) {
    const flag = OWNED_FLAGS.find((f) => arg === f || arg.startsWith(`${f}=`));
    if (flag) throw new UsageError(flag, "is set by the manifests (one per shard); leave it out");
  }
  return Object.freeze({
    name,
    namespace,
    authSecret,
    image: raw.image,
    target: raw.target,
    shards: parseCount("--shards", raw.shards, 1, 1000),
    startAt: new Date(parseStartAt(raw.startAt)).toISOString(),
    runArgs: Object.freeze(runArgs),
    storageSize: quantity("--storage-size", raw.storageSize ?? "1Gi"),
    storageClass: raw.storageClass ?? null,
    cpu: quantity("--cpu", raw.cpu ?? "1"),
    memory: quantity("--memory", raw.memory ?? "1Gi"),
    mergeWaitSeconds: parseCount("--merge-wait", raw.mergeWaitSeconds ?? 3600, 1),
  });
}

/** An RFC 1123 label, as namespaces are named. */
function isDnsLabel(text: string): boolean {
  return /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(text) && text.length <= 63;
}

/** A Kubernetes resource quantity: 500m, 2, 1.5, 512Mi, 1Gi, 1G. */
function quantity(option: string, text: string): string {
  if (!/^\d+(\.\d+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.test(text)) {
    throw new UsageError(
      option,
      `"${text}" is not a Kubernetes quantity; give e.g. 500m, 2, 512Mi or 1Gi`,
    );
  }
  return text;
}

/** Kubernetes expands $(VAR) in args and reduces $$ to $; doubling every $ keeps text as it is. */
export function escapeForArgs(text: string): string {
  return text.replaceAll("$", () => "$$");
}

/**
 * The run options split: what every shard runs with, and what the merge judges (the thresholds
 * and --fail-on-generator-bound, so a shard's pod ends well and its result is merged).
 */
export function splitRunArgs(runArgs: readonly string[]): { shard: string[]; merge: string[] } {
  const shard: string[] = [];
  const merge: string[] = [];
  const abortOnFail = runArgs.includes("--abort-on-fail");
  for (let i = 0; i < runArgs.length; i++) {
    const arg = runArgs[i];
    const threshold =
      arg === THRESHOLD_FLAG
        ? [arg, runArgs[++i] ?? ""]
        : arg.startsWith(`${THRESHOLD_FLAG}=`)
          ? [arg]
          : null;
    if (arg === GENERATOR_BOUND_FLAG) {
      merge.push(arg);
      continue;
    }
    if (!threshold) {
      shard.push(arg);
      continue;
    }
    merge.push(...threshold);
    if (abortOnFail) shard.push(...threshold);
  }
  return { shard, merge };
}

function labels(options: KubernetesOptions, component: "shard" | "merge"): Record<string, string> {
  return {
    "app.kubernetes.io/name": "mailvolley",
    "app.kubernetes.io/instance": options.name,
    "app.kubernetes.io/component": component,
  };
}

function metadata(options: KubernetesOptions, name: string, component?: "shard" | "merge") {
  return {
    name,
    ...(options.namespace ? { namespace: options.namespace } : {}),
    labels: component
      ? labels(options, component)
      : { ...labels(options, "shard"), "app.kubernetes.io/component": "results" },
  };
}

function claimName(options: KubernetesOptions): string {
  return `${options.name}-results`;
}

/** Non-root, nothing to escalate, a read-only root file system with a scratch /tmp. */
function podSpec(options: KubernetesOptions, container: IContainer): IPodSpec {
  return {
    restartPolicy: "Never",
    securityContext: {
      runAsNonRoot: true,
      runAsUser: NODE_UID,
      runAsGroup: NODE_UID,
      fsGroup: NODE_UID,
      seccompProfile: { type: "RuntimeDefault" },
    },
    containers: [
      {
        ...container,
        securityContext: {
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        },
        volumeMounts: [
          { name: "results", mountPath: RESULTS_DIR },
          { name: "tmp", mountPath: "/tmp" },
        ],
      },
    ],
    volumes: [
      { name: "results", persistentVolumeClaim: { claimName: claimName(options) } },
      { name: "tmp", emptyDir: {} },
    ],
  };
}

export function resultsClaim(options: KubernetesOptions): IPersistentVolumeClaim {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: metadata(options, claimName(options)),
    spec: {
      // Every shard's pod writes here and the merge reads, possibly from different nodes.
      accessModes: ["ReadWriteMany"],
      resources: { requests: { storage: options.storageSize } },
      ...(options.storageClass ? { storageClassName: options.storageClass } : {}),
    },
  };
}

/** The path a shard writes its result to; `index` may be a $(VAR) reference. */
export function shardResultPath(index: number | string): string {
  return `${RESULTS_DIR}/shard-${index}.json`;
}

/** The shard's index, and with --auth-secret the credentials from that Secret. */
function shardEnv(options: KubernetesOptions) {
  const index = { fieldRef: { fieldPath: INDEX_ANNOTATION } };
  // The password stays in the Secret: the manifest names it, never holds it.
  const secret = { secretKeyRef: { name: options.authSecret ?? "", key: AUTH_SECRET_KEY } };
  return [
    { name: SHARD_INDEX_VAR, valueFrom: index },
    ...(options.authSecret === null ? [] : [{ name: AUTH_ENV, valueFrom: secret }]),
  ];
}

export function shardJob(options: KubernetesOptions): IJob {
  const n = options.shards;
  const args = [
    "run",
    escapeForArgs(options.target),
    "--shard",
    `auto/${n}`,
    "--start-at",
    options.startAt,
    "--json",
    shardResultPath(`$(${SHARD_INDEX_VAR})`),
    ...splitRunArgs(options.runArgs).shard.map(escapeForArgs),
  ];
  const resources = { cpu: options.cpu, memory: options.memory };
  const spec = podSpec(options, {
    name: "mailvolley",
    image: options.image,
    args,
    env: shardEnv(options),
    resources: { requests: resources, limits: resources },
  });
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: metadata(options, options.name, "shard"),
    spec: {
      completionMode: "Indexed",
      completions: n,
      // All shards at once: --start-at means together.
      parallelism: n,
      // A shard that fails is a run that failed; a retry would start late and load alone.
      backoffLimit: 0,
      template: {
        metadata: { labels: labels(options, "shard") },
        spec: {
          ...spec,
          // One shard per node where the cluster can: shards that share a node share its CPU.
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: "kubernetes.io/hostname",
              whenUnsatisfiable: "ScheduleAnyway",
              labelSelector: { matchLabels: labels(options, "shard") },
            },
          ],
        },
      },
    },
  };
}

/**
 * Waits until every shard's result is there, newer than startAt (not a stale file of an earlier
 * run on the same volume) and whole (it parses: a result still being written does not), then
 * merges. Written without `$(` and `$$`, which Kubernetes would expand in args.
 */
export function mergeScript(options: KubernetesOptions): string {
  const startSeconds = Math.floor(Date.parse(options.startAt) / 1000);
  const deadline = startSeconds + options.mergeWaitSeconds;
  const indexes = Array.from({ length: options.shards }, (_, i) => i);
  const files = indexes.map((i) => shardResultPath(i));
  const ready =
    'const fs = require("fs"); const [file, since] = process.argv.slice(1); ' +
    "if (fs.statSync(file).mtimeMs < Number(since) * 1000) process.exit(1); " +
    'JSON.parse(fs.readFileSync(file, "utf8"));';
  const merge = ["mailvolley", "merge", ...files, ...splitRunArgs(options.runArgs).merge];
  return [
    "set -eu",
    `for i in ${indexes.join(" ")}; do`,
    `  f=${RESULTS_DIR}/shard-$i.json`,
    `  until node -e '${ready}' "$f" ${startSeconds} 2>/dev/null; do`,
    `    if [ "\`date +%s\`" -ge ${deadline} ]; then`,
    `      echo "mailvolley merge: $f is not there ${options.mergeWaitSeconds}s after ${options.startAt}" >&2`,
    "      exit 1",
    "    fi",
    "    sleep 5",
    "  done",
    "done",
    `exec ${merge.map(shellQuote).join(" ")} --json ${RESULTS_DIR}/run.json --html ${RESULTS_DIR}/run.html`,
    "",
  ].join("\n");
}

/** A word for sh: bare when it is plainly safe, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`;
}

export function mergeJob(options: KubernetesOptions): IJob {
  const script = mergeScript(options);
  if (script.includes("$(") || script.includes("$$")) {
    // A user's threshold with `$(` would be expanded by Kubernetes before sh sees it.
    throw new UsageError("--threshold", "must not contain $( or $$ in a Kubernetes run");
  }
  const resources = { cpu: "250m", memory: "512Mi" };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: metadata(options, `${options.name}-merge`, "merge"),
    spec: {
      // Waiting is the script's (until startAt + mergeWaitSeconds); a failed merge is final.
      backoffLimit: 0,
      template: {
        metadata: { labels: labels(options, "merge") },
        spec: podSpec(options, {
          name: "merge",
          image: options.image,
          command: ["/bin/sh", "-c", script],
          resources: { requests: resources, limits: resources },
        }),
      },
    },
  };
}

/** The manifests in the order `kubectl apply` needs them: claim, shards, merge. */
export function renderKubernetes(options: KubernetesOptions): (IPersistentVolumeClaim | IJob)[] {
  return [resultsClaim(options), shardJob(options), mergeJob(options)];
}

/**
 * One YAML stream, a document per manifest, as `kubectl apply -f -` reads it. The yaml package
 * is loaded here, not when the command line is (a run's start).
 */
export function manifestsToYaml(manifests: readonly object[]): string {
  const yaml = createRequire(import.meta.url)("yaml") as typeof Yaml;
  return manifests
    .map((m) => yaml.stringify(m, { lineWidth: 0, aliasDuplicateObjects: false }))
    .join("---\n");
}

/**
 * The Kubernetes manifests, offline: every rendered manifest validates against Kubernetes'
 * schemas (kubernetes-models), the args expand per pod as Kubernetes expands them, the merge
 * script waits and merges under a real sh, and the committed example is what the renderer gives
 * (MAILVOLLEY_UPDATE_GOLDEN=1 rewrites it).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Job } from "kubernetes-models/batch/v1";
import { PersistentVolumeClaim } from "kubernetes-models/v1";
import { parseAllDocuments } from "yaml";

import {
  escapeForArgs,
  type KubernetesOptions,
  kubernetesOptions,
  manifestsToYaml,
  mergeScript,
  RESULTS_DIR,
  renderKubernetes,
  shardJob,
  splitRunArgs,
} from "../src/deploy/kubernetes.js";
import { UsageError } from "../src/usage/usage-error.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EXAMPLE = join(ROOT, "deploy/kubernetes/example");
const run = promisify(execFile);

const OPTION_SETS: Record<string, Parameters<typeof kubernetesOptions>[0]> = {
  "one shard, defaults": {
    image: "mailvolley:0.1.0",
    target: "127.0.0.1:2525",
    shards: 1,
    startAt: "1767268800",
  },
  "four shards, a namespace and a storage class": {
    name: "gw-soak",
    namespace: "load",
    image: "registry.example.com/mailvolley:0.1.0",
    target: "[2001:db8::25]:25",
    shards: 4,
    startAt: "2026-01-01T13:00:00+01:00",
    storageClass: "nfs-client",
    storageSize: "5Gi",
    cpu: "2",
    memory: "2Gi",
    runArgs: ["-s", "400", "--rate", "8000/s", "--duration", "30m"],
  },
  "sixteen per-message shards with thresholds and abort-on-fail": {
    image: "registry.example.com/mailvolley@sha256:0123",
    target: "mx.example.com",
    shards: 16,
    startAt: "2026-01-01T12:00:00Z",
    cpu: "1500m",
    memory: "768Mi",
    mergeWaitSeconds: 600,
    runArgs: [
      "--mode",
      "per-message",
      "-s",
      "32",
      "-m",
      "160000",
      "--threshold",
      "p99<50ms",
    ].concat(["--threshold=error_rate<1%", "--abort-on-fail", "--subject", "cost: $(HOME) $$"]),
  },
};

/** Every manifest of the YAML stream through the schema of its kind. */
function validateAll(yamlText: string): Record<string, unknown>[] {
  const docs = parseAllDocuments(yamlText).map((d) => {
    assert.deepEqual(d.errors, []);
    return d.toJS() as Record<string, unknown>;
  });
  for (const doc of docs) {
    const model =
      doc.kind === "Job"
        ? new Job(doc as never)
        : doc.kind === "PersistentVolumeClaim"
          ? new PersistentVolumeClaim(doc as never)
          : assert.fail(`unexpected kind ${doc.kind}`);
    model.validate();
  }
  return docs;
}

/**
 * Kubernetes' expansion of container args: $(VAR) from the container's env, $$ → $, an unknown
 * reference left as written (k8s.io/kubernetes third_party/forked/golang/expansion).
 */
function expand(text: string, env: Record<string, string>): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "$" || i + 1 === text.length) {
      out += text[i];
    } else if (text[i + 1] === "$") {
      out += "$";
      i++;
    } else if (text[i + 1] === "(" && text.indexOf(")", i) !== -1) {
      const close = text.indexOf(")", i);
      const name = text.slice(i + 2, close);
      out += name in env ? env[name] : text.slice(i, close + 1);
      i = close;
    } else {
      out += "$";
    }
  }
  return out;
}

describe("rendered manifests", () => {
  for (const [label, raw] of Object.entries(OPTION_SETS)) {
    test(`${label}: each manifest validates against Kubernetes' schemas`, () => {
      const options = kubernetesOptions(raw);
      const docs = validateAll(manifestsToYaml(renderKubernetes(options)));
      assert.deepEqual(
        docs.map((d) => `${d.apiVersion} ${d.kind}`),
        ["v1 PersistentVolumeClaim", "batch/v1 Job", "batch/v1 Job"],
      );
      const [claim, shards, merge] = docs as never as [IClaim, IJobDoc, IJobDoc];
      assert.deepEqual(claim.spec.accessModes, ["ReadWriteMany"]);
      const n = options.shards;
      assert.equal(shards.spec.completionMode, "Indexed");
      assert.equal(shards.spec.completions, n);
      assert.equal(shards.spec.parallelism, n);
      for (const job of [shards, merge]) {
        assert.equal(job.spec.backoffLimit, 0);
        const pod = job.spec.template.spec;
        assert.equal(pod.restartPolicy, "Never");
        assert.equal(pod.securityContext.runAsNonRoot, true);
        assert.ok(pod.securityContext.runAsUser > 0);
        const [container] = pod.containers;
        assert.equal(container.image, options.image);
        assert.equal(container.securityContext.allowPrivilegeEscalation, false);
        assert.deepEqual(container.resources.requests, container.resources.limits);
        assert.equal(pod.volumes[0].persistentVolumeClaim?.claimName, claim.metadata.name);
        assert.equal(container.volumeMounts[0].mountPath, RESULTS_DIR);
      }
      if (options.namespace) {
        for (const doc of docs) assert.equal((doc as never as IClaim).metadata.namespace, "load");
      }
    });
  }

  test("a wrong manifest fails the schema check (the check can fail)", () => {
    const job = shardJob(kubernetesOptions(OPTION_SETS["one shard, defaults"]));
    const broken = structuredClone(job) as never as IJobDoc;
    (broken.spec as { completions: unknown }).completions = "4";
    assert.throws(() => new Job(broken as never).validate(), /completions must be integer/);
    (broken.spec as { completionMode: unknown }).completionMode = "Indexd";
    assert.throws(() => new Job(broken as never).validate(), /completionMode/);
  });
});

describe("each shard's command", () => {
  const options = kubernetesOptions(
    OPTION_SETS["sixteen per-message shards with thresholds and abort-on-fail"],
  );
  const container = (shardJob(options).spec?.template.spec?.containers ?? [])[0];

  test("pod i runs shard auto/N into shard-i.json, the user's options as given", () => {
    const env = { SHARD_INDEX: "7", HOME: "/home/node" };
    assert.deepEqual(
      container.env?.[0].valueFrom?.fieldRef?.fieldPath,
      "metadata.annotations['batch.kubernetes.io/job-completion-index']",
    );
    const args = (container.args ?? []).map((a) => expand(a, env));
    assert.deepEqual(args, [
      "run",
      "mx.example.com",
      "--shard",
      "auto/16",
      "--start-at",
      "2026-01-01T12:00:00.000Z",
      "--json",
      "/results/shard-7.json",
      ...OPTION_SETS["sixteen per-message shards with thresholds and abort-on-fail"].runArgs!,
    ]);
  });

  test("escaping survives Kubernetes' expansion for any text", () => {
    for (const text of ["$(HOME)", "$$", "a$b", "$", "$(", "p99<5ms", "$$(X)$"]) {
      assert.equal(expand(escapeForArgs(text), { HOME: "/root", X: "x" }), text);
    }
  });

  test("thresholds judge the merged run; shards get them only with --abort-on-fail", () => {
    assert.deepEqual(splitRunArgs(["-s", "4", "--threshold", "p99<5ms", "--threshold=rate>1/s"]), {
      shard: ["-s", "4"],
      merge: ["--threshold", "p99<5ms", "--threshold=rate>1/s"],
    });
    const aborting = splitRunArgs(["--abort-on-fail", "--threshold", "error_rate<1%"]);
    assert.deepEqual(aborting.shard, ["--abort-on-fail", "--threshold", "error_rate<1%"]);
    assert.deepEqual(aborting.merge, ["--threshold", "error_rate<1%"]);
  });

  test("--fail-on-generator-bound judges the merged run, whose verdict names the shard", () => {
    assert.deepEqual(splitRunArgs(["-s", "4", "--fail-on-generator-bound"]), {
      shard: ["-s", "4"],
      merge: ["--fail-on-generator-bound"],
    });
  });
});

describe("option checks", () => {
  const base = OPTION_SETS["one shard, defaults"];
  const refusals: [Partial<KubernetesOptions> & Record<string, unknown>, RegExp][] = [
    [{ runArgs: ["--json", "x.json"] }, /^--json: is set by the manifests/],
    [{ runArgs: ["--shard=0/2"] }, /^--shard: is set by the manifests/],
    [{ runArgs: ["--start-at", "0"] }, /^--start-at: is set by the manifests/],
    [{ name: "Load_Test" }, /^--name: "Load_Test" is not a Kubernetes name/],
    [{ cpu: "lots" }, /^--cpu: "lots" is not a Kubernetes quantity/],
    [{ shards: 0 }, /^--shards: 0 is out of range/],
    [{ startAt: "tomorrow" }, /^--start-at: "tomorrow" is not a time/],
    [{ target: "host:99999" }, /^target: port 99999 is out of range/],
    [{ image: "" }, /^--image: give the image/],
  ];
  for (const [change, message] of refusals) {
    test(`refuses ${JSON.stringify(change)}`, () => {
      assert.throws(
        () => kubernetesOptions({ ...base, ...change } as never),
        (e: unknown) =>
          e instanceof UsageError && message.test(e.message) && !e.message.includes("\n"),
      );
    });
  }
});

describe("the merge script under sh", () => {
  const dir = mkdtempSync(join(tmpdir(), "mailvolley-kube-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // A stand-in mailvolley that records how it was called.
  const calls = join(dir, "calls.txt");
  const fake = join(dir, "mailvolley");
  writeFileSync(fake, `#!/bin/sh\necho "$@" > ${calls}\n`);
  chmodSync(fake, 0o755);

  /** The script for 2 shards with its /results moved to `results`; the wait already over. */
  function script(results: string, startAt: string): string {
    const options = kubernetesOptions({
      image: "x",
      target: "127.0.0.1:2525",
      shards: 2,
      startAt,
      mergeWaitSeconds: 1,
      runArgs: ["--threshold", "p99<5ms"],
    });
    return mergeScript(options).replaceAll(`${RESULTS_DIR}/`, `${results}/`);
  }

  async function sh(text: string) {
    return run("/bin/sh", ["-c", text], {
      env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
    }).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
  }

  const past = "2020-01-01T00:00:00Z";

  test("merges when every shard's result is there and whole", async () => {
    const results = mkdtempSync(join(dir, "ok-"));
    for (const i of [0, 1]) writeFileSync(join(results, `shard-${i}.json`), "{}");
    const { code, stderr } = await sh(script(results, past));
    assert.equal(stderr, "");
    assert.equal(code, 0);
    assert.equal(
      readFileSync(calls, "utf8").trim(),
      `merge ${results}/shard-0.json ${results}/shard-1.json --threshold p99<5ms --json ${results}/run.json --html ${results}/run.html`,
    );
  });

  test("a missing shard: gives up at the deadline, naming the file", async () => {
    const results = mkdtempSync(join(dir, "missing-"));
    writeFileSync(join(results, "shard-0.json"), "{}");
    const { code, stderr } = await sh(script(results, past));
    assert.equal(code, 1);
    assert.match(
      stderr,
      new RegExp(
        `^mailvolley merge: ${results}/shard-1.json is not there 1s after 2020-01-01T00:00:00.000Z`,
      ),
    );
  });

  test("a half-written result and a stale one from an earlier run are not taken", async () => {
    const results = mkdtempSync(join(dir, "partial-"));
    writeFileSync(join(results, "shard-0.json"), '{"schema": "mailvolley/res');
    writeFileSync(join(results, "shard-1.json"), "{}");
    assert.match((await sh(script(results, past))).stderr, /shard-0\.json is not there/);
    writeFileSync(join(results, "shard-0.json"), "{}");
    const before = new Date("2019-12-31T23:00:00Z");
    utimesSync(join(results, "shard-1.json"), before, before);
    assert.match((await sh(script(results, past))).stderr, /shard-1\.json is not there/);
  });
});

describe("the committed example", () => {
  test("deploy/kubernetes/example/ is what the renderer gives for its options.json", () => {
    const raw = JSON.parse(readFileSync(join(EXAMPLE, "options.json"), "utf8"));
    const rendered = manifestsToYaml(renderKubernetes(kubernetesOptions(raw)));
    const path = join(EXAMPLE, "mailvolley.yaml");
    if (process.env.MAILVOLLEY_UPDATE_GOLDEN === "1") writeFileSync(path, rendered);
    const committed = readFileSync(path, "utf8");
    assert.equal(
      committed,
      rendered,
      "re-render: MAILVOLLEY_UPDATE_GOLDEN=1 npm test (docs/several-machines.md)",
    );
    validateAll(committed);
  });
});

interface IClaim {
  metadata: { name: string; namespace?: string };
  spec: { accessModes: string[] };
}

interface IJobDoc {
  spec: {
    completionMode?: string;
    completions?: number;
    parallelism?: number;
    backoffLimit: number;
    template: {
      spec: {
        restartPolicy: string;
        securityContext: { runAsNonRoot: boolean; runAsUser: number };
        volumes: { persistentVolumeClaim?: { claimName: string } }[];
        containers: {
          image: string;
          securityContext: { allowPrivilegeEscalation: boolean };
          resources: { requests: unknown; limits: unknown };
          volumeMounts: { mountPath: string }[];
        }[];
      };
    };
  };
}

/**
 * `mailvolley kubernetes`: options after -- reach every shard and are checked as `run` will
 * read them; the YAML is the renderer's and validates against Kubernetes' schemas, offline.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Job } from "kubernetes-models/batch/v1";
import { PersistentVolumeClaim } from "kubernetes-models/v1";
import { parseAllDocuments } from "yaml";
import yargs from "yargs";
import { kubernetesCommand } from "../src/cli/kubernetes-command.js";

import { kubernetesOptions, manifestsToYaml, renderKubernetes } from "../src/deploy/kubernetes.js";
import { UsageError } from "../src/usage/usage-error.js";
import { mailvolley } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "mailvolley-kube-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]): Promise<void> {
  await yargs(args)
    .command(kubernetesCommand)
    .strict()
    .fail((message, error) => {
      throw error ?? new Error(message);
    })
    .parseAsync();
}

test("renders what the renderer gives for the same options", async () => {
  const out = join(dir, "run.yaml");
  await cli([
    "kubernetes",
    "mx.example.com:25",
    "--shards",
    "3",
    "--image",
    "registry.example.com/mailvolley:0.1.0",
    "--start-at",
    "2026-01-01T12:00:00Z",
    "--storage-class",
    "nfs-client",
    "--merge-wait",
    "30m",
    "--out",
    out,
    "--",
    "-s",
    "30",
    "--rate",
    "900",
    "--threshold",
    "p99<50ms",
  ]);
  const expected = kubernetesOptions({
    image: "registry.example.com/mailvolley:0.1.0",
    target: "mx.example.com:25",
    shards: "3",
    startAt: "2026-01-01T12:00:00Z",
    storageClass: "nfs-client",
    mergeWaitSeconds: 1800,
    runArgs: ["-s", "30", "--rate", "900", "--threshold", "p99<50ms"],
  });
  assert.equal(readFileSync(out, "utf8"), manifestsToYaml(renderKubernetes(expected)));
});

test("--start-in starts the shards that long after rendering, in whole seconds", async () => {
  const out = join(dir, "later.yaml");
  const before = Date.now();
  await cli([
    "kubernetes",
    "mx:25",
    "--shards",
    "2",
    "--image",
    "i",
    "--start-in",
    "90s",
    "--out",
    out,
  ]);
  const startAt = Date.parse(/--start-at\n\s+- (\S+)/.exec(readFileSync(out, "utf8"))?.[1] ?? "");
  assert.ok(
    startAt >= before + 90_000 && startAt % 1000 === 0,
    `${new Date(startAt).toISOString()}`,
  );
});

test("a run option the manifests own, or both start options, is one UsageError", async () => {
  await assert.rejects(
    cli(["kubernetes", "mx:25", "--shards", "2", "--image", "i", "--", "--json", "x.json"]),
    (e: unknown) => e instanceof UsageError && /^--json: is set by the manifests/.test(e.message),
  );
  await assert.rejects(
    cli([
      "kubernetes",
      "mx:25",
      "--shards",
      "2",
      "--image",
      "i",
      "--start-at",
      "1",
      "--start-in",
      "1m",
    ]),
    (e: unknown) => e instanceof UsageError && /^--start-in: give either/.test(e.message),
  );
});

test("mailvolley kubernetes prints manifests that validate against Kubernetes' schemas", async () => {
  const args = ["-s", "40", "--rate", "800", "-d", "10m", "--threshold", "error_rate<1%"];
  const out = await mailvolley([
    "kubernetes",
    "mx.example.com:25",
    "--shards",
    "4",
    "--image",
    "registry.example.com/mailvolley:0.1.0",
    "--start-at",
    "2026-01-01T12:00:00Z",
    "--",
    ...args,
  ]);
  assert.equal(out.code, 0, out.stderr);
  const docs = parseAllDocuments(out.stdout).map((d) => d.toJS() as { kind: string });
  assert.deepEqual(
    docs.map((d) => d.kind),
    ["PersistentVolumeClaim", "Job", "Job"],
  );
  new PersistentVolumeClaim(docs[0] as never).validate();
  for (const job of docs.slice(1)) new Job(job as never).validate();
  const expected = kubernetesOptions({
    image: "registry.example.com/mailvolley:0.1.0",
    target: "mx.example.com:25",
    shards: "4",
    startAt: "2026-01-01T12:00:00Z",
    runArgs: args,
  });
  assert.equal(out.stdout, manifestsToYaml(renderKubernetes(expected)));
});

test("run options that would fail in every pod fail here: one line, exit 2", async () => {
  const render = (runArgs: string[]) =>
    mailvolley(["kubernetes", "mx:25", "--shards", "4", "--image", "i", "--", ...runArgs]);
  for (const [runArgs, message] of [
    [["-s", "2"], /^mailvolley: --shard: 4 shards need at least 4 sessions \(-s 2\)/],
    [
      ["-s", "8", "--rat", "9"],
      /^mailvolley: --: run options after --: Unknown argument: rat; did you mean --rate\?/,
    ],
    [["-s", "8", "--rate", "fast"], /^mailvolley: --rate: /],
  ] as const) {
    const out = await render([...runArgs]);
    assert.equal(out.code, 2, out.stderr);
    assert.match(out.stderr, message);
    assert.equal(out.stderr.trim().split("\n").length, 1, out.stderr);
    assert.equal(out.stdout, "");
  }
});

test("no password in a manifest: --auth after -- is refused, --auth-secret names a Secret", async () => {
  const base = ["kubernetes", "mx:25", "--shards", "2", "--image", "i"];
  const refused = await mailvolley([...base, "--", "-s", "4", "--auth", "user:S3cretPW"]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /^mailvolley: --auth: .*--auth-secret/);
  assert.doesNotMatch(refused.stderr + refused.stdout, /S3cretPW/);
  const equals = await mailvolley([...base, "--", "-s", "4", "--auth=user:S3cretPW"]);
  assert.equal(equals.code, 2, equals.stderr);
  assert.doesNotMatch(equals.stderr + equals.stdout, /S3cretPW/);

  const out = await mailvolley([...base, "--auth-secret", "mv-auth", "--", "-s", "4"]);
  assert.equal(out.code, 0, out.stderr);
  const job = parseAllDocuments(out.stdout)[1].toJS() as {
    spec: { template: { spec: { containers: { env: unknown[] }[] } } };
  };
  new Job(job as never).validate();
  assert.deepEqual(job.spec.template.spec.containers[0].env[1], {
    name: "MAILVOLLEY_AUTH",
    valueFrom: { secretKeyRef: { name: "mv-auth", key: "auth" } },
  });
});

test("an --auth-file after -- is the pod's path: not read on this machine", async () => {
  const missing = join(dir, "not-here", "auth");
  const out = await mailvolley([
    ...["kubernetes", "mx:25", "--shards", "2", "--image", "i", "--"],
    ...["-s", "4", "--auth-file", missing, "--auth-mechanism", "plain"],
  ]);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /--auth-file/);
});

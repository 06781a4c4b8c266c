/**
 * schema/result.schema.json against real results: every kind of document mailvolley writes (a
 * self-test, STARTTLS per message, an open model with thresholds, per-message against a
 * connection limit, nothing listening, compare, shards and their merge, worker threads with a
 * template, the golden file) validates, and every field it holds has a description in the
 * schema. The file is the build's rendering of the one definition (src/result/schema/),
 * byte for byte; its objects are closed, and its enums are the code's tables.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { COMPARE_SCHEMA } from "../src/report/compare.js";
import { RESULT_LATENCIES, RESULT_SCHEMA, type Result } from "../src/result/result.js";
import { resultJsonSchemaText } from "../src/result/schema/document.js";
import { PHASE_NAMES } from "../src/smtp/phases.js";
import { HISTOGRAM_NAMES } from "../src/stats/collector.js";
import { ERROR_CLASSES, FAILURE_CLASS } from "../src/stats/errors.js";
import { mailvolley } from "./helpers/cli.js";
import { readSchema, SCHEMA_FILE, schemaFields } from "./helpers/schema-fields.js";
import { tempDir } from "./helpers/tmp.js";

const GOLDEN = new URL("../../test/golden/result-reuse.json", import.meta.url);

const readJson = (file: string | URL): unknown => JSON.parse(readFileSync(file, "utf8"));

const schema = readSchema();
// strict: an unknown keyword or a loose type in the schema itself is an error too. `better` is
// mailvolley's one annotation (a headline figure's direction, read by `diff`), declared here.
const validate = new Ajv2020({ strict: true, allErrors: true, keywords: ["better"] }).compile(
  schema,
);

/** The schema's complaints about `doc`, one line each: the path and what is wrong there. */
function problems(doc: unknown): string[] {
  if (validate(doc)) return [];
  // The root's if/then/else adds "must match "else" schema" over the branch's own errors.
  const errors = (validate.errors ?? []).filter((e: ErrorObject) => e.keyword !== "if");
  return errors.map((e) => {
    const extra = e.keyword === "additionalProperties" ? ` (${e.params.additionalProperty})` : "";
    return `${e.instancePath || "/"} ${e.message}${extra}`;
  });
}

/** Every field of a real document, as a path: what the description check covered. */
const fieldsSeen = new Set<string>();

function assertValid(doc: unknown, what: string): void {
  assert.deepEqual(problems(doc), [], `${what} does not match schema/result.schema.json`);
  const { fields, problems: undescribed } = schemaFields(schema, doc);
  assert.deepEqual(undescribed, [], `${what}: fields the schema does not describe`);
  for (const field of fields) fieldsSeen.add(field);
}

describe("schema/result.schema.json against real results", { timeout: 180_000 }, () => {
  const dir = tempDir("mailvolley-schema-");
  const json = (name: string) => join(dir, `${name}.json`);

  /** Runs the CLI with `--json FILE -q` and returns the document it wrote. */
  async function written(name: string, args: string[], exitCode = 0): Promise<unknown> {
    const out = await mailvolley([...args, "--json", json(name), "-q"]);
    assert.equal(out.code, exitCode, out.stderr);
    return readJson(json(name));
  }

  const common = ["-m", "200", "-s", "4", "--workers", "1"];

  test("a self-test run", async () => {
    const doc = (await written("self-test", ["run", ...common])) as Result;
    assert.ok(doc.sink && doc.run, "a self-test records the sink's counts and what was run");
    assertValid(doc, "a self-test");
  });

  test("a STARTTLS run per message over two workers (tls counts merged)", async () => {
    const args = ["run", "--starttls", "--mode", "per-message", "-m", "40", "-s", "4"];
    const doc = (await written("tls", [...args, "--workers", "2"])) as Result;
    // Each of the 4 sessions' first connection is full, whichever thread it runs on.
    assert.deepEqual([doc.tls?.full, doc.tls?.resumed], [4, 36]);
    assert.equal(doc.histograms["tls:resumed"] !== undefined, true);
    assertValid(doc, "a STARTTLS run");
  });

  test("an open model with --rate and thresholds", async () => {
    const args = ["run", "--rate", "200", "-d", "1s", "-s", "4", "--workers", "1"];
    const thresholds = ["--threshold", "p99<60s", "--threshold", "error_rate<1%"];
    const doc = (await written("open", [...args, ...thresholds])) as Result;
    assert.equal(doc.thresholds?.length, 2);
    assert.ok(doc.generator?.lateness, "the open model records start lateness");
    assertValid(doc, "an open-model run");
  });

  test("a per-message run refused by a connection limit", async () => {
    const args = [
      "run",
      ...common,
      "--mode",
      "per-message",
      "--sink-max-connection-rate",
      "30/60s",
    ];
    // Exit 1: messages failed (the refused connections).
    const doc = (await written("per-message", args, 1)) as Result;
    assert.equal(doc.errors[0]?.class, "refused");
    assert.equal(doc.firstSeen?.[0]?.message, null);
    assert.ok(doc.knee?.fell, "success fell below 100%");
    assertValid(doc, "a per-message run");
  });

  test("a run against a port where nothing listens", async () => {
    const args = ["run", "127.0.0.1:1", "-m", "20", "-s", "2", "--workers", "1"];
    const doc = (await written("nothing-listening", args, 1)) as Result;
    const replies = doc.errors.map((e) => e.reply).sort();
    assert.deepEqual(replies, ["refused", "unsent"]);
    assert.equal(doc.firstSeen?.find((f) => f.class === "unsent")?.connection, 0);
    assertValid(doc, "a run that reached no server");
  });

  test("compare --json", async () => {
    const args = ["compare", "-s", "3", "-m", "120", "--workers", "1", "--pause", "0"];
    const doc = (await written("compare", [...args, "--sink-max-connection-rate", "20/60s"])) as {
      schema: string;
      runs: Result[];
    };
    assert.equal(doc.schema, COMPARE_SCHEMA);
    assert.equal(doc.runs.length, 2);
    assertValid(doc, "a comparison");
  });

  test("two shards and their merge", async () => {
    const shards: string[] = [];
    for (const index of [0, 1]) {
      const name = `shard-${index}`;
      const doc = (await written(name, ["run", ...common, "--shard", `${index}/2`])) as Result;
      assert.equal(doc.shard?.index, index);
      assertValid(doc, `shard ${index}`);
      shards.push(json(name));
    }
    const merged = (await written("merged", ["merge", ...shards])) as Result;
    assert.deepEqual(
      merged.shards?.map((s) => s.index),
      [0, 1],
    );
    assertValid(merged, "a merged result");
  });

  test("a run on worker threads, its messages from a template", async () => {
    const template = join(dir, "message.eml");
    writeFileSync(template, "Subject: {{seq}}\r\nFrom: a@example.com\r\n\r\n{{token}}\r\n");
    const args = ["run", "-m", "200", "-s", "4", "--workers", "2", "--template", template];
    const doc = (await written("workers", args)) as Result;
    assert.ok(doc.generator?.threads.some((t) => t.name === "worker 2"));
    assert.equal(doc.sources?.[0]?.kind, "template");
    assertValid(doc, "a run on two workers");
  });

  test("the golden result", () => {
    assertValid(readJson(GOLDEN), "test/golden/result-reuse.json");
  });

  test("the description check saw the sections these runs write", () => {
    for (const field of ["tls.seen[].cipher", "sink.classes", "generator.lateness.startMs"]) {
      assert.ok(fieldsSeen.has(field), `no real result held ${field}`);
    }
    for (const field of ["runs[].latency.tlsMs.p99", "shards[].configHash", "knee.fell"]) {
      assert.ok(fieldsSeen.has(field), `no real result held ${field}`);
    }
  });
});

test("schema/result.schema.json is what the build writes from src/result/schema/", () => {
  assert.equal(
    readFileSync(SCHEMA_FILE, "utf8"),
    resultJsonSchemaText(),
    "run `npm run build`: the shipped schema is generated from the definition",
  );
});

test("every property the schema defines has a description, its own or its definition's", () => {
  const missing: string[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: walking the schema's JSON.
  const visit = (node: any, path: string): void => {
    if (typeof node !== "object" || node === null) return;
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      // biome-ignore lint/suspicious/noExplicitAny: as above.
      const property = child as any;
      const target = property.$ref && schema.$defs[property.$ref.replace("#/$defs/", "")];
      if (!property.description && !target?.description) missing.push(`${path}.${key}`);
    }
    for (const [key, child] of Object.entries(node)) {
      // The root's `if` only tells a comparison from a Result: no fields there.
      if (!["enum", "required", "if"].includes(key)) visit(child, `${path}/${key}`);
    }
  };
  visit(schema, "");
  assert.deepEqual(missing, []);
});

describe("schema/result.schema.json refuses what is not a result", () => {
  let golden: Result;
  before(() => {
    golden = readJson(GOLDEN) as Result;
  });
  const copy = (): Record<string, unknown> => structuredClone(golden) as never;

  test("a count given as a string, naming its path", () => {
    const doc = copy();
    (doc.messages as Record<string, unknown>).accepted = "390";
    assert.deepEqual(problems(doc), ["/messages/accepted must be integer"]);
  });

  test("a field the schema does not know, at the top and deep inside", () => {
    const top = copy();
    top.colour = "blue";
    assert.deepEqual(problems(top), ["/ must NOT have additional properties (colour)"]);
    const deep = copy() as unknown as Result;
    Object.assign(deep.latency.transactionMs, { p999: 7 });
    assert.deepEqual(problems(deep), [
      "/latency/transactionMs must NOT have additional properties (p999)",
    ]);
  });

  test("a missing field, an unknown phase, a run inside a comparison", () => {
    const missing = copy();
    delete missing.errorClasses;
    assert.deepEqual(problems(missing), ["/ must have required property 'errorClasses'"]);
    const phase = copy() as unknown as Result;
    phase.errors[0].phase = "ehlo2" as never;
    assert.deepEqual(problems(phase), [
      "/errors/0/phase must be equal to one of the allowed values",
    ]);
    const compare = { schema: COMPARE_SCHEMA, runs: [golden, { ...golden, sessions: -1 }] };
    assert.deepEqual(problems(compare), ["/runs/1/sessions must be >= 0"]);
  });
});

test("the schema's names are the code's: schema ids, phases, error classes, latencies, histograms", () => {
  const defs = schema.$defs;
  assert.equal(defs.result.properties.schema.const, RESULT_SCHEMA);
  assert.equal(defs.comparison.properties.schema.const, COMPARE_SCHEMA);
  assert.deepEqual(defs.phase.enum, [...PHASE_NAMES]);
  assert.deepEqual(defs.errorClass.enum, [...ERROR_CLASSES]);
  assert.deepEqual(defs.errorClassCounts.required, [...ERROR_CLASSES]);
  assert.deepEqual(
    defs.latencies.required,
    RESULT_LATENCIES.map((l) => `${l}Ms`),
  );
  assert.deepEqual(defs.result.properties.histograms.propertyNames.anyOf[0].enum, [
    ...HISTOGRAM_NAMES,
  ]);
  const failures = Object.keys(FAILURE_CLASS).join("|");
  assert.equal(defs.errorRow.properties.reply.pattern, `^([0-9]{3}|${failures})$`);
});

test("a run a signal stopped, and a compare whose second run it kept from starting", () => {
  const stopped = { ...(readJson(GOLDEN) as object), stoppedBy: "SIGTERM" };
  assertValid(stopped, "a result stopped by SIGTERM");
  assert.ok(
    problems({ ...stopped, stoppedBy: "SIGHUP" }).length > 0,
    "an unknown signal is refused",
  );
  const compare = { schema: COMPARE_SCHEMA, runs: [readJson(GOLDEN)], notRun: ["reuse"] };
  assertValid(compare, "a compare stopped during --pause");
});

test("every field docs/result.md's field table names is a field of the schema", () => {
  const doc = readFileSync(new URL("../../docs/result.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Result fields"));
  const table = section.slice(0, section.indexOf("\n## ", 1));
  const paths = [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
  assert.ok(paths.length > 50, "the field table is where it was");
  // biome-ignore lint/suspicious/noExplicitAny: walking the schema's JSON.
  const deref = (node: any): any => {
    let at = node;
    while (at?.$ref || at?.oneOf) {
      at = at.$ref
        ? schema.$defs[at.$ref.replace("#/$defs/", "")]
        : at.oneOf.find((alt: { type?: string }) => alt.type !== "null");
    }
    return at;
  };
  const unknown = paths.filter((path) => {
    let at = deref(schema.$defs.result);
    for (const part of path.split(".")) {
      const key = part.replace(/\[\]$/, "");
      // "*": any key of a map (class names), the table's word for additionalProperties.
      at = deref(key === "*" ? at?.additionalProperties : at?.properties?.[key]);
      if (part.endsWith("[]")) at = deref(at?.items);
      if (at === undefined) return true;
    }
    return false;
  });
  assert.deepEqual(unknown, [], "docs/result.md names fields the Result does not have");
});

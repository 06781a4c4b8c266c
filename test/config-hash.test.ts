/** The configuration hash a shard records: stable, order-free, blind to the shard's own details. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  canonicalJson,
  configHash,
  NOT_LOAD_KEYS,
  withoutKeys,
} from "../src/config/config-hash.js";
import { buildRunConfig } from "../src/config/run-config.js";

describe("canonical JSON", () => {
  test("keys sorted at every depth, arrays in order", () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [3, 1], c: "x" } }),
      '{"a":{"c":"x","d":[3,1]},"b":1}',
    );
  });

  test("Infinity is not null, undefined members are left out", () => {
    assert.equal(
      canonicalJson({ m: Number.POSITIVE_INFINITY, n: null, u: undefined }),
      '{"m":"Infinity","n":null}',
    );
    assert.notEqual(canonicalJson({ m: Number.POSITIVE_INFINITY }), canonicalJson({ m: null }));
  });
});

describe("configuration hash", () => {
  const load = {
    target: { kind: "tcp", host: "mx.example.com", port: 25 },
    mode: "reuse",
    sessions: 100,
    messages: 100_000,
    classes: [{ name: "default", share: 1 }],
  };

  test("sha256 and 64 hex digits, the same for the same load", () => {
    assert.match(configHash(load), /^sha256:[0-9a-f]{64}$/);
    assert.equal(configHash(load), configHash(structuredClone(load)));
  });

  test("key order does not matter", () => {
    const reordered = {
      classes: [{ share: 1, name: "default" }],
      messages: 100_000,
      sessions: 100,
      mode: "reuse",
      target: { port: 25, host: "mx.example.com", kind: "tcp" },
    };
    assert.equal(configHash(reordered), configHash(load));
  });

  test("the shard, start time, host and output paths do not change it", () => {
    const shard0 = {
      ...load,
      shard: { index: 0, count: 4 },
      startAt: 1,
      host: "a",
      json: "/r/0.json",
    };
    const shard3 = {
      ...load,
      shard: { index: 3, count: 4 },
      startAt: 2,
      host: "b",
      json: "/r/3.json",
    };
    assert.equal(configHash(shard0), configHash(shard3));
    assert.equal(configHash(shard0), configHash(load));
  });

  test("a different load changes it", () => {
    assert.notEqual(configHash({ ...load, sessions: 101 }), configHash(load));
    assert.notEqual(configHash({ ...load, mode: "per-message" }), configHash(load));
    assert.notEqual(
      configHash({ ...load, classes: [{ name: "default", share: 2 }] }),
      configHash(load),
    );
  });

  test("the excluded keys are the caller's", () => {
    assert.equal(configHash({ a: 1, b: 2 }, ["b"]), configHash({ a: 1, b: 3 }, ["b"]));
    assert.notEqual(configHash({ a: 1, b: 2 }, []), configHash({ a: 1, b: 3 }, []));
  });

  test("a dotted key drops a nested member and leaves the input alone", () => {
    const withAuth = { auth: { user: "u", pass: "secret", mechanism: null } };
    assert.deepEqual(withoutKeys(withAuth, ["auth.pass"]), {
      auth: { user: "u", mechanism: null },
    });
    assert.equal(withAuth.auth.pass, "secret");
    assert.equal(
      configHash({ auth: { user: "u", pass: "one" } }),
      configHash({ auth: { user: "u", pass: "two" } }),
    );
    assert.notEqual(
      configHash({ auth: { user: "u", pass: "one" } }),
      configHash({ auth: { user: "v", pass: "one" } }),
    );
  });

  test("over checked run configs: -s changes it; --workers, --json and the run id do not", () => {
    const base = { target: "127.0.0.1:2525", sessions: 10, messages: 1000 };
    const a = buildRunConfig({ ...base, workers: 1, json: "a.json" });
    const b = buildRunConfig({ ...base, workers: 2, json: "b.json", quiet: true });
    assert.notEqual(a.runId, b.runId);
    assert.equal(configHash(a), configHash(b));
    assert.notEqual(configHash(buildRunConfig({ ...base, sessions: 11 })), configHash(a));
    assert.notEqual(configHash(buildRunConfig({ ...base, rate: 50 })), configHash(a));
    assert.ok(NOT_LOAD_KEYS.includes("shard") && NOT_LOAD_KEYS.includes("startAt"));
  });
});

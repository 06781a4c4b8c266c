/**
 * Figures as the reports write them: ratios that read as numbers, units
 * on a threshold's actual value, "-" for latencies without samples, and a refusal named for
 * what it was.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import net from "node:net";
import { describe, test } from "node:test";
import { figureDescription } from "../src/report/figure-docs.js";
import { FIGURES, valueAt } from "../src/report/figure-table.js";
import { ratio, thresholdActual } from "../src/report/figures.js";
import { renderSummary } from "../src/report/terminal.js";
import { runClient } from "./helpers/run-client.js";
import { readSchema } from "./helpers/schema-fields.js";

/** A loopback port with nothing listening on it (bound, then closed). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("report figures", () => {
  test("a ratio that is not a useful number shows both figures", () => {
    assert.equal(ratio(2000, 4), "4 vs 2,000");
    assert.equal(ratio(40, 0), "0 vs 40");
    assert.equal(ratio(0, 0.3), "0.3 vs 0");
    assert.equal(ratio(0, 0), "=");
    assert.equal(ratio(100, 250), "×2.50");
  });

  test("a threshold's actual value carries its unit", () => {
    const t = (actual: number | null, unit?: string) => ({
      expression: "x",
      actual,
      unit,
      passed: false,
    });
    assert.equal(thresholdActual(t(6.615, "ms")), "6.615 ms");
    assert.equal(thresholdActual(t(0.5, "%")), "0.500 %");
    assert.equal(thresholdActual(t(97.5, "/s")), "97.5/s");
    assert.equal(thresholdActual(t(3, "")), "3");
    assert.equal(thresholdActual(t(null, "ms")), "no data");
  });

  test("nothing listening: 'connection refused (nothing listening)', and '-' for latencies", async () => {
    const port = await deadPort();
    const result = await runClient(`127.0.0.1:${port}`, {
      sessions: 1,
      messages: 2,
      reconnectAttempts: 2,
      reconnectDelay: "1ms",
    });
    assert.equal(result.messages.accepted, 0);
    const text = renderSummary(result, { color: false });
    assert.match(text, /connection refused \(nothing listening\)/);
    assert.doesNotMatch(text, /refused by gateway/);
    const all = text
      .split("\n")
      .find((line) => /^ {2}default /.test(line) || /^ {2}all /.test(line));
    assert.ok(all, text);
    // mean, p50, p90, p95, p99 and max: no samples, so no figure (the Apdex is 0.000).
    assert.match(all, /100\.00 +- +- +- +- +- +- +0\.0 /);
  });
});

describe("the reports' figure table", () => {
  const schema = readSchema();
  /** The schema of a dotted path inside a Result, following $refs and nullable oneOfs. */
  // biome-ignore lint/suspicious/noExplicitAny: walking the schema's JSON.
  function schemaAt(path: string): any {
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    const deref = (node: any): any => {
      let at = node;
      while (at.$ref || at.oneOf) {
        at = at.$ref
          ? schema.$defs[at.$ref.replace("#/$defs/", "")]
          : at.oneOf.find((alt: { type?: string }) => alt.type !== "null");
      }
      return at;
    };
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    let at: any = schema.$defs.result;
    let property: { description?: string } | undefined;
    for (const key of path.split(".")) {
      property = deref(at).properties?.[key];
      if (property === undefined) return undefined;
      at = property;
    }
    return { ...deref(at), description: property?.description ?? deref(at).description };
  }

  test("every row's path is a figure of the schema, with a description, and its value a number", () => {
    const golden = JSON.parse(
      readFileSync(new URL("../../test/golden/result-reuse.json", import.meta.url), "utf8"),
    );
    for (const [name, figure] of Object.entries(FIGURES)) {
      const at = schemaAt(figure.path);
      assert.ok(at, `${name}: ${figure.path} is not in the result schema`);
      assert.ok(at.description, `${name}: ${figure.path} has no description in the schema`);
      // The HTML row's tooltip is that description, read from the definition.
      assert.equal(figureDescription(figure.path), at.description, `${name}: its tooltip`);
      assert.ok(["number", "integer"].includes(at.type), `${name}: ${figure.path} is no number`);
      // The golden run made no TLS handshake, ran no load model (so it has no accounting),
      // received nothing (--receive) and never reconnected.
      const absent = ["tls.", "accounting.", "delivery.", "connections.reconnects"];
      if (!absent.some((prefix) => figure.path.startsWith(prefix))) {
        assert.equal(typeof valueAt(golden, figure.path), "number", `${name} in the golden result`);
      }
    }
  });
});

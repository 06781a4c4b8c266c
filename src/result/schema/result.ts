/**
 * The Result of a run: the one definition of every figure mailvolley writes. The TypeScript
 * type (`Result` in result/result.ts is `Static<typeof ResultSchema>`) and the JSON Schema that
 * `npm run build` writes to schema/result.schema.json both come from here, and each figure's
 * `description` is its definition, written once: the reports' labels and docs/result.md quote
 * it, they do not restate it.
 *
 * To add a figure: add its property, with a description, to its section's file in this folder
 * (messages and connections: counts.ts; tls.ts, delivery.ts, sink.ts, generator.ts, series.ts,
 * classes.ts, errors.ts, context.ts for knee/run/thresholds, shard.ts), or a new section file
 * whose object goes below. `Type.Optional` for a figure that older results lack. Fill it where
 * the Result is assembled (result/summarise.ts, or a part in result/assemble.ts), then show it (see
 * docs/extending.md). The build regenerates the JSON Schema; test/result-schema.test.ts checks
 * real results against it and that every field there has a description.
 */
import { Type } from "@sinclair/typebox";
import { ClassResult } from "./classes.js";
import { Knee, RunRecord, ThresholdOutcome } from "./context.js";
import { Accounting, Connections, Messages, Recipients, Throughput } from "./counts.js";
import { def, enumOf, nullable, ref } from "./define.js";
import { AcceptLedger, DeliverySection } from "./delivery.js";
import { ErrorRow, FirstSeen } from "./errors.js";
import { Generator } from "./generator.js";
import {
  Count,
  ErrorClassCounts,
  Histogram,
  IsoTime,
  Latencies,
  LatencySummary,
  NonNegative,
  PositiveInteger,
} from "./kinds.js";
import { HISTOGRAM_NAMES, MODES, RESULT_SCHEMA, STOP_SIGNALS } from "./names.js";
import { RepeatSection } from "./repeat.js";
import { SeriesPoint } from "./series.js";
import { ShardHeader } from "./shard.js";
import { SinkSection } from "./sink.js";
import { TlsSection } from "./tls.js";
import { WarningsSection } from "./warnings.js";

const Sources = Type.Array(
  Type.Object(
    {
      className: Type.String({ description: "The message class that uses the files." }),
      kind: Type.String({ description: "eml, eml-dir, mbox or template." }),
      count: ref(Count, "Distinct messages loaded."),
      totalBytes: ref(Count, "Their bytes as sent."),
      longLines: ref(Count, "Lines over 998 octets, which servers may refuse."),
    },
    { additionalProperties: false },
  ),
  {
    description:
      "Message files loaded before the run, per class that uses them. Absent when every message is generated.",
  },
);

const Histograms = Type.Unsafe<Record<string, string>>({
  description:
    'The histograms behind `latency` and `latencyUncorrected` (keyed transaction, transactionUncorrected, connect, …), behind each class (keyed "class:NAME") and behind the two kinds of TLS handshake ("tls:full", "tls:resumed"), HDR compressed base64, microseconds.',
  type: "object",
  propertyNames: {
    anyOf: [
      { enum: [...HISTOGRAM_NAMES] },
      { pattern: "^class:" },
      {
        description: "The tls phase of full and of resumed handshakes (see tls).",
        enum: ["tls:full", "tls:resumed"],
      },
    ],
  },
  additionalProperties: ref(Histogram),
});

export const ResultSchema = def(
  "result",
  Type.Object(
    {
      schema: Type.Literal(RESULT_SCHEMA, { description: "This document's kind and version." }),
      mode: enumOf(
        MODES,
        "reuse: sessions stay open for many transactions; per-message: one connection a message.",
      ),
      run: Type.Optional(
        ref(
          RunRecord,
          "What was run: options, load, version, host, Node.js; absent in results saved before.",
        ),
      ),
      target: Type.String({
        description:
          'The target as given ("127.0.0.1:2525", "unix:/path"), "embedded-sink" for a self-test.',
      }),
      runId: Type.String({
        description: "Random id stamped into every message's X-Mailvolley-Run header.",
      }),
      startedAt: ref(IsoTime, "Wall-clock time of the first connect."),
      elapsedSeconds: ref(
        NonNegative,
        "Seconds from the first connect attempt to the last reply (or failure) of the run.",
      ),
      sessions: ref(
        Count,
        "Sessions kept open at once (-s); a shard's own part of them, so merged shards add up.",
      ),
      messages: Messages,
      accounting: Type.Optional(Accounting),
      recipients: Recipients,
      connections: Connections,
      throughput: Throughput,
      latencyUncorrected: Type.Object(
        {
          transactionMs: ref(
            LatencySummary,
            "Transaction latency from when a session wrote MAIL, accepted messages only.",
          ),
        },
        {
          description:
            "Latency without coordinated-omission correction: in the open model, transaction latency counted from when a session wrote MAIL rather than from the message's intended send time. Equal to `latency.transactionMs` in the closed model.",
          additionalProperties: false,
        },
      ),
      latency: ref(Latencies, "One latency summary per latency, milliseconds."),
      errors: Type.Array(ref(ErrorRow), {
        description:
          "Errors grouped by reply, enhanced code, phase and normalised text, most frequent first.",
      }),
      errorClasses: ref(ErrorClassCounts, "Error occurrences summed by class."),
      warnings: Type.Optional(WarningsSection),
      firstSeen: Type.Optional(
        Type.Array(ref(FirstSeen), {
          description:
            "Where each error class that occurred first appeared, earliest first: where a gateway's 421s or 450s started, with how many sessions open. Absent in results saved before it existed.",
        }),
      ),
      knee: Type.Optional(
        nullable(
          ref(Knee),
          "The knee: where success fell below 100%, the rate sent and accepted then, and the mean throughput while it stayed at 100%. null when no message settled; absent in results saved before it existed.",
        ),
      ),
      apdex: Type.Object(
        {
          satisfiedMs: ref(NonNegative, "T (--apdex): satisfied up to this latency, ms."),
          toleratingMs: ref(NonNegative, "4T: tolerating up to this latency, ms."),
        },
        {
          description:
            "The Apdex thresholds (satisfied ≤ T, tolerating ≤ 4T by the Apdex standard).",
          additionalProperties: false,
        },
      ),
      allClasses: ref(ClassResult, "The statistics table: every message of the run in one row."),
      classes: Type.Array(ref(ClassResult), {
        description:
          'One row per message class (a run without classes has the one class "default").',
      }),
      series: Type.Object(
        {
          intervalMs: ref(PositiveInteger, "The interval's length (--interval), ms."),
          points: Type.Array(ref(SeriesPoint), { description: "The intervals, in time order." }),
        },
        { description: "The time series: one point per interval.", additionalProperties: false },
      ),
      thresholds: Type.Optional(
        Type.Array(ref(ThresholdOutcome), {
          description:
            "Thresholds (--threshold) and whether each held; absent when none were given.",
        }),
      ),
      sources: Type.Optional(Sources),
      tls: Type.Optional(TlsSection),
      sink: Type.Optional(SinkSection),
      shard: Type.Optional(
        ref(
          ShardHeader,
          "A run with --shard or --start-at: which shard it was, the hash of its load, its host, its clocks and how late it started against --start-at. Absent in a run without either option.",
        ),
      ),
      shards: Type.Optional(
        Type.Array(ref(ShardHeader), {
          description:
            "A merged result: the header of each shard merged into it, by index; absent otherwise.",
        }),
      ),
      histograms: Histograms,
      generator: Type.Optional(
        ref(
          Generator,
          "The generator's own load and the verdict on who set the rate. Absent in results saved before it existed.",
        ),
      ),
      stoppedBy: Type.Optional(
        enumOf(
          STOP_SIGNALS,
          "The signal that stopped the run before its end (SIGINT: Ctrl-C; SIGTERM: timeout, systemd, docker stop, Kubernetes): the messages in flight got --grace, and the counts add up over what was sent. Absent when the run ended by itself.",
        ),
      ),
      delivery: Type.Optional(DeliverySection),
      repeat: Type.Optional(RepeatSection),
      acceptLedger: Type.Optional(
        Type.Array(AcceptLedger, {
          description:
            "Each message the gateway accepted, kept with --receive elsewhere: `report --arrivals` joins it with a sink's arrivals into `delivery`. One ledger per run; `merge` keeps one per shard.",
        }),
      ),
    },
    {
      description:
        "The Result of a run. Fields are only ever added under one schema name; it changes when a field changes meaning.",
      additionalProperties: false,
    },
  ),
);

/** The Result's counts and rates: `messages`, `recipients`, `connections`, `throughput`. */
import { Type } from "@sinclair/typebox";
import { nullable, ref } from "./define.js";
import { Count, EpochMs, NonNegative } from "./kinds.js";

export const Messages = Type.Object(
  {
    attempted: ref(
      Count,
      "Messages the run started (or could not start): accepted + rejected + failed + unconfirmed, always.",
    ),
    accepted: ref(Count, "The final reply to the message's data was 2xx."),
    rejected: ref(
      Count,
      "The server refused the message with a reply (4xx/5xx other than 421 to MAIL, to every RCPT, to DATA or to the final dot); the session went on.",
    ),
    failed: ref(
      Count,
      "No final verdict from the server, and the server cannot have taken the message: its data was not sent in full when the connection failed, closed, timed out or broke the protocol (or was cut by this client), a 421 ended the session, or the message was never started.",
    ),
    unconfirmed: Type.Optional(
      ref(
        Count,
        "The message's data (or its last BDAT chunk) was sent in full, but its final reply never came: the reply timed out, the connection closed or broke, or this client cut it. The server may have taken it (RFC 1047), so it is neither accepted nor failed; with --chunking every transaction of the window whose data was sent. A built-in sink's (or a gateway's) accepted count lies between accepted and accepted + unconfirmed. Absent in results written before it existed (read as 0).",
      ),
    ),
    dropped: ref(
      Count,
      "Open model: arrivals that no session could start within --max-delay (or beyond --max-queue waiting), like k6's dropped_iterations. 0 in the closed model.",
    ),
    scheduled: ref(Count, "Messages the load model scheduled: attempted + dropped."),
  },
  { description: "The run's messages by outcome.", additionalProperties: false },
);

export const Recipients = Type.Object(
  {
    attempted: ref(Count, "RCPT commands sent."),
    accepted: ref(Count, "RCPT commands answered 2xx."),
    rejected: ref(Count, "RCPT commands answered 4xx/5xx."),
  },
  {
    description: "RCPT commands sent, answered 2xx, answered 4xx/5xx.",
    additionalProperties: false,
  },
);

export const Connections = Type.Object(
  {
    opened: ref(Count, "TCP (or unix socket) connections attempted, successful or not."),
    established: ref(Count, "Connections that reached a 220 banner."),
    refused: ref(
      Count,
      "Connections refused before a 220: TCP failure, 421/554 or timeout at the banner.",
    ),
    reconnects: Type.Optional(
      ref(
        Count,
        'Sessions the client ended with QUIT to reconnect, after a 4xx to MAIL naming a per-session limit (enhanced code 4.5.3, or "too many messages") or after --reconnect-after-deferrals 4xx replies to MAIL in a row; a new connection takes over the remaining work. Absent in results written before it existed.',
      ),
    ),
    perMessage: ref(NonNegative, "connections.opened / messages.attempted."),
  },
  { description: "The run's connections.", additionalProperties: false },
);

const Plateau = Type.Object(
  {
    messagesPerSecond: ref(NonNegative, "Accepted messages per second over the plateau."),
    intervals: ref(Count, "Intervals the plateau spans."),
    fromMs: ref(EpochMs, "Start of the plateau, epoch ms."),
    toMs: ref(EpochMs, "End of the plateau, epoch ms."),
  },
  { additionalProperties: false },
);

export const Throughput = Type.Object(
  {
    messagesPerSecond: ref(NonNegative, "messages.accepted / elapsedSeconds: the whole-run mean."),
    plateau: nullable(
      Plateau,
      "The steady-state rate, without ramp-up, ramp-down and idle time. Over the time series: drop the first and the last interval (partial); take the median `accepted` of the intervals that accepted at least one message (idle intervals do not count toward it); then from each end drop intervals whose accepted count is below 90% of that median; plateau = accepted in what remains / its seconds. Dips inside the plateau stay in it. null when fewer than 3 intervals accepted anything or fewer than 3 remain.",
    ),
  },
  { description: "Accepted messages per second.", additionalProperties: false },
);

export const Accounting = Type.Object(
  {
    asked: nullable(
      ref(Count),
      "Messages the run was asked for: -m; in the open model with -d, the arrivals its schedule holds within the duration (the fewer, with -m too). null: a closed-model run for a duration (-d, or -m cut short by -d), which has no number, only as many as its sessions took.",
    ),
    started: ref(
      Count,
      "Messages a session took (MAIL written, or its connection failed first): each ended accepted, rejected, failed or unconfirmed. messages.attempted less unsent.",
    ),
    unsent: ref(
      Count,
      "Messages asked for that no session started because every session gave up (the target refused or closed every connection) before the load model ran out: arrivals of the schedule not yet due or still queued, or the rest of -m. Also counted in messages.failed and in the error row unsent.",
    ),
    dropped: ref(Count, "Open model: arrivals no session started in time (messages.dropped)."),
    stopped: ref(
      Count,
      "Messages asked for and never handed out because the run was told to stop first (SIGINT, SIGTERM, --abort-on-fail): neither attempted nor failed.",
    ),
    endedEarly: Type.Boolean({
      description:
        "The load ended before its -m, -d or schedule did, neither stopped nor finished: every session gave up (each slot after --reconnect-attempts sessions in a row ended without a message, or at its first connect timeout when no connection had got through). What was left is unsent.",
    }),
  },
  {
    description:
      "Where every message the run was asked for went: asked = started + unsent + dropped + stopped (docs/reading-results-verdict.md). Absent in results saved before it existed.",
    additionalProperties: false,
  },
);

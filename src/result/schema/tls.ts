/** The Result's `tls`: present when the run made at least one TLS handshake. */
import { Type } from "@sinclair/typebox";
import { ref } from "./define.js";
import { Count, LatencySummary } from "./kinds.js";

export const TlsSection = Type.Object(
  {
    full: ref(Count, "Handshakes that negotiated a new session (certificate and key exchange)."),
    resumed: ref(
      Count,
      "Handshakes the server resumed from a session ticket or session ID (TLS 1.2) or a PSK ticket (TLS 1.3).",
    ),
    fullMs: ref(LatencySummary, "The `tls` phase latency of full handshakes only."),
    resumedMs: ref(LatencySummary, "The `tls` phase latency of resumed handshakes only."),
    seen: Type.Array(
      Type.Object(
        {
          version: Type.String({ description: "As node:tls names it, e.g. TLSv1.3." }),
          cipher: Type.String({ description: "The OpenSSL or IANA cipher name." }),
          count: ref(Count, "Handshakes that negotiated this version and cipher."),
        },
        { additionalProperties: false },
      ),
      {
        description:
          "Protocol version and cipher as negotiated, with how many handshakes each, most first.",
      },
    ),
  },
  {
    description:
      "TLS handshakes (--starttls, --tls-on-connect), absent when the run made none. Each session offers the ticket of its previous connection unless --no-tls-resume.",
    additionalProperties: false,
  },
);

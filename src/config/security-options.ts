/**
 * The TLS and AUTH rows of the option table (config/option-table.ts), which `run`, `compare`
 * and `probe` share.
 */
import type { OptionTable } from "./option-rows.js";

/** TLS and AUTH, as `run` and `probe` take them (config/run-config.ts parseSecurity). */
export const SECURITY_OPTIONS = {
  starttls: {
    kind: "flag",
    group: "TLS and AUTH:",
    describe: "STARTTLS after EHLO (RFC 3207); the handshake is timed as its own phase",
  },
  "tls-on-connect": {
    kind: "flag",
    group: "TLS and AUTH:",
    describe: "TLS from the first byte (implicit TLS, port 465 style)",
  },
  "tls-resume": {
    kind: "flag",
    group: "TLS and AUTH:",
    describe:
      "Resume TLS sessions (tickets, session IDs, TLS 1.3 PSK) as a bulk MTA does: each session offers the ticket of its previous connection. --no-tls-resume: a full handshake every time, as independent submitters",
    shown: "on",
  },
  "tls-verify": {
    kind: "flag",
    group: "TLS and AUTH:",
    describe:
      "Check the server certificate and name. Off by default: test gateways mostly have self-signed certificates; turn it on to test a real TLS setup",
    shown: "off",
  },
  "tls-servername": {
    kind: "text",
    takes: "host name",
    group: "TLS and AUTH:",
    describe: "SNI name (and the name checked with --tls-verify)",
    shown: "the target host",
  },
  auth: {
    kind: "text",
    takes: "user:password",
    secret: true,
    group: "TLS and AUTH:",
    describe: "AUTH as user:password after EHLO (and STARTTLS); visible in ps, see --auth-file",
  },
  "auth-file": {
    kind: "text",
    takes: "file",
    group: "TLS and AUTH:",
    describe: "Read user:password from the first line of FILE (or from env MAILVOLLEY_AUTH)",
  },
  "auth-mechanism": {
    kind: "text",
    takes: "plain|login",
    group: "TLS and AUTH:",
    describe: "plain or login",
    shown: "PLAIN when offered, else LOGIN",
  },
} as const satisfies OptionTable;

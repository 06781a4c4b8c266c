/** TLS and AUTH options, as `run` and `probe` take them, checked. */
import type { SECURITY_OPTIONS } from "./option-table.js";
import type { RawOf } from "./options.js";
import { ConfigError, parseChoice, parseLine } from "./parse.js";

/** --starttls, --tls-on-connect, --tls-verify, --tls-servername, --auth, --auth-mechanism. */
export type RawSecurityOptions = RawOf<typeof SECURITY_OPTIONS>;

/** TLS and AUTH as a connection needs them (run and probe). */
export interface SecuritySettings {
  /** none, STARTTLS after EHLO (RFC 3207), or TLS from the first byte (implicit, port 465). */
  readonly tls: "none" | "starttls" | "implicit";
  /** Check the server's certificate and name (off by default: load tests meet test certs). */
  readonly tlsVerify: boolean;
  /** SNI and the name checked with --tls-verify; default: the target host. */
  readonly tlsServername: string | null;
  /** AUTH (RFC 4954) after EHLO (and after STARTTLS), or null. */
  readonly auth: {
    readonly user: string;
    readonly pass: string;
    readonly mechanism: "PLAIN" | "LOGIN" | null;
  } | null;
}

/** TLS and AUTH options, checked (see RawSecurityOptions). */
export function parseSecurity(raw: RawSecurityOptions): SecuritySettings {
  if (raw.starttls && raw.tlsOnConnect) {
    throw new ConfigError(
      "--tls-on-connect",
      "give either --starttls or --tls-on-connect, not both",
    );
  }
  return {
    tls: raw.tlsOnConnect ? "implicit" : raw.starttls ? "starttls" : "none",
    tlsVerify: Boolean(raw.tlsVerify),
    tlsServername:
      raw.tlsServername === undefined ? null : parseLine("--tls-servername", raw.tlsServername),
    auth: parseAuth(raw.auth, raw.authMechanism),
  };
}

/** `--auth user:password`; the mechanism is PLAIN or LOGIN, or chosen from the server's offer. */
function parseAuth(raw: unknown, mechanism: unknown): SecuritySettings["auth"] {
  if (raw === undefined) {
    if (mechanism !== undefined)
      throw new ConfigError("--auth-mechanism", "goes with --auth user:password");
    return null;
  }
  const text = String(raw);
  const colon = text.indexOf(":");
  if (colon <= 0) throw new ConfigError("--auth", `"${text}" is not user:password`);
  const mech =
    mechanism === undefined
      ? null
      : parseChoice("--auth-mechanism", String(mechanism).toUpperCase(), [
          "PLAIN",
          "LOGIN",
        ] as const);
  return Object.freeze({
    user: text.slice(0, colon),
    pass: text.slice(colon + 1),
    mechanism: mech,
  });
}

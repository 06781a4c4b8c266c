/** TLS and AUTH options, as `run` and `probe` take them, checked. */
import { readInputFileSync } from "../usage/input-file.js";
import { UsageError } from "../usage/usage-error.js";
import type { RawOf } from "./option-rows.js";
import type { SECURITY_OPTIONS } from "./option-table.js";
import { parseChoice, parseLine, type Target } from "./parse.js";

/** --starttls, --tls-on-connect, --tls-verify, --tls-servername, --auth, --auth-mechanism. */
export type RawSecurityOptions = RawOf<typeof SECURITY_OPTIONS>;

/** TLS and AUTH as a connection needs them (run and probe). */
export interface SecuritySettings {
  /** none, STARTTLS after EHLO (RFC 3207), or TLS from the first byte (implicit, port 465). */
  readonly tls: "none" | "starttls" | "implicit";
  /**
   * Offer the server the TLS session of the connection before (ticket or session ID) so it may
   * resume it; false (--no-tls-resume): a full handshake on every connection.
   */
  readonly tlsResume: boolean;
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

/** The environment variable that may hold user:password, so it is not in argv (and ps). */
export const AUTH_ENV = "MAILVOLLEY_AUTH";

/** TLS and AUTH options, checked (see RawSecurityOptions); `env` may give the credentials. */
export function parseSecurity(
  raw: RawSecurityOptions,
  env: Readonly<Record<string, string | undefined>> = process.env,
): SecuritySettings {
  if (raw.starttls && raw.tlsOnConnect) {
    throw new UsageError(
      "--tls-on-connect",
      "give either --starttls or --tls-on-connect, not both",
    );
  }
  if (!raw.starttls && !raw.tlsOnConnect) refuseTlsOnlyOptions(raw);
  return {
    tls: raw.tlsOnConnect ? "implicit" : raw.starttls ? "starttls" : "none",
    tlsResume: raw.tlsResume !== false,
    tlsVerify: Boolean(raw.tlsVerify),
    tlsServername:
      raw.tlsServername === undefined ? null : parseLine("--tls-servername", raw.tlsServername),
    auth: parseAuth(credentials(raw, env), raw.authMechanism),
  };
}

/** The --auth-file as an input (usage/input-file.ts): read ahead by the CLI, then here. */
export const AUTH_FILE_INPUT = { option: "--auth-file", what: "file of user:password" } as const;

/** The options that only shape a TLS connection do nothing on a plaintext one: say so. */
function refuseTlsOnlyOptions(raw: RawSecurityOptions): void {
  const given = [
    ["--tls-verify", raw.tlsVerify === true],
    ["--no-tls-resume", raw.tlsResume === false],
    ["--tls-servername", raw.tlsServername !== undefined],
  ] as const;
  for (const [flag, isGiven] of given) {
    if (isGiven) {
      throw new UsageError(
        flag,
        "applies to TLS, and this run speaks none: add --starttls or --tls-on-connect",
      );
    }
  }
}

/** user:password from --auth, --auth-file or MAILVOLLEY_AUTH, with the option it came from. */
function credentials(
  raw: RawSecurityOptions,
  env: Readonly<Record<string, string | undefined>>,
): { text: string; option: string } | undefined {
  if (raw.auth !== undefined && raw.authFile !== undefined) {
    throw new UsageError("--auth-file", "give either --auth or --auth-file, not both");
  }
  if (raw.auth !== undefined) return { text: String(raw.auth), option: "--auth" };
  if (raw.authFile !== undefined) {
    // Read while the config is checked, so synchronously: a pipe the command did not read
    // ahead (cli/named-inputs.ts) is refused, never waited on.
    const text = readInputFileSync(String(raw.authFile), AUTH_FILE_INPUT).toString("utf8");
    return { text: text.split(/\r?\n/)[0], option: "--auth-file" };
  }
  const fromEnv = env[AUTH_ENV];
  return fromEnv ? { text: fromEnv, option: AUTH_ENV } : undefined;
}

/**
 * A warning when AUTH would go over plaintext TCP (no TLS; a self-test or a unix socket stays on
 * this machine), else null. Printed once per command, before the traffic.
 */
export function plaintextAuthWarning(
  settings: SecuritySettings,
  target: Target | null,
): string | null {
  if (settings.auth === null || settings.tls !== "none" || target === null) return null;
  if (target.kind === "unix") return null;
  return (
    "AUTH goes over plaintext: the password crosses the network unencrypted;" +
    " add --starttls or --tls-on-connect"
  );
}

/** `--auth user:password`; the mechanism is PLAIN or LOGIN, or chosen from the server's offer. */
function parseAuth(
  given: { text: string; option: string } | undefined,
  mechanism: unknown,
): SecuritySettings["auth"] {
  if (given === undefined) {
    if (mechanism !== undefined)
      throw new UsageError("--auth-mechanism", "goes with --auth user:password");
    return null;
  }
  const { text, option } = given;
  const colon = text.indexOf(":");
  if (colon <= 0) {
    // The text may hold the password (a missing colon does not make it less secret, and a
    // terminal, a CI log or a bug report keeps what an error prints): never echo it.
    const shown = option === "--auth-file" ? "its first line" : "its value";
    throw new UsageError(option, `${shown} is not user:password`);
  }
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

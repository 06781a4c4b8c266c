/** The service extensions a server advertised in its EHLO (or LHLO) reply (RFC 5321 §4.1.1.1). */
export interface Capabilities {
  readonly pipelining: boolean;
  readonly chunking: boolean;
  readonly starttls: boolean;
  readonly eightBitMime: boolean;
  readonly enhancedStatusCodes: boolean;
  readonly smtpUtf8: boolean;
  readonly dsn: boolean;
  /** XVERP (Postfix's variable envelope return paths, a MAIL parameter). */
  readonly xverp: boolean;
  /** SIZE limit in octets; 0 when SIZE was advertised without a limit, -1 when not at all. */
  readonly size: number;
  /** AUTH mechanisms, upper case. */
  readonly auth: readonly string[];
}

/** What a server that answered HELO (or nothing usable) offers: nothing. */
export const NO_CAPABILITIES: Capabilities = Object.freeze({
  pipelining: false,
  chunking: false,
  starttls: false,
  eightBitMime: false,
  enhancedStatusCodes: false,
  smtpUtf8: false,
  dsn: false,
  xverp: false,
  size: -1,
  auth: Object.freeze([]),
});

/**
 * Parses the lines of a 250 EHLO reply. The first line is the greeting; each later line is a
 * keyword and its parameters, keywords case-insensitive.
 */
export function parseCapabilities(lines: readonly string[]): Capabilities {
  const caps = { ...NO_CAPABILITIES, auth: [] as string[] };
  for (let i = 1; i < lines.length; i++) {
    const words = lines[i].trim().split(/[ =]+/);
    const keyword = words[0].toUpperCase();
    switch (keyword) {
      case "PIPELINING":
        caps.pipelining = true;
        break;
      case "CHUNKING":
        caps.chunking = true;
        break;
      case "STARTTLS":
        caps.starttls = true;
        break;
      case "8BITMIME":
        caps.eightBitMime = true;
        break;
      case "ENHANCEDSTATUSCODES":
        caps.enhancedStatusCodes = true;
        break;
      case "SMTPUTF8":
        caps.smtpUtf8 = true;
        break;
      case "DSN":
        caps.dsn = true;
        break;
      case "XVERP":
        caps.xverp = true;
        break;
      case "SIZE": {
        const limit = Number.parseInt(words[1] ?? "0", 10);
        caps.size = Number.isFinite(limit) && limit > 0 ? limit : 0;
        break;
      }
      case "AUTH":
        for (const mech of words.slice(1)) if (mech) caps.auth.push(mech.toUpperCase());
        break;
    }
  }
  return Object.freeze(caps);
}

/**
 * The keyword lines of the last two EHLO replies parsed on this thread, and what they offered:
 * over STARTTLS every connection gets two different replies (STARTTLS offered before the
 * handshake, not after it, RFC 3207 §4.2), so one remembered reply would miss on both.
 */
const remembered: { keywords: readonly string[]; caps: Capabilities }[] = [
  { keywords: [], caps: NO_CAPABILITIES },
  { keywords: [], caps: NO_CAPABILITIES },
];
/** The entry the next new reply replaces: the older of the two. */
let older = 0;

/**
 * parseCapabilities, remembering the last replies: a gateway answers every connection's EHLO
 * with the same keywords, so in connection-per-message mode each connection after the first
 * costs a comparison of its lines instead of a split, a regex and upper-casing per line. The
 * first line (the greeting, which may name the client) is not compared; it offers nothing.
 */
export function capabilitiesOf(lines: readonly string[]): Capabilities {
  for (const entry of remembered) if (sameKeywords(lines, entry.keywords)) return entry.caps;
  const entry = remembered[older];
  older = 1 - older;
  entry.caps = parseCapabilities(lines);
  entry.keywords = lines;
  return entry.caps;
}

function sameKeywords(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length || a.length === 0) return false;
  for (let i = 1; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

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

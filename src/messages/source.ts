/**
 * What every message source offers the client: content ready to send after DATA's 354, chosen
 * by the message's sequence number in the run. Sources are loaded whole, before the run.
 */

import { UsageError } from "../usage/usage-error.js";

export interface MessageContent {
  /** Dot-stuffed, CRLF line ends, ends with CRLF; does NOT include the final ".\r\n". */
  readonly bytes: Buffer;
  /** The Subject header's value if the content has one (for per-class reporting at the sink). */
  readonly subject?: string;
}

export interface TemplateVars {
  seq: number;
  className: string;
  epochMs: number;
}

export type SourceKind = "eml" | "eml-dir" | "mbox" | "template";
export type SourceOrder = "sequential" | "random";

export interface MessageSource {
  readonly kind: SourceKind;
  /** Distinct messages loaded (a template counts as one). */
  readonly count: number;
  /**
   * Their total size as sent (dot-stuffed, CRLF, without the final dot). A template's size
   * varies per message: it counts its literal octets only, placeholders as zero.
   */
  readonly totalBytes: number;
  /**
   * Lines longer than 998 octets before their CRLF, over all messages loaded, not counting a
   * dot added by dot-stuffing (RFC 5321 §4.5.3.1.6). Kept as they are; the CLI may warn, as
   * servers may reject or split such lines.
   */
  readonly longLines: number;
  readonly order: SourceOrder;
  /** The seed of the random order (given or drawn at load), so a run can be repeated. */
  readonly seed?: number;
  /** The content to send as message number `seq` (0-based in the run). */
  content(seq: number, vars: TemplateVars): MessageContent;
}

/**
 * A file that cannot serve as a source (or a plan whose shares are too fine to cycle over).
 * The message is one line: the file, the line if known, what is wrong, and the fix.
 */
export class SourceError extends UsageError {
  constructor(
    readonly file: string,
    problem: string,
    readonly line?: number,
  ) {
    // The file stands where other usage errors name their option; the CLI prints it alike.
    super(`${file}${line === undefined ? "" : `:${line}`}`, problem);
    this.name = "SourceError";
  }
}

/**
 * Warnings: replies that bend a rule in a way mailvolley can safely accept, so the session goes
 * on and no message is failed for them, yet the user should hear of them (a server that does
 * it will trip stricter clients). Each is counted under a stable code, with the first reply
 * that showed it, over every thread and every merged shard.
 */

/** Every warning code, with what it means in words: the reports print this text. */
export const WARNINGS = {
  "rset-status":
    "RSET answered with an address status (X.1.Y, which RFC 3463 gives MAIL and RCPT), as Postfix smtp-sink does; accepted",
} as const;

export type WarningCode = keyof typeof WARNINGS;

/** One warning code's count as a thread hands it back and as shards merge. */
export interface WarningCount {
  code: string;
  count: number;
  /** The first reply that showed it, code and text, as received. */
  firstReply: string;
  /** A saved result's description, kept for a code this version does not know. */
  description?: string;
}

/** The Result's `warnings` rows: a code's count, its meaning and the first reply. */
export interface WarningRow extends WarningCount {
  /** What the code means (WARNINGS in stats/warnings.ts). */
  description: string;
}

/** One thread's warnings. The hot path never gets here: only a quirk's reply does. */
export class WarningTally {
  private readonly rows = new Map<string, WarningCount>();

  record(code: WarningCode, reply: string): void {
    const row = this.rows.get(code);
    if (row) row.count++;
    else this.rows.set(code, { code, count: 1, firstReply: reply });
  }

  snapshot(): WarningCount[] | undefined {
    return this.rows.size === 0 ? undefined : [...this.rows.values()].map((row) => ({ ...row }));
  }
}

/**
 * Several threads' or shards' warnings as one: counts add per code; the first reply is the
 * first part's that has the code (threads and shards are in their own order, not in time).
 */
export function mergeWarnings(
  parts: readonly (readonly WarningCount[] | undefined)[],
): WarningCount[] | undefined {
  const byCode = new Map<string, WarningCount>();
  for (const part of parts) {
    for (const row of part ?? []) {
      const have = byCode.get(row.code);
      if (have) have.count += row.count;
      else byCode.set(row.code, { ...row });
    }
  }
  return byCode.size === 0 ? undefined : [...byCode.values()];
}

/** The Result's rows, most frequent first, each with its description. */
export function warningRows(counts: readonly WarningCount[]): WarningRow[] {
  return [...counts]
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code))
    .map(({ code, count, firstReply, description }) => ({
      code,
      description: (WARNINGS as Record<string, string>)[code] ?? description ?? "",
      count,
      firstReply,
    }));
}

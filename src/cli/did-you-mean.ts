/**
 * "Did you mean": the closest known command or option to a mistyped one, as git and cargo say
 * it. Candidates within two edits (insert, delete, substitute, swap of neighbours), or one
 * the typed word is a prefix of.
 */

/** Edits between `a` and `b` (optimal string alignment distance). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/** The closest candidate to `typed`, or null when none is close enough to suggest. */
export function closest(typed: string, candidates: readonly string[]): string | null {
  const word = typed.toLowerCase();
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate.length < 2) continue;
    const distance = editDistance(word, candidate.toLowerCase());
    const limit = Math.min(2, Math.floor(candidate.length / 3));
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best !== null || word.length < 3) return best;
  const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(word));
  return prefixed.length === 1 ? prefixed[0] : null;
}

/**
 * yargs' "Unknown argument(s): a, b" with a suggestion for each word it can place: a command
 * when no command was given yet, else an option of the command.
 */
export function withSuggestions(
  message: string,
  known: { commands: readonly string[]; options: readonly string[]; commandGiven: boolean },
): string {
  const m = message.match(/^Unknown arguments?: (.+)$/);
  if (!m) return message;
  const hints = m[1].split(", ").flatMap((word) => {
    if (!known.commandGiven) {
      const command = closest(word, known.commands);
      return command ? [`did you mean the command ${command}?`] : [];
    }
    const option = closest(word.replace(/^-+/, ""), known.options);
    return option ? [`did you mean --${option}?`] : [];
  });
  return hints.length > 0 ? `${message}; ${hints.join("; ")}` : message;
}

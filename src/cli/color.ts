/**
 * Whether a report is coloured: on a terminal, unless NO_COLOR (https://no-color.org) is set;
 * FORCE_COLOR forces it anywhere (as chalk and most Node tools read it). `--no-color` and
 * `--color` set these for the process (main.ts).
 */
export function colorWanted(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force !== "false";
  return Boolean(stream.isTTY);
}

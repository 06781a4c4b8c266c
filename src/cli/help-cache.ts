/**
 * yargs renders a command's whole help right after calling its handler, and keeps it for a
 * failure message that main.ts's .fail() replaces with one line: 50–80 ms of CPU before a run's
 * first connect. skipHelpCache turns that cache off on one instance; --help
 * renders as it always did. It reaches into yargs' internal methods (yargs 17 and 18), and does
 * nothing where they are missing (test/help-cache.test.ts notices).
 */
type Usage = { cacheHelpMessage?: () => void };

export function skipHelpCache(cli: unknown): void {
  const internal = (cli as { getInternalMethods?(): { getUsageInstance(): Usage } })
    .getInternalMethods;
  const usage = internal?.call(cli).getUsageInstance();
  if (typeof usage?.cacheHelpMessage === "function") usage.cacheHelpMessage = () => {};
}

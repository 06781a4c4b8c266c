/**
 * What can be known of a run's addresses before its first connection: the target's name
 * resolves, and each --source address is one of this host's. Either failing is bad input, one
 * line and exit 2, where the run would otherwise open every session into the same ENOTFOUND or
 * EADDRNOTAVAIL and report a load that never left the machine.
 */
import { lookup } from "node:dns/promises";
import { createServer, isIP } from "node:net";
import { UsageError } from "../usage/usage-error.js";
import type { Target } from "./parse.js";

/** The target resolves within `timeoutMs` and every source address can be bound here. */
export async function checkAddresses(
  target: Target | null,
  sources: readonly string[],
  timeoutMs: number,
): Promise<void> {
  await Promise.all([
    target?.kind === "tcp" ? checkResolves(target.host, timeoutMs) : undefined,
    ...[...new Set(sources)].map(checkLocal),
  ]);
}

/** getaddrinfo's answer for the host, as the connections will ask it. */
async function checkResolves(host: string, timeoutMs: number): Promise<void> {
  if (isIP(host) !== 0) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), timeoutMs);
  });
  try {
    const answer = await Promise.race([lookup(host, { all: true }), late]);
    if (answer === "late") {
      throw new UsageError(
        "target",
        `no DNS answer for "${host}" within ${timeoutMs / 1000} s (--timeout-connect); check the name and the resolver`,
      );
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const why =
      code === "ENOTFOUND"
        ? "does not resolve (ENOTFOUND)"
        : code === "EAI_AGAIN"
          ? "could not be resolved now (EAI_AGAIN: the DNS server did not answer)"
          : `could not be resolved (${code})`;
    throw new UsageError("target", `"${host}" ${why}; check the host name`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Binding a listener to the address is the kernel's own answer to whether a connection may
 * come from it (EADDRNOTAVAIL otherwise); a list of the interfaces' addresses would miss
 * 127.0.0.0/8 beyond 127.0.0.1, which Linux routes locally.
 */
function checkLocal(address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => {
      const why =
        error.code === "EADDRNOTAVAIL"
          ? "is not an address of this host (EADDRNOTAVAIL)"
          : `cannot be used here (${error.code ?? error.message})`;
      reject(
        new UsageError(
          "--source",
          `"${address}" ${why}; give addresses of this host's interfaces (ip -brief address)`,
        ),
      );
    });
    server.listen(0, address, () => server.close(() => resolve()));
  });
}

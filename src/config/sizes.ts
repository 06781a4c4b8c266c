/**
 * Message sizes as users write them: `1024`, `10k`, `10K`, `10KB`, `10KiB`, `1.5k`, `1m`, `1MB`,
 * `1MiB` (every unit binary: k = 1024, as Postfix and smtp-source count), or a distribution
 * `512:60,10k:30,1m:10` (size:weight, weights relative; the shares are kept exact like class
 * shares). One parser for --size, probe's --size and a plan class's `size:`.
 */
import { UsageError } from "../usage/usage-error.js";

/** The largest body a run generates: 1 GiB. */
export const MAX_SIZE = 1 << 30;

const UNITS: Record<string, number> = { "": 1, k: 1024, m: 1024 * 1024, g: 1024 ** 3 };
const EXAMPLES = "give e.g. 1024, 10k, 1.5MiB or 512:60,10k:40";

/** One size in octets. */
export function parseOctets(option: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(?:([kmg])(?:i?b)?)?$/i.exec(text.trim());
  if (!match) throw new UsageError(option, `"${text.trim()}" is not a size; ${EXAMPLES}`);
  const size = Math.round(Number(match[1]) * UNITS[(match[2] ?? "").toLowerCase()]);
  if (size > MAX_SIZE) throw new UsageError(option, `${size} octets is over the 1 GiB limit`);
  if (size === 1) {
    throw new UsageError(option, "a body of 1 octet cannot end with CRLF; give 0 or at least 2");
  }
  return size;
}

/** A size or a distribution of sizes with weights. */
export function parseSizes(option: string, text: string): { size: number; weight: number }[] {
  const parts = text.split(",");
  const weighted = parts.filter((part) => part.includes(":")).length;
  if (weighted > 0 && weighted < parts.length) {
    const bare = parts.find((part) => !part.includes(":"));
    throw new UsageError(
      option,
      `"${bare}" has no weight; give every size one (512:60,10k:40) or none (512,10k)`,
    );
  }
  return parts.map((part) => {
    const [sizeText, weightText, ...rest] = part.split(":");
    if (rest.length > 0)
      throw new UsageError(option, `"${part}" has more than one ":"; ${EXAMPLES}`);
    const size = parseOctets(option, sizeText);
    const weight = weightText === undefined ? 1 : Number(weightText);
    if (!(weight > 0) || Math.round(weight * 100) !== weight * 100) {
      throw new UsageError(
        option,
        `weight "${weightText}" must be a positive number with at most 2 decimals`,
      );
    }
    return { size, weight };
  });
}

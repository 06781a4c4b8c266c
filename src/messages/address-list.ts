/** Sender and recipient lists: one address per line, as MAIL FROM / RCPT TO will carry them. */
import { readSourceFile } from "./content.js";
import { SourceError } from "./source.js";

/** RFC 5321 §4.5.3.1.3: a path is at most 256 octets including the angle brackets. */
const MAX_ADDRESS = 254;

/**
 * Lines are trimmed; empty lines and lines whose first non-blank character is `#` are skipped
 * (`#` inside an address is legal, RFC 5322 §3.2.3 atext, so it starts a comment only at the
 * start of a line). An address has no spaces, control characters, `<` or `>`; it is sent as
 * written, so case and any non-ASCII (SMTPUTF8) are kept. A list with no address is an error.
 */
export async function loadAddressList(path: string): Promise<string[]> {
  const text = (await readSourceFile(path, "address list")).toString("utf8");
  const addresses: string[] = [];
  const lines = text.split(/\r\n|\n|\r/);
  for (let i = 0; i < lines.length; i++) {
    const address = lines[i].trim();
    if (address === "" || address.startsWith("#")) continue;
    const problem = addressProblem(address);
    if (problem) throw new SourceError(path, problem, i + 1);
    addresses.push(address);
  }
  if (addresses.length === 0) {
    throw new SourceError(
      path,
      "holds no address; write one address per line, e.g. user@example.com",
    );
  }
  return addresses;
}

function addressProblem(address: string): string | undefined {
  const shown = JSON.stringify(address);
  if (/[<>]/.test(address)) {
    return `${shown} has angle brackets; write the address alone, e.g. user@example.com`;
  }
  if (/\s/.test(address)) {
    return `${shown} has a space; write one address per line, comments on lines of their own`;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\x00-\x1f\x7f]/.test(address)) {
    return `${shown} has a control character; remove it`;
  }
  if (Buffer.byteLength(address) > MAX_ADDRESS) {
    return `address of ${Buffer.byteLength(address)} octets is longer than SMTP allows (${MAX_ADDRESS}); shorten it`;
  }
  return undefined;
}

/** The -v conversation: what the first session writes and reads, one line each. */

const CRLF = "\r\n";

/** Prints commands and headers; a message's body is shown as its size. */
export function traceWrite(trace: (line: string) => void, buf: Buffer): void {
  const text = buf.toString("latin1");
  const bdat = /BDAT (\d+) LAST\r\n/.exec(text);
  if (bdat) {
    // RFC 3030: the chunk follows its command line; show the commands and the chunk's size.
    for (const line of text.slice(0, bdat.index).split(CRLF)) if (line) trace(`> ${line}`);
    trace(`> BDAT ${bdat[1]} LAST`);
    trace(`> [message: ${bdat[1]} octets]`);
    return;
  }
  const headerEnd = text.indexOf("\r\n\r\n");
  const dataEnd = text.lastIndexOf("\r\n.\r\n");
  let shown = text;
  if (headerEnd !== -1 && dataEnd !== -1) {
    const bodyOctets = dataEnd + 2 - (headerEnd + 4);
    shown = `${text.slice(0, headerEnd + 2)}\r\n[body: ${bodyOctets} octets]\r\n${text.slice(dataEnd + 2)}`;
  }
  for (const line of shown.split(CRLF)) if (line) trace(`> ${line}`);
}

export function traceReply(
  trace: (line: string) => void,
  code: number,
  lines: string[] | null,
): void {
  const all = lines ?? [""];
  all.forEach((line, i) => {
    trace(`< ${code}${i < all.length - 1 ? "-" : " "}${line}`);
  });
}

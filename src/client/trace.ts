/** The -v conversation: what the first session writes and reads, one line each. */

const CRLF = "\r\n";

/** Prints commands and headers; a message's body is shown as its size. */
export function traceWrite(trace: (line: string) => void, buf: Buffer): void {
  const text = buf.toString("latin1");
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

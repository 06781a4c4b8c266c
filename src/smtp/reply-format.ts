/**
 * Writing an SMTP reply line (RFC 5321 §4.2): `code SP text CRLF`, with an enhanced status code
 * (RFC 3463) after the code when the server advertised ENHANCEDSTATUSCODES (RFC 2034 §3).
 */

/** `code enhanced text\r\n`, or `code text\r\n` when enhanced codes are off (or none is given). */
export function formatReply(
  code: number,
  enhanced: string,
  text: string,
  withEnhanced: boolean,
): Buffer {
  const line = withEnhanced && enhanced !== "" ? `${code} ${enhanced} ${text}` : `${code} ${text}`;
  return Buffer.from(`${line}\r\n`, "utf8");
}

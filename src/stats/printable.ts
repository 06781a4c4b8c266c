/**
 * Server text made safe for a terminal. A reply line may carry any byte but CR and LF: an
 * escape sequence in a 550's text would retitle the terminal, clear it, or print a fake line
 * when shown raw. Every C0 control (tab too), DEL and C1 control becomes a visible `\xNN`; the
 * HTML report escapes for its own medium.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

const LEFT_RAW_BY_JSON = /[\x7f-\x9f]/g;

/**
 * JSON text (from JSON.stringify) with DEL and the C1 controls written as `\u` escapes too:
 * JSON.stringify escapes the C0 controls only, and a terminal acts on U+009B (CSI) as on
 * ESC [ when `cat` shows the file. The value parsed back is the same.
 */
export function jsonPrintable(json: string): string {
  return json.replace(
    LEFT_RAW_BY_JSON,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

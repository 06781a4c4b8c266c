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

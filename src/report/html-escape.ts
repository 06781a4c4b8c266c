import { printable } from "../stats/printable.js";

/**
 * Text for HTML element content and attribute values. Control characters are shown as the
 * terminal shows them (`\x1b`, stats/printable.ts): HTML escaping leaves them raw, and
 * `cat report.html` would then retitle or clear the terminal with a server's escape sequence.
 */
export function esc(text: string): string {
  return printable(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

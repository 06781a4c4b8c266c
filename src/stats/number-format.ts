/**
 * Numbers as en-US writes them, "50,000" and "1,234.5": what `toLocaleString("en-US", …)` gives,
 * to the character (test/number-format.test.ts), without ICU. Each toLocaleString call with
 * options builds an Intl.NumberFormat, and the first loads ICU's data: about 6 ms of a run's end,
 * cold, where its report and its record format a few dozen numbers.
 */

/**
 * `value` with thousands separated by commas and between `minDigits` and `maxDigits` decimals,
 * rounded half away from zero on the shortest decimal that reads back as `value` (as ICU does,
 * so 1.005 rounds to 1.01 where toFixed(2) says 1.00).
 */
export function grouped(value: number, minDigits: number, maxDigits: number): string {
  const text = Math.abs(value).toString();
  // Exponent forms (≥ 1e21, < 1e-6), NaN and Infinity: rare enough to leave to ICU.
  if (!Number.isFinite(value) || text.includes("e")) {
    return value.toLocaleString("en-US", {
      minimumFractionDigits: minDigits,
      maximumFractionDigits: maxDigits,
    });
  }
  const point = text.indexOf(".");
  let whole = point < 0 ? text : text.slice(0, point);
  let fraction = point < 0 ? "" : text.slice(point + 1);
  if (fraction.length > maxDigits) {
    const roundUp = fraction.charCodeAt(maxDigits) >= 53; // "5"
    fraction = fraction.slice(0, maxDigits);
    if (roundUp) [whole, fraction] = increment(whole, fraction);
  }
  fraction = fraction.replace(/0+$/, "");
  fraction = fraction.padEnd(minDigits, "0");
  const sign = value < 0 || Object.is(value, -0) ? "-" : "";
  const withCommas = whole.replace(/\B(?=(\d{3})+$)/g, ",");
  return `${sign}${withCommas}${fraction.length > 0 ? `.${fraction}` : ""}`;
}

/** whole.fraction plus one unit in the fraction's last place, as decimal strings. */
function increment(whole: string, fraction: string): [string, string] {
  const digits = (whole + fraction).split("");
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === "9") digits[i--] = "0";
  if (i < 0) digits.unshift("1");
  else digits[i] = String(Number(digits[i]) + 1);
  const cut = digits.length - fraction.length;
  return [digits.slice(0, cut).join(""), digits.slice(cut).join("")];
}

/**
 * The README's picture of an HTML report: `node scripts/screenshot.mjs` (after `npm run build`)
 * runs the built bin's `compare` against its built-in sink with an HTML report, opens the report in Debian's
 * Chromium through playwright-core (no browser is downloaded) and writes docs/img/report.png.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("../", import.meta.url));
const out = join(root, "docs", "img", "report.png");
const scratch = mkdtempSync(join(tmpdir(), "mailvolley-screenshot-"));
const html = join(scratch, "report.html");

try {
  execFileSync(
    process.execPath,
    [join(root, "bin", "mailvolley.js"), "compare", "-s", "10", "-m", "30000", "--html", html],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--no-first-run",
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(pathToFileURL(html).href, { waitUntil: "load" });
    await page.waitForSelector("div.chart canvas");
    mkdirSync(join(root, "docs", "img"), { recursive: true });
    // The headline and the first chart: what a report says first and how it shows a run.
    const chart = await page.locator("div.chart").first().boundingBox();
    const height = Math.ceil((chart?.y ?? 900) + (chart?.height ?? 0) + 20);
    await page.screenshot({ path: out, fullPage: true, clip: { x: 0, y: 0, width: 1200, height } });
  } finally {
    await browser.close();
  }
  console.log(`wrote ${out}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

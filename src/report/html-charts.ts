/**
 * The charts' script for the HTML page. The drawing code is a browser module of its own
 * (browser/charts.ts), bundled for the browser by `npm run build` into CHART_SCRIPT, a string
 * compiled into this package like any other module: the page gets the code that was built and
 * typechecked for it, the same in dist/src, the bundle and an installed package, and no file is
 * looked up at run time.
 */
import { CHART_SCRIPT } from "./chart-script.generated.js";

/** The page's script: the chart module, then the call that draws the data in `dataVariable`. */
export function chartScript(dataVariable: string): string {
  return `${CHART_SCRIPT}\nmailvolleyCharts.drawCharts(${dataVariable}.runs, uPlot, ${dataVariable}.labels);`;
}

/** A chart's heading, where its id alone does not say it. */
const CHART_TITLES: Record<string, string> = {
  delivery: "through the gateway",
  connections: "connections opened",
  generator: "generator: busiest thread",
  "event-loop": "generator: event-loop delay",
};

/**
 * The page's chart boxes, each headed, that the chart script draws into (browser/charts.ts
 * chartSpecs names the same ids); through a gateway, what came out of it after the throughput.
 */
export function chartBoxes(delivery: boolean): string {
  return ["throughput", ...(delivery ? ["delivery"] : [])]
    .concat(["latency", "errors", "sessions", "connections", "generator", "event-loop"])
    .map((c) => `<h3>${CHART_TITLES[c] ?? c}</h3><div class="chart" id="chart-${c}"></div>`)
    .join("");
}

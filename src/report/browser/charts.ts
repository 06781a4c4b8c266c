/**
 * The charts of the HTML report: a browser module. `npm run build` bundles it with esbuild for
 * the browser (an IIFE whose global is `mailvolleyCharts`, scripts/browser.mjs) into a string
 * that html-charts.ts inlines after uPlot's script, so the page calls
 * `mailvolleyCharts.drawCharts(...)`. It is typechecked against the DOM and without Node's types
 * (its own tsconfig.json here): it may use only what the page has (the DOM, uPlot, the embedded data).
 *
 * The x axis is time since the run's first connect, as in Result.knee and Result.firstSeen, in
 * seconds, or in milliseconds for a run shorter than 2 s. Each interval's figure is drawn as a
 * step over the interval (the first one clamped to the first connect, the last one to the run's
 * end), so a run with a single interval draws a line across the run, not a dot.
 */

import type { ChartAxisRun, ChartLine, ChartRun, ChartSpec, ChartStyle } from "./chart-data.js";
import { DELIVERY_CHART_ID, deliveryChart, deliveryEndX } from "./delivery-chart.js";

type Point = ChartRun["points"][number];

export type { ChartLine, ChartSpec, ChartStyle } from "./chart-data.js";

// biome-ignore lint/suspicious/noExplicitAny: uPlot is a global of the page, typed there
type UPlotCtor = any;
// biome-ignore lint/suspicious/noExplicitAny: a uPlot instance
type UPlot = any;

export function drawCharts(
  runs: ChartRun[],
  uPlot: UPlotCtor,
  errorLabels: Record<string, string>,
) {
  const style: ChartStyle = {
    runColours: ["#2471a3", "#d68910", "#1e8449", "#7d3c98"],
    lineColours: ["#2471a3", "#1e8449", "#c0392b", "#d68910", "#7d3c98", "#5d6d7e"],
    classColours: ["#c0392b", "#d68910", "#7d3c98", "#b03a2e", "#5d6d7e", "#117864"],
    classDashes: [[], [6, 3], [2, 3], [10, 3, 2, 3], [1, 6], [12, 6]],
  };
  // Through a gateway the axis runs on to the last arrival, the same on every chart.
  const span = Math.max(0, ...runs.map((r) => Math.max(r.endX, deliveryEndX(r))));
  // Short runs in ms, so the ticks read 0, 50, 100 rather than 0, 0.05, 0.1.
  const scale = span < 2 ? 1000 : 1;
  const axis = scale === 1000 ? "ms since the first connect" : "seconds since the first connect";
  const charts = chartSpecs(runs, errorLabels, style);
  for (const chart of charts) {
    const host = document.getElementById(chart.id);
    if (!host) continue;
    if (runs.every((r) => r.points.length === 0)) {
      host.textContent = "nothing to draw: no time series in this result";
      continue;
    }
    if (chart.lines.length === 0) {
      host.textContent = chart.empty;
      continue;
    }
    drawChart(host, chart, runs, uPlot, { scale, axis, max: span * scale, style, errorLabels });
  }
  const delivery = deliveryChart(runs, style);
  const host = document.getElementById(DELIVERY_CHART_ID);
  if (delivery && host) {
    const frame = { scale, axis, max: span * scale, style, errorLabels };
    drawChart(host, delivery.spec, delivery.runs, uPlot, frame);
  }
}

/**
 * The charts and their lines, each line one run's figure, one unit a chart (so one a y axis).
 * A rate is the interval's count over its real length (ChartRun points' `seconds`): a partial
 * first or last interval is not read as a whole one.
 */
export function chartSpecs(
  runs: ChartRun[],
  errorLabels: Record<string, string>,
  style: ChartStyle,
): ChartSpec[] {
  const has = (test: (p: Point) => boolean) => runs.some((run) => run.points.some(test));
  const lines = lineMaker(runs, style);
  const dropped = has((p) => (p.dropped ?? 0) > 0);
  const scheduled = runs.some((r) => r.scheduled) || dropped;
  const means = runs.every((r) => r.points.every((p) => p.openSessionsMean !== undefined));
  return [
    {
      id: "chart-throughput",
      empty: "nothing to draw",
      unit: "messages/s",
      lines: [
        // Open model: what the schedule asked for (sent + dropped), under what was achieved.
        ...(scheduled
          ? lines((p) => perSecond(p.sent + (p.dropped ?? 0), p), "scheduled/s", 3, [1, 3])
          : []),
        ...lines((p) => perSecond(p.accepted, p), "accepted/s", 0),
        ...lines((p) => perSecond(p.sent, p), "sent/s", 1, [4, 4]),
      ],
    },
    {
      id: "chart-latency",
      empty: "nothing to draw",
      unit: "ms",
      lines: [...lines((p) => p.p50Ms, "p50", 0), ...lines((p) => p.p99Ms, "p99", 2, [4, 4])],
    },
    {
      id: "chart-errors",
      empty: "no errors and no dropped arrivals: nothing to draw",
      unit: "errors/s",
      lines: errorLines(runs, errorLabels, style).concat(
        dropped ? lines((p) => perSecond(p.dropped ?? 0, p), "dropped/s", 4) : [],
      ),
    },
    {
      id: "chart-sessions",
      empty: "nothing to draw",
      unit: "sessions",
      lines: lines(
        (p) => (means ? (p.openSessionsMean ?? 0) : p.openSessions),
        means ? "open sessions (interval mean)" : "open sessions (at the interval's end)",
        0,
      ),
    },
    {
      id: "chart-connections",
      empty: "nothing to draw",
      unit: "connections/s",
      lines: lines((p) => perSecond(p.connectionsOpened, p), "connections opened/s", 3, [4, 4]),
    },
    ...generatorSpecs(
      lines,
      has((p) => p.generator !== undefined),
    ),
  ];
}

/** The generator's own load, a chart a unit: its busiest thread, and its event-loop delay. */
export function generatorSpecs(lines: ReturnType<typeof lineMaker>, sampled: boolean): ChartSpec[] {
  const empty = "no generator figures in this result";
  const busy = (p: Point) => (p.generator ? p.generator.busy * 100 : null);
  const delay = (p: Point) => (p.generator ? p.generator.eventLoopDelayP99Ms : null);
  return [
    {
      id: "chart-generator",
      empty,
      unit: "% busy",
      lines: sampled ? lines(busy, "busiest thread % busy", 2) : [],
    },
    {
      id: "chart-event-loop",
      empty,
      unit: "ms",
      lines: sampled ? lines(delay, "event-loop delay p99", 4, [4, 4]) : [],
    },
  ];
}

/** A count of an interval per second of its real length. */
export function perSecond(count: number, p: Point): number {
  return count / p.seconds;
}

/**
 * Makes a figure's lines, one a run: in a compare a colour a run (the figure told by its dash),
 * in one run the figure's own colour (index `i` of lineColours).
 */
export function lineMaker(runs: ChartRun[], style: ChartStyle) {
  const compare = runs.length > 1;
  return (
    pick: (p: Point, run: ChartRun) => number | null,
    name: string,
    i: number,
    dash?: number[],
  ): ChartLine[] =>
    runs.map((run, r) => ({
      run: r,
      label: compare ? `${run.label} ${name}` : name,
      values: run.points.map((p) => pick(p, run)),
      colour: compare ? style.runColours[r % style.runColours.length] : style.lineColours[i],
      dash,
    }));
}

/**
 * Errors per second by class. One run: a colour a class. A compare: as on the other charts, a
 * colour a run, and the class told by its dash.
 */
export function errorLines(
  runs: ChartRun[],
  errorLabels: Record<string, string>,
  style: ChartStyle,
): ChartLine[] {
  const compare = runs.length > 1;
  return Object.keys(errorLabels).flatMap((c, i): ChartLine[] =>
    runs
      .map((run, r) => ({ run, r }))
      .filter(({ run }) => run.points.some((p) => (p.errors[c] ?? 0) > 0))
      .map(({ run, r }) => ({
        run: r,
        label: compare ? `${run.label} ${errorLabels[c]}` : errorLabels[c],
        values: run.points.map((p) => perSecond(p.errors[c] ?? 0, p)),
        colour: compare
          ? style.runColours[r % style.runColours.length]
          : style.classColours[i % style.classColours.length],
        dash:
          compare && i % style.classDashes.length > 0
            ? style.classDashes[i % style.classDashes.length]
            : undefined,
      })),
  );
}

/**
 * uPlot's data for one chart. Each interval of a run is two points on its own x, its start and
 * just before the next one's (the last: the run's end), so a stepped line draws every interval
 * as a step, one beside a gap or alone included. The runs are then joined on one x axis.
 */
export function chartData(
  runs: ChartAxisRun[],
  lines: ChartLine[],
  scale: number,
  uPlot: UPlotCtor,
): (number | null | undefined)[][] {
  const tables = runs.map((run, r) => {
    const starts = run.points.map((p) => p.x * scale);
    const ends = starts.map((x, i) => {
      const next = i + 1 < starts.length ? starts[i + 1] : run.endX * scale;
      // Half a millisecond short of the next start: distinct from it, invisible at any zoom.
      return Math.max(x, next - (i + 1 < starts.length ? scale / 2000 : 0));
    });
    const xs = starts.flatMap((x, i) => (ends[i] > x ? [x, ends[i]] : [x]));
    const twice = (values: (number | null)[]) =>
      values.flatMap((v, i) => (ends[i] > starts[i] ? [v, v] : [v]));
    return [xs, ...lines.filter((l) => l.run === r).map((l) => twice(l.values))];
  });
  const used = tables.filter((t) => t.length > 1);
  return used.length > 0 ? uPlot.join(used) : [[]];
}

/** How drawChart places and styles a chart: the x axis's unit and range, colours, class names. */
export interface ChartFrame {
  /** x values are seconds × scale (1000: ms). */
  scale: number;
  axis: string;
  max: number;
  style: ChartStyle;
  errorLabels: Record<string, string>;
}

/**
 * One uPlot chart. Its x range is the runs' own span, and it records on its element what tests
 * read: `data-x-min`, `data-x-max`, `data-x-unit` and `data-markers` (the marks' labels).
 */
export function drawChart(
  host: HTMLElement,
  chart: ChartSpec,
  runs: ChartAxisRun[],
  uPlot: UPlotCtor,
  frame: ChartFrame,
) {
  const lines = [...chart.lines].sort((a, b) => a.run - b.run);
  const unit = frame.scale === 1000 ? "ms" : "s";
  const markers = chartMarkers(runs, frame);
  const options = {
    width: Math.max(320, Math.min(1100, host.clientWidth || 900)),
    height: 260,
    scales: {
      x: { time: false, range: () => [0, frame.max > 0 ? frame.max : 1] },
      // Every figure drawn is a count, rate, % or ms: from 0, so a level line reads as a level.
      y: { range: fromZero },
      ...(chart.rightUnit ? { right: { range: fromZero } } : {}),
    },
    axes: [
      { label: frame.axis },
      { label: chart.unit, size: 70 },
      ...(chart.rightUnit
        ? [{ scale: "right", side: 1, label: chart.rightUnit, size: 70, grid: { show: false } }]
        : []),
    ],
    series: chartSeries(lines, unit, uPlot),
    // The legend's swatch dashed or dotted as its line is.
    legend: {
      markers: {
        dash: (u: UPlot, i: number) => {
          const dash = u.series[i].dash;
          return dash?.length ? (dash[0] <= 2 ? "dotted" : "dashed") : "solid";
        },
      },
    },
    hooks: {
      draw: [(u: UPlot) => drawMarkers(u, markers)],
      // The x row of the legend says where the cursor is; without a cursor it would read "--".
      setLegend: [(u: UPlot) => showXLegend(u)],
      ready: [
        (u: UPlot) => {
          showXLegend(u);
          host.dataset.xMin = String(u.scales.x.min);
          host.dataset.xMax = String(u.scales.x.max);
        },
      ],
    },
  };
  host.dataset.xUnit = unit;
  host.dataset.units = [chart.unit, chart.rightUnit ?? ""].filter(Boolean).join("|");
  host.dataset.markers = markers.map((m) => m.label).join("|");
  new uPlot(options, chartData(runs, lines, frame.scale, uPlot), host);
}

/** A y scale from 0 to a tenth above the highest value. */
const fromZero = (_u: UPlot, _min: number, max: number) => [0, max > 0 ? max * 1.1 : 1];

/** uPlot's series: x, then the lines as steps, their legend figures only under the cursor. */
export function chartSeries(lines: ChartLine[], unit: string, uPlot: UPlotCtor) {
  // Figures while the cursor is on the chart, nothing (not uPlot's "--") when it is not.
  const value = (digits: number) => (_u: UPlot, v: number | null, _s: number, i: number | null) =>
    i === null || v === null || v === undefined ? "" : v.toFixed(digits);
  return [
    { label: unit, class: "mv-x", value: value(unit === "ms" ? 0 : 2) },
    ...lines.map((line) => ({
      label: line.label,
      stroke: line.colour,
      ...(line.right ? { scale: "right" } : {}),
      width: 1.5,
      dash: line.dash,
      spanGaps: false,
      paths: uPlot.paths.stepped({ align: 1 }),
      points: { show: false },
      value: value(1),
    })),
  ];
}

/** Without a cursor on the chart: no x row, no values, no "label:" waiting for one. */
export function showXLegend(u: UPlot) {
  const idle = u.legend.idx === null || u.legend.idx === undefined;
  u.root.classList.toggle("mv-idle", idle);
  const row = u.root.querySelector(".u-legend .mv-x");
  if (row) row.style.display = idle ? "none" : "";
}

/** The marks of every run on the chart's x, with their colour, dash and label. */
export function chartMarkers(runs: ChartAxisRun[], frame: ChartFrame) {
  const compare = runs.length > 1;
  const classes = Object.keys(frame.errorLabels);
  return runs.flatMap((run, r) =>
    run.markers.map((m) => {
      const c = m.class === null ? -1 : classes.indexOf(m.class);
      const colour = compare
        ? frame.style.runColours[r % frame.style.runColours.length]
        : c < 0
          ? "#566573"
          : frame.style.classColours[c % frame.style.classColours.length];
      return {
        x: m.x * frame.scale,
        label: compare ? `${run.label}: ${m.label}` : m.label,
        colour,
        dash: m.class === null ? [6, 4] : [2, 3],
      };
    }),
  );
}

/** Dashed vertical lines with their labels, stacked so marks at one instant stay readable. */
export function drawMarkers(
  u: UPlot,
  markers: { x: number; label: string; colour: string; dash: number[] }[],
) {
  const ctx = u.ctx;
  const ratio = window.devicePixelRatio || 1;
  markers.forEach((m, i) => {
    const x = u.valToPos(m.x, "x", true);
    ctx.save();
    ctx.strokeStyle = m.colour;
    ctx.fillStyle = m.colour;
    ctx.lineWidth = 1.5 * ratio;
    ctx.setLineDash(m.dash.map((d) => d * ratio));
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.font = `${12 * ratio}px system-ui, sans-serif`;
    // Right of the line, or left of it in the right third of the chart.
    const right = x > u.bbox.left + (u.bbox.width * 2) / 3;
    ctx.textAlign = right ? "right" : "left";
    ctx.fillText(m.label, x + (right ? -4 : 4) * ratio, u.bbox.top + (14 + 14 * i) * ratio);
    ctx.restore();
  });
}

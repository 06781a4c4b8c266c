/**
 * The charts of the HTML report. `drawCharts` runs in the browser, not in Node: html.ts inlines
 * its source text after uPlot's, so it may use only what the page has (the DOM, uPlot, the
 * embedded data). It must stay self-contained: no imports, no closures over this module.
 */

/** One run's series as the page embeds it. */
export interface ChartRun {
  label: string;
  intervalMs: number;
  /** Where success fell below 100% (Result.knee), on the charts' x axis; null: never. */
  knee: number | null;
  points: {
    t: number;
    sent: number;
    /** Absent in results saved before it existed. */
    dropped?: number;
    accepted: number;
    failed: number;
    rejected: number;
    connectionsOpened: number;
    openSessions: number;
    errors: Record<string, number>;
    /** null: nothing accepted in the interval (a gap in the latency chart). */
    p50Ms: number | null;
    p99Ms: number | null;
    generator?: { busy: number; eventLoopDelayP99Ms: number };
  }[];
}

// biome-ignore lint/suspicious/noExplicitAny: uPlot is a global of the page, typed there
type UPlotCtor = any;

export function drawCharts(
  runs: ChartRun[],
  uPlot: UPlotCtor,
  errorLabels: Record<string, string>,
) {
  const RUN_COLOURS = ["#c0392b", "#2471a3", "#1e8449", "#7d3c98"];
  const LINE_COLOURS = ["#2471a3", "#1e8449", "#c0392b", "#d68910", "#7d3c98", "#5d6d7e"];
  const length = Math.max(0, ...runs.map((r) => r.points.length));
  const step = runs.length > 0 ? runs[0].intervalMs / 1000 : 1;
  // x: seconds since each run's first interval, so runs made one after the other overlay.
  const xs = Array.from({ length }, (_, i) => i * step);
  const column = (run: ChartRun, pick: (p: ChartRun["points"][number]) => number | null) =>
    xs.map((_, i) => (i < run.points.length ? pick(run.points[i]) : null));
  const perSecond = (n: number, run: ChartRun) => n / (run.intervalMs / 1000);

  const dropped = runs.some((run) => run.points.some((p) => (p.dropped ?? 0) > 0));
  type Line = { label: string; values: (number | null)[]; colour: string; dash?: number[] };
  const lines = (
    pick: (p: ChartRun["points"][number], run: ChartRun) => number | null,
    name: string,
    i: number,
    dash?: number[],
  ): Line[] =>
    runs.map((run, r) => ({
      label: runs.length > 1 ? `${run.label} ${name}` : name,
      values: column(run, (p) => pick(p, run)),
      colour: runs.length > 1 ? RUN_COLOURS[r % RUN_COLOURS.length] : LINE_COLOURS[i],
      dash,
    }));

  const charts: { id: string; unit: string; lines: Line[] }[] = [
    {
      id: "chart-throughput",
      unit: "messages/s",
      lines: [
        ...lines((p, run) => perSecond(p.accepted, run), "accepted/s", 0),
        ...lines((p, run) => perSecond(p.sent, run), "sent/s", 1, [4, 4]),
        // Open model: what the schedule asked for, when some of it was dropped.
        ...(dropped
          ? lines((p, run) => perSecond(p.sent + (p.dropped ?? 0), run), "scheduled/s", 3, [1, 3])
          : []),
      ],
    },
    {
      id: "chart-latency",
      unit: "ms",
      lines: [...lines((p) => p.p50Ms, "p50", 0), ...lines((p) => p.p99Ms, "p99", 2, [4, 4])],
    },
    {
      id: "chart-errors",
      unit: "errors/s",
      lines: Object.keys(errorLabels)
        .filter((c) => runs.some((run) => run.points.some((p) => (p.errors[c] ?? 0) > 0)))
        .flatMap((c, i): Line[] =>
          runs.map((run, r) => ({
            label: runs.length > 1 ? `${run.label} ${errorLabels[c]}` : errorLabels[c],
            values: column(run, (p) => perSecond(p.errors[c] ?? 0, run)),
            colour: LINE_COLOURS[(i + 2) % LINE_COLOURS.length],
            dash: r === 1 ? [4, 4] : undefined,
          })),
        )
        .concat(dropped ? lines((p, run) => perSecond(p.dropped ?? 0, run), "dropped/s", 4) : []),
    },
    {
      id: "chart-sessions",
      unit: "sessions, connections/s",
      lines: [
        ...lines((p) => p.openSessions, "open sessions", 0),
        ...lines(
          (p, run) => perSecond(p.connectionsOpened, run),
          "connections opened/s",
          3,
          [4, 4],
        ),
      ],
    },
    {
      id: "chart-generator",
      unit: "% busy, ms",
      lines: runs.some((run) => run.points.some((p) => p.generator))
        ? [
            ...lines(
              (p) => (p.generator ? p.generator.busy * 100 : Number.NaN),
              "busiest thread % busy",
              2,
            ),
            ...lines(
              (p) => (p.generator ? p.generator.eventLoopDelayP99Ms : Number.NaN),
              "event-loop delay p99 ms",
              4,
              [4, 4],
            ),
          ]
        : [],
    },
  ];

  // A dashed vertical line where each run's success fell below 100%.
  // biome-ignore lint/suspicious/noExplicitAny: a uPlot instance
  const markKnees = (u: any) => {
    runs.forEach((run, r) => {
      if (run.knee === null || run.knee === undefined) return;
      const x = u.valToPos(run.knee, "x", true);
      const ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = runs.length > 1 ? RUN_COLOURS[r % RUN_COLOURS.length] : "#c0392b";
      ctx.setLineDash([6, 4]);
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      ctx.fillStyle = ctx.strokeStyle;
      ctx.fillText(runs.length > 1 ? `knee (${run.label})` : "knee", x + 4, u.bbox.top + 12);
      ctx.restore();
    });
  };

  for (const chart of charts) {
    const host = document.getElementById(chart.id);
    if (!host) continue;
    if (chart.lines.length === 0 || length === 0) {
      host.textContent = "nothing to draw: no data in this run";
      continue;
    }
    const width = Math.max(320, Math.min(1100, host.clientWidth || 900));
    const options = {
      hooks: { draw: [markKnees] },
      width,
      height: 260,
      scales: { x: { time: false } },
      axes: [{ label: "seconds since start" }, { label: chart.unit, size: 70 }],
      series: [
        { label: "s" },
        ...chart.lines.map((line) => ({
          label: line.label,
          stroke: line.colour,
          width: 1.5,
          dash: line.dash,
          spanGaps: false,
        })),
      ],
    };
    new uPlot(options, [xs, ...chart.lines.map((line) => line.values)], host);
  }
}

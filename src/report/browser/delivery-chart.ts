/**
 * The "through the gateway" chart (--receive): per second, the messages the gateway accepted,
 * those that came out of it (delivered), and those inside it at the second's end, drawn on the
 * same x axis as the throughput chart, so a relay rate below the accept rate and the backlog it
 * builds are seen beside the run's own throughput.
 */
import type { ChartAxisRun, ChartLine, ChartRun, ChartSpec, ChartStyle } from "./chart-data.js";

export const DELIVERY_CHART_ID = "chart-delivery";

/** Seconds from the first connect to the end of the last second with an arrival. */
export function deliveryEndX(run: ChartRun): number {
  return run.delivery ? run.delivery.accepted.length : 0;
}

/**
 * The chart's runs (one point a second; none for a run without --receive) and its lines; null
 * when no run received.
 */
export function deliveryChart(
  runs: ChartRun[],
  style: ChartStyle,
): { runs: ChartAxisRun[]; spec: ChartSpec } | null {
  if (runs.every((r) => !r.delivery)) return null;
  const compare = runs.length > 1;
  const axisRuns = runs.map((run) => ({
    label: run.label,
    endX: deliveryEndX(run),
    markers: run.markers,
    points: (run.delivery?.accepted ?? []).map((_, i) => ({ x: i })),
  }));
  const figures: [keyof NonNullable<ChartRun["delivery"]>, string, number, number[]?][] = [
    ["accepted", "accepted/s", 0],
    ["delivered", "delivered/s", 1, [4, 4]],
    ["inside", "inside the gateway", 3, [1, 3]],
  ];
  const lines = figures.flatMap(([key, name, colour, dash]) =>
    runs.flatMap((run, r): ChartLine[] =>
      run.delivery
        ? [
            {
              run: r,
              label: compare ? `${run.label} ${name}` : name,
              values: run.delivery[key],
              colour: compare
                ? style.runColours[r % style.runColours.length]
                : style.lineColours[colour],
              dash,
              // A count, not a rate: on the right axis.
              right: key === "inside",
            },
          ]
        : [],
    ),
  );
  return {
    runs: axisRuns,
    spec: {
      id: DELIVERY_CHART_ID,
      unit: "messages/s",
      rightUnit: "messages inside",
      lines,
      empty: "nothing to draw",
    },
  };
}

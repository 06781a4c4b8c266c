/**
 * `--threshold` metrics of a run through a gateway (--receive), judged on the Result's delivery
 * section; a run without one has no data for them, which fails the threshold.
 */
import type { Result } from "./result.js";

export const DELIVERY_METRICS = [
  "delivered_ratio",
  "lost",
  "duplicated",
  "e2e_p99",
  "drain",
  "relay_rate",
  "backlog_max",
] as const;
export type DeliveryMetric = (typeof DELIVERY_METRICS)[number];

export function isDeliveryMetric(metric: string): metric is DeliveryMetric {
  return (DELIVERY_METRICS as readonly string[]).includes(metric);
}

/** The unit of a delivery metric: "ms", "%", "/s", or "" for a count. */
export function deliveryUnit(metric: DeliveryMetric): string {
  if (metric === "e2e_p99" || metric === "drain") return "ms";
  if (metric === "delivered_ratio") return "%";
  if (metric === "relay_rate") return "/s";
  return "";
}

/** The measured value; `className` narrows lost, delivered_ratio and e2e_p99 to one class. */
export function measureDelivery(
  metric: DeliveryMetric,
  className: string | null,
  result: Result,
): number | null {
  const d = result.delivery;
  if (!d) return null;
  const c = className === null || className === "all" ? d : d.classes[className];
  if (!c) return null;
  switch (metric) {
    case "delivered_ratio":
      return c.accepted > 0 ? (c.delivered / c.accepted) * 100 : null;
    case "lost":
      return c.lost;
    case "duplicated":
      return c.duplicated;
    case "e2e_p99":
      return c.endToEndMs.count > 0 ? c.endToEndMs.p99 : null;
    case "drain":
      return d.drainMs;
    case "relay_rate":
      return d.relayedPerSecond;
    case "backlog_max":
      return d.backlogMax;
  }
}

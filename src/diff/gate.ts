/**
 * `mailvolley diff --fail-if`: a bound on a figure's change from A to B, for CI.
 *
 *   bound = figure op signed-number "%"      e.g. 'throughput<-5%', 'transactionP99Ms>10%'
 *   op    = < | <= | > | >=
 *
 * The expression says when to fail: 'throughput<-5%' fails when B's throughput is more than
 * 5 % below A's. A bound is breached only by a significant change (noise never fails a build).
 */
import { UsageError } from "../usage/usage-error.js";
import { HEADLINE_FIGURES, type HeadlineFigure } from "./headline-figures.js";

const OPTION = "--fail-if";
const SYNTAX = /^([A-Za-z0-9]+)\s*(<=|>=|<|>)\s*([+-]?\d+(?:\.\d+)?)\s*%$/;

export interface FailIf {
  expression: string;
  figure: HeadlineFigure;
  op: "<" | "<=" | ">" | ">=";
  /** The bound as a fraction of A's mean: -0.05 for -5 %. */
  bound: number;
}

export function parseFailIf(text: string): FailIf {
  const expression = text.trim();
  const m = SYNTAX.exec(expression);
  if (!m) {
    throw new UsageError(
      OPTION,
      `"${expression}": expected FIGURE OP CHANGE%, e.g. 'throughput<-5%' or 'transactionP99Ms>10%'`,
    );
  }
  const figure = HEADLINE_FIGURES.find((name) => name === m[1]);
  if (figure === undefined) {
    throw new UsageError(
      OPTION,
      `"${expression}": "${m[1]}" is no figure; give one of ${HEADLINE_FIGURES.join(", ")}`,
    );
  }
  return { expression, figure, op: m[2] as FailIf["op"], bound: Number(m[3]) / 100 };
}

/** Whether a change lies beyond the bound, in the bound's direction. */
export function beyond(gate: FailIf, change: number): boolean {
  switch (gate.op) {
    case "<":
      return change < gate.bound;
    case "<=":
      return change <= gate.bound;
    case ">":
      return change > gate.bound;
    case ">=":
      return change >= gate.bound;
  }
}

#!/usr/bin/env node
// Signals are held from the first line: loading the bundle takes longer than a quick Ctrl-C or
// `timeout 0.1` allows, and a signal then would kill the process with no report. The command's
// own handlers take the held ones over (dist/src/cli/early-signals.js).
const held = [];
const hold = (signal) => held.push(signal);
process.on("SIGINT", hold);
process.on("SIGTERM", hold);
globalThis[Symbol.for("mailvolley.earlySignals")] = { held, hold };
// The bundle of dist/src (scripts/bundle.mjs): a few files to load instead of ~200 modules.
await import("../dist/bundle/main.js");

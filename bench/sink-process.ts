/**
 * The built-in sink as a benchmark peer: prints `{"port":N}` once listening on 127.0.0.1, and on
 * "stop" (or end of stdin) closes and prints its counts as one JSON line.
 */
import { fillSinkOptions } from "../src/config/sink-config.js";
import { startSink } from "../src/sink/index.js";

const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"] }));
process.stdout.write(`${JSON.stringify({ port: sink.addresses[0].port })}\n`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await sink.close();
  process.stdout.write(`${JSON.stringify(sink.stats())}\n`);
  process.exit(0);
}

process.stdin.setEncoding("utf8").on("data", (text: string) => {
  if (text.includes("stop")) void stop();
});
process.stdin.on("end", () => void stop());

/** Entry for the micro-benchmarks, run by run-all.ts in a child with --expose-gc. */
import { microBench } from "./micro.js";
import { sinkMicro } from "./micro-sink.js";

process.stdout.write(`${JSON.stringify([...(await microBench()), ...(await sinkMicro())])}\n`);

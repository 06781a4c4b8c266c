/** Entry for the micro-benchmarks, run by run-all.ts in a child with --expose-gc. */
import { microBench } from "./micro.js";

process.stdout.write(`${JSON.stringify(await microBench())}\n`);

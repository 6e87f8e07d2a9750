// A worker thread of `convert --jobs K`: converts the files it is sent, one at a time, and
// answers each with the result line's data.

import { parentPort } from "node:worker_threads";
import { guardTempFiles } from "../io/atomic.js";
import { convertFile, type WorkerJob } from "./commands/convert.js";

// Every worker writes: its janitor starts now, before it holds a model (io/atomic.ts).
guardTempFiles(true, true);

parentPort?.on("message", (job: WorkerJob) => {
  parentPort!.postMessage(convertFile(job.file, job.out, job.target, job.save, job.options));
});

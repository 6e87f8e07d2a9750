// A fuzz worker: a long-lived child process that runs CLI commands in-process, one at a time, as
// the parent sends them, and answers with the exit code and what the command printed. The parent
// watches its time and memory and kills it when a case hangs or grows too big.

import { main } from "../../src/cli/main.js";

interface Job {
  id: number;
  args: string[];
}

const CAP = 1 << 16;
let out = "";
let err = "";
let outBytes = 0;
let errBytes = 0;
const capture =
  (which: "out" | "err") =>
  (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const s = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    if (which === "out") {
      outBytes += s.length;
      if (out.length < CAP) out += s.slice(0, CAP - out.length);
    } else {
      errBytes += s.length;
      if (err.length < CAP) err += s.slice(0, CAP - err.length);
    }
    const cb = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    cb?.();
    return true;
  };
process.stdout.write = capture("out") as typeof process.stdout.write;
process.stderr.write = capture("err") as typeof process.stderr.write;
process.stdout.setMaxListeners(0);

let chain = Promise.resolve();
process.on("message", (job: Job) => {
  chain = chain.then(async () => {
    out = err = "";
    outBytes = errBytes = 0;
    process.exitCode = 0;
    let thrown: string | undefined;
    try {
      await main(["node", "onnx-expand", ...job.args]);
    } catch (e) {
      thrown = e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ""}` : String(e);
    }
    const code = typeof process.exitCode === "number" ? process.exitCode : 0;
    process.exitCode = 0;
    process.send!({ id: job.id, code, stdout: out, stderr: err, outBytes, errBytes, thrown });
  });
});
process.send!({ ready: true });

// Loading and saving a model with 200 MB of raw tensor data: throughput and peak memory.
// Each measurement runs in a fresh child process so that its peak RSS is its own.
// Targets (issue 2): load >= 1 GB/s; peak RSS <= 1.5x the file size.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeModel, loadModel, saveModel } from "../src/io/files.js";
import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import { Tensor } from "../src/ir/tensor.js";
import { DataType } from "../src/ir/types.js";

const MB = 1 << 20;
const [, , mode, file, out] = process.argv;

/** Peak resident memory of this process image (VmHWM: unlike getrusage's maxrss, not inherited from the parent across exec). */
function peakRss(): number {
  const m = readFileSync("/proc/self/status", "utf8").match(/VmHWM:\s+(\d+) kB/);
  return m ? Number(m[1]) * 1024 : process.resourceUsage().maxRSS * 1024;
}

if (mode === "load") {
  const t0 = performance.now();
  const bytes = readFileSync(file!);
  const t1 = performance.now();
  const m = decodeModel(bytes);
  const t2 = performance.now();
  console.log(
    JSON.stringify({
      read: t1 - t0,
      decode: t2 - t1,
      total: t2 - t0,
      rss: peakRss(),
      tensors: m.graph.initializers.length,
    }),
  );
} else if (mode === "roundtrip") {
  const t0 = performance.now();
  const m = loadModel(file!);
  const t1 = performance.now();
  saveModel(m, out!);
  const t2 = performance.now();
  console.log(JSON.stringify({ load: t1 - t0, save: t2 - t1, total: t2 - t0, rss: peakRss() }));
} else if (mode === "baseline") {
  console.log(JSON.stringify({ rss: peakRss() }));
} else {
  const dir = mkdtempSync(join(tmpdir(), "onnx-expand-bench-"));
  const path = join(dir, "big.onnx");
  // 50 initializers of 4 MiB: 200 MiB of raw_data.
  const inits: Tensor[] = [];
  for (let i = 0; i < 50; i++) {
    const data = new Float32Array(MB);
    for (let j = 0; j < data.length; j += 1024) data[j] = i + j;
    inits.push(
      new Tensor(
        DataType.FLOAT,
        [1024, 1024],
        { kind: "raw", bytes: new Uint8Array(data.buffer) },
        `w${i}`,
      ),
    );
  }
  const nodes = inits.map((t, i) =>
    node("Add", [i === 0 ? "x" : `h${i - 1}`, t.name], [i === 49 ? "y" : `h${i}`]),
  );
  saveModel(
    model(
      graph({
        nodes,
        initializers: inits,
        inputs: [valueInfo("x", "float", [1024, 1024])],
        outputs: [valueInfo("y", "float", [1024, 1024])],
      }),
      13,
    ),
    path,
  );
  inits.length = 0;
  const size = statSync(path).size;
  const tsx = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
  const self = new URL(import.meta.url).pathname;
  const child = (...args: string[]) => {
    const r = spawnSync(process.execPath, ["--import", tsx, self, ...args], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout.trim().split("\n").pop()!);
  };
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
  const base = child("baseline");
  const loads = Array.from({ length: 5 }, () => child("load", path));
  const trips = Array.from({ length: 3 }, () => child("roundtrip", path, join(dir, "copy.onnx")));
  const decodeMs = median(loads.map((l) => l.decode));
  const loadMs = median(loads.map((l) => l.total));
  const saveMs = median(trips.map((t) => t.save));
  const loadRss = Math.max(...loads.map((l) => l.rss));
  const tripRss = Math.max(...trips.map((t) => t.rss));
  const same = readFileSync(path).equals(readFileSync(join(dir, "copy.onnx")));
  console.log(
    `model: ${(size / MB).toFixed(1)} MiB, 50 initializers of 4 MiB (median of 5 loads, 3 load+save)`,
  );
  console.log(
    `load (read + decode):  ${loadMs.toFixed(1)} ms = ${(size / 1e6 / (loadMs / 1e3)).toFixed(0)} MB/s`,
  );
  console.log(
    `decode only:           ${decodeMs.toFixed(1)} ms = ${(size / 1e6 / (decodeMs / 1e3)).toFixed(0)} MB/s`,
  );
  console.log(
    `save (encode + write): ${saveMs.toFixed(1)} ms = ${(size / 1e6 / (saveMs / 1e3)).toFixed(0)} MB/s`,
  );
  console.log(
    `peak RSS, load:        ${(loadRss / MB).toFixed(0)} MiB = ${(loadRss / size).toFixed(2)}x file size (node alone: ${(base.rss / MB).toFixed(0)} MiB)`,
  );
  console.log(
    `peak RSS, load + save: ${(tripRss / MB).toFixed(0)} MiB = ${(tripRss / size).toFixed(2)}x file size`,
  );
  console.log(`saved copy identical to the original bytes: ${same}`);
  const py = spawnSync(
    "/usr/bin/python3",
    [
      "-c",
      `import onnx,time\nt=time.perf_counter();m=onnx.load(${JSON.stringify(path)});t1=time.perf_counter();onnx.save(m,${JSON.stringify(join(dir, "py.onnx"))});t2=time.perf_counter();print(t1-t,t2-t1)`,
    ],
    { encoding: "utf8" },
  );
  if (py.status === 0) {
    const [pl, ps] = py.stdout
      .trim()
      .split(" ")
      .map((s) => Number(s) * 1000);
    console.log(
      `python onnx 1.12, same file: load ${pl!.toFixed(1)} ms, save ${ps!.toFixed(1)} ms -> ratio python/ours: load ${(pl! / loadMs).toFixed(2)}, save ${(ps! / saveMs).toFixed(2)}`,
    );
  }
  const ok = size / 1e6 / (loadMs / 1e3) >= 1000 && tripRss <= 1.5 * size;
  console.log(`targets (load >= 1 GB/s, peak RSS <= 1.5x): ${ok ? "met" : "NOT met"}`);
  rmSync(dir, { recursive: true, force: true });
}

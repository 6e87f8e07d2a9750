// The opset converter on long chains: nodes/s of the conversion alone (load and save timed
// apart), peak RSS, memory growth during the conversion relative to the loaded model, and
// time(100k) / time(10k). Two chains: ReduceSum 12 -> 13 (every node adapted), and a mixed
// Reduce + elementwise model 11 -> 18. Each measurement runs in its own child process.
// Targets (issue 9, printed beside the numbers): >= 500,000 nodes/s, ratio <= 12, growth <= 3x
// the loaded model. The machine may be shared: CPU time (process.cpuUsage) is the steadier number,
// but it counts V8's helper threads too (concurrent marking, background compilation), so on an
// idle machine it runs above wall time. Each conversion is the first in a fresh process, as the
// CLI's is.
// ONNX's own converter (onnx.version_converter of ONNX 1.23.1, bench/onnx-python.ts) runs the same
// files; bench/whole.ts compares the whole processes. With CONVERT_BASE=<repo dir> each
// measurement is also made by that tree's bench/convert.ts, interleaved, and this/base printed
// (ONNX's converter is then not run); CONVERT_RUNS sets the runs per measurement (3).

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { convertModel } from "../src/convert/index.js";
import { SchemaRegistry } from "../src/schema/registry.js";
import { decodeModel, encodeModel } from "../src/io/files.js";
import { reduceChain } from "./chains.js";
import { onnxPython } from "./onnx-python.js";

const [, , mode, file, target] = process.argv;

/** Issue 9's targets, printed beside each measurement. */
const TARGET_RATE = 500_000;
const TARGET_RATIO = 12;
const TARGET_GROWTH = 3;
const meets = (ok: boolean) => (ok ? "[meets target]" : "[misses target]");

function status(key: string): number {
  const m = readFileSync("/proc/self/status", "utf8").match(new RegExp(`${key}:\\s+(\\d+) kB`));
  return m ? Number(m[1]) * 1024 : 0;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** A chain of n nodes at `opset`, encoded. */
const chain = (kind: "reducesum" | "mixed", n: number, opset: number): Uint8Array =>
  encodeModel(reduceChain(kind, n, opset));

if (mode === "child") {
  // One measurement: load, convert, save, with memory around the conversion.
  gc();
  const rss0 = process.memoryUsage().rss;
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const bytes = readFileSync(file!);
  const m = decodeModel(bytes);
  const t1 = performance.now();
  gc();
  const rssLoaded = process.memoryUsage().rss;
  const heapLoaded = process.memoryUsage().heapUsed;
  try {
    writeFileSync("/proc/self/clear_refs", "5"); // resets VmHWM, so the peak is the conversion's
  } catch {
    /* not Linux: the peak then includes loading */
  }
  SchemaRegistry.default(); // loading and validating schemas/ is not the conversion's cost
  const c0 = process.cpuUsage();
  const t2 = performance.now();
  const r = convertModel(m, Number(target));
  const t3 = performance.now();
  const cpu = process.cpuUsage(c0);
  const peak = status("VmHWM");
  gc();
  const heapConverted = process.memoryUsage().heapUsed; // the input and the result both alive
  if (!r.model) throw new Error(`blocked: ${r.plan.blocked[0]?.message}`);
  const t4 = performance.now();
  const out = encodeModel(r.model);
  const t5 = performance.now();
  console.log(
    JSON.stringify({
      nodes: m.graph.nodes.length,
      load: t1 - t0,
      convert: t3 - t2,
      cpu: (cpu.user + cpu.system) / 1000,
      save: t5 - t4,
      outBytes: out.length,
      modelMem: Math.max(1, rssLoaded - rss0),
      heapModel: heapLoaded - heap0,
      heapAdded: heapConverted - heapLoaded,
      growth: Math.max(0, peak - rssLoaded),
      peak,
    }),
  );
} else {
  const dir = mkdtempSync(join(tmpdir(), "bench-convert-"));
  const self = fileURLToPath(import.meta.url);
  const tsx = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
  // CONVERT_BASE=<repo dir>: the same child measurement by that tree's bench/convert.ts (another
  // revision, e.g. a git worktree of main), interleaved run by run, and the ratio printed.
  const baseDir = process.env.CONVERT_BASE;
  const baseSelf = baseDir ? join(baseDir, "bench", "convert.ts") : undefined;
  const runsOf = Number(process.env.CONVERT_RUNS ?? 3);
  type Run = {
    convert: number;
    cpu: number;
    heapModel: number;
    heapAdded: number;
    load: number;
    save: number;
    growth: number;
    modelMem: number;
    peak: number;
    nodes: number;
  };
  const child = (script: string, path: string, to: number): Run => {
    const r = spawnSync(
      process.execPath,
      ["--expose-gc", "--import", tsx, script, "child", path, String(to)],
      { encoding: "utf8" },
    );
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout.trim().split("\n").pop()!) as Run;
  };
  const middle = (runs: Run[], key: "convert" | "cpu") =>
    [...runs].sort((a, b) => a[key] - b[key])[Math.floor(runs.length / 2)]!;
  /** The median run of this tree (by conversion time) and, with CONVERT_BASE, the base's medians. */
  const measure = (path: string, to: number) => {
    const runs: Run[] = [];
    const base: Run[] = [];
    for (let i = 0; i < runsOf; i++) {
      runs.push(child(self, path, to));
      if (baseSelf) base.push(child(baseSelf, path, to));
    }
    if (baseSelf) {
      const [tw, bw] = [middle(runs, "convert").convert, middle(base, "convert").convert];
      const [tc, bc] = [middle(runs, "cpu").cpu, middle(base, "cpu").cpu];
      console.log(
        `  this ${tw.toFixed(1)} ms wall, ${tc.toFixed(0)} ms CPU; base ${bw.toFixed(1)} ms wall, ${bc.toFixed(0)} ms CPU: this/base ${(tw / bw).toFixed(3)} wall, ${(tc / bc).toFixed(3)} CPU`,
      );
    }
    return middle(runs, "convert");
  };
  // ONNX 1.23.1's Python (bench/onnx-python.ts: $ONNX_PYTHON, or a virtual environment).
  const py = baseSelf ? undefined : onnxPython();
  const pythonBin = py?.bin ?? "python3";
  const onnxVersion = py?.version;
  /** Python's time at 10k per chain: 100k is skipped when growth from there would pass 120 s. */
  const pyAt10k: Record<string, number | undefined> = {};
  const pyTime = (path: string, to: number): number | undefined => {
    const code = `import onnx, onnx.version_converter, time
m = onnx.load(${JSON.stringify(path)})
t = time.perf_counter(); onnx.version_converter.convert_version(m, ${to}); print(time.perf_counter() - t)`;
    const r = spawnSync(pythonBin, ["-c", code], { encoding: "utf8", timeout: 120_000 });
    return r.status === 0 ? Number(r.stdout.trim()) * 1000 : undefined;
  };
  const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
  for (const [kind, from, to, label] of [
    ["reducesum", 12, 13, "ReduceSum chain 12 -> 13"],
    ["mixed", 11, 18, "Reduce + elementwise chain 11 -> 18"],
  ] as const) {
    const times: Record<number, number> = {};
    const cpus: Record<number, number> = {};
    for (const n of [10_000, 100_000]) {
      const path = join(dir, `${kind}-${n}.onnx`);
      writeFileSync(path, chain(kind, n, from));
      const r = measure(path, to);
      times[n] = r.convert;
      cpus[n] = r.cpu;
      const wallRate = (n / r.convert) * 1000;
      const cpuRate = (n / r.cpu) * 1000;
      const growth = r.growth / r.modelMem;
      console.log(
        `${label}, ${fmt(n)} nodes: convert ${r.convert.toFixed(1)} ms = ${fmt(wallRate)} nodes/s wall` +
          ` ${meets(wallRate >= TARGET_RATE)}, CPU ${r.cpu.toFixed(0)} ms = ${fmt(cpuRate)} nodes/s` +
          ` ${meets(cpuRate >= TARGET_RATE)} (target >= ${fmt(TARGET_RATE)} nodes/s)` +
          ` (load ${r.load.toFixed(0)} ms, save ${r.save.toFixed(0)} ms); peak RSS ${(r.peak / 2 ** 20).toFixed(0)} MB,` +
          ` RSS growth during conversion ${growth.toFixed(2)}x the loaded model (${(r.modelMem / 2 ** 20).toFixed(0)} MB)` +
          ` ${meets(growth <= TARGET_GROWTH)} (target <= ${TARGET_GROWTH}x);` +
          ` heap the result adds ${(r.heapAdded / r.heapModel).toFixed(2)}x the loaded model's heap (${(r.heapModel / 2 ** 20).toFixed(0)} MB)`,
      );
      const py10k = pyAt10k[kind];
      if (onnxVersion && n === 100_000 && py10k !== undefined && py10k * 10 > 120_000) {
        console.log(
          `  python onnx ${onnxVersion} version_converter: not run at 100,000 nodes (10,000 took ${(py10k / 1000).toFixed(1)} s; even linear growth would pass 120 s)`,
        );
      } else if (onnxVersion && (n === 10_000 || py10k !== undefined)) {
        const py = pyTime(path, to);
        if (n === 10_000) pyAt10k[kind] = py;
        console.log(
          py === undefined
            ? `  python onnx ${onnxVersion} version_converter: failed or took over 120 s`
            : `  python onnx ${onnxVersion} version_converter: ${py.toFixed(0)} ms = ${fmt((n / py) * 1000)} nodes/s (ours ${(py / r.convert).toFixed(1)}x faster)`,
        );
      }
    }
    const wallRatio = times[100_000]! / times[10_000]!;
    const cpuRatio = cpus[100_000]! / cpus[10_000]!;
    console.log(
      `${label}: time(100k) / time(10k) = ${wallRatio.toFixed(2)} wall ${meets(wallRatio <= TARGET_RATIO)},` +
        ` ${cpuRatio.toFixed(2)} CPU ${meets(cpuRatio <= TARGET_RATIO)} (target <= ${TARGET_RATIO})`,
    );
  }
  if (!onnxVersion && !baseSelf)
    console.log("(python onnx with version_converter is not importable: no comparison)");
  rmSync(dir, { recursive: true, force: true });
}

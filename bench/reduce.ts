// Reductions over 1e7 float32 values: onnxruntime-node (warm, in-process session.run) against our
// Reduce kernels called directly (WebAssembly SIMD path and the scalar TypeScript path) and
// through the executor. Prints medians, ratios ORT/ours (>= 1: we are faster), and memory.
//
//   npx tsx bench/reduce.ts            ReduceSum, ReduceLogSum, ReduceL1
//   npx tsx bench/reduce.ts --all      also ReduceSumSquare, ReduceL2, ReduceMean
//   npx tsx --expose-gc bench/reduce.ts   (memory figures are steadier with a GC before each)
//
// Our side runs on two copies of the input: a plain Float32Array (what a caller passes in: the
// kernel copies it through WebAssembly memory, one thread) and a tensor from allocStorage, which
// for large float32 tensors lives in a WebAssembly memory of its own (read in place; row
// reductions also use a helper thread). ORT always gets the plain array.

import { median } from "./timing.js";
import * as ort from "onnxruntime-node";
import { encodeModel } from "../src/io/files.js";
import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import { Tensor } from "../src/ir/tensor.js";
import { DataType } from "../src/ir/types.js";
import { run } from "../src/interp/executor.js";
import {
  lastReduceWasmPath,
  runReduce,
  setReduceThreads,
  setReduceWasmEnabled,
  type ReduceOp,
} from "../src/interp/kernels/reduce.js";
import { helperReady, helperStats } from "../src/interp/kernels/wasm/rows.js";
import { allocStorage } from "../src/interp/tensor.js";
import type { KernelContext, RTensor } from "../src/interp/types.js";

const RUNS = 7;
const ops = process.argv.includes("--all")
  ? ["ReduceSum", "ReduceLogSum", "ReduceL1", "ReduceSumSquare", "ReduceL2", "ReduceMean"]
  : ["ReduceSum", "ReduceLogSum", "ReduceL1"];
const configs: [number[], number][] = [
  [[1000, 10000], 1],
  [[1000, 10000], 0],
  [[10000, 1000], 0],
  [[10000, 1000], 1],
];

const gc = (globalThis as { gc?: () => void }).gc;
const MiB = 2 ** 20;

function memoryOf(f: () => RTensor): { rss: number; ab: number; out: RTensor } {
  gc?.();
  const m0 = process.memoryUsage();
  const out = f();
  const m1 = process.memoryUsage();
  return { rss: (m1.rss - m0.rss) / MiB, ab: (m1.arrayBuffers - m0.arrayBuffers) / MiB, out };
}

const fmt = (v: number, d = 2) => v.toFixed(d).padStart(8);

async function main(): Promise<void> {
  const n = 1e7;
  const x = new Float32Array(n);
  let s = 1;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    x[i] = 0.01 + s / 2 ** 32; // positive: ReduceLogSum stays finite
  }
  const xw = allocStorage(DataType.FLOAT, n) as Float32Array; // in a WebAssembly memory
  xw.set(x);
  const threads = await helperReady();
  console.log(
    `Reductions of 1e7 float32 (${(n * 4) / MiB} MiB), median of ${RUNS} warm runs, keepdims=0, opset 18`,
  );
  console.log(
    "ratio = ORT ms / ours ms (>= 1 means we are faster); ORT: default session (2 intra-op threads here),\n" +
      "ORT1: intraOpNumThreads=1. Ours, WebAssembly SIMD: on a plain input, copy = copied in by one thread,\n" +
      "staged = copied in by this thread while the helper thread reduces (row sums only); on the\n" +
      "allocStorage input, 1T / 2T = read in place by one thread / also by the helper (row sums only).\n" +
      "paths = what ran in the stg and 2T columns (plain input/allocStorage input): stg/2T, or copy/1T\n" +
      `where the reduction has no threaded form; "idle" = the helper got no task (helper ${threads ? "running" : "unavailable"}).\n` +
      "ts = TypeScript path (plain); exec = executor on the allocStorage input; ratio1 uses ORT1\n",
  );
  const head = [
    "op".padEnd(16),
    "shape".padEnd(12),
    "axis",
    "ORT ms",
    "ORT1 ms",
    "copy ms",
    "ratio1",
    "stg ms",
    "ratio",
    "1T ms",
    "ratio1",
    "2T ms",
    "ratio",
    "paths     ",
    "ts ms",
    "ratio",
    "exec ms",
    "ratio",
    "max rel diff",
  ];
  console.log(head.join(" "));
  const memRows: string[] = [];
  for (const op of ops)
    for (const [shape, axis] of configs) {
      const short = op.slice("Reduce".length) as ReduceOp;
      const g = graph({
        nodes: [node(op, ["x", "axes"], ["y"], { keepdims: 0 })],
        inputs: [valueInfo("x", "float", shape)],
        outputs: [valueInfo("y", "float")],
        initializers: [Tensor.from(DataType.INT64, [1], [BigInt(axis)], "axes")],
      });
      const m = model(g, 18);
      const session = await ort.InferenceSession.create(encodeModel(m));
      const feeds = { x: new ort.Tensor("float32", x, shape) };
      let ortOut: Float32Array | undefined;
      const tOrt = await median(async () => {
        ortOut = (await session.run(feeds)).y!.data as Float32Array;
      }, RUNS);
      await session.release();
      const session1 = await ort.InferenceSession.create(encodeModel(m), { intraOpNumThreads: 1 });
      const tOrt1 = await median(() => session1.run(feeds), RUNS);
      await session1.release();

      const xt: RTensor = { dtype: DataType.FLOAT, shape, data: x };
      const xwt: RTensor = { dtype: DataType.FLOAT, shape, data: xw };
      const axesT: RTensor = {
        dtype: DataType.INT64,
        shape: [1],
        data: new BigInt64Array([BigInt(axis)]),
      };
      const ctx: KernelContext = {
        node: g.nodes[0]!,
        opset: 18,
        label: `node (${op})`,
        maxElements: 2 ** 31 - 1,
        runSubgraph: () => [],
      };
      const mem = memoryOf(() => runReduce(ctx, short, xt, axesT));
      // Which path ran, and whether the helper took part.
      const label = async (f: () => unknown): Promise<[number, string]> => {
        const before = helperStats().tasks;
        const t = await median(f, RUNS);
        const ran = lastReduceWasmPath();
        const idle = helperStats().tasks === before ? " idle" : "";
        if (ran === "threads") return [t, `2T${idle}`];
        if (ran === "staged") return [t, `stg${idle}`];
        return [t, ran === "direct" ? "1T" : String(ran)];
      };
      setReduceThreads(false);
      const tWasm = await median(() => runReduce(ctx, short, xt, axesT), RUNS);
      const t1 = await median(() => runReduce(ctx, short, xwt, axesT), RUNS);
      setReduceThreads(true);
      const [tStaged, pathPlain] = await label(() => runReduce(ctx, short, xt, axesT));
      const [t2, pathInPlace] = await label(() => runReduce(ctx, short, xwt, axesT));
      const path = `${pathPlain}/${pathInPlace}`;
      const ours2 = runReduce(ctx, short, xwt, axesT).data as Float32Array;
      setReduceWasmEnabled(false);
      const tTs = await median(() => runReduce(ctx, short, xt, axesT), 5);
      setReduceWasmEnabled(true);
      const tExec = await median(() => run(m, { x: xwt }), 5);

      const ours = mem.out.data as Float32Array;
      let maxRel = 0;
      for (let i = 0; i < ours.length; i++) {
        if (ours2[i] !== ours[i]) throw new Error(`in-place and copying paths differ at ${i}`);
        maxRel = Math.max(maxRel, Math.abs(ours[i]! - ortOut![i]!) / Math.abs(ortOut![i]!));
      }
      console.log(
        [
          op.padEnd(16),
          `[${shape}]`.padEnd(12),
          String(axis).padStart(4),
          fmt(tOrt),
          fmt(tOrt1),
          fmt(tWasm),
          fmt(tOrt1 / tWasm),
          fmt(tStaged),
          fmt(tOrt / tStaged),
          fmt(t1),
          fmt(tOrt1 / t1),
          fmt(t2),
          fmt(tOrt / t2),
          path.padEnd(10),
          fmt(tTs),
          fmt(tOrt / tTs),
          fmt(tExec),
          fmt(tOrt / tExec),
          maxRel.toExponential(2).padStart(12),
        ].join(" "),
      );
      const io = (n * 4 + ours.length * 4) / MiB;
      memRows.push(
        `${op.padEnd(16)} [${shape}] axis ${axis}: inputs+outputs ${io.toFixed(1)} MiB; one run: Δrss ${mem.rss.toFixed(1)} MiB, ΔarrayBuffers ${mem.ab.toFixed(1)} MiB` +
          ` (budget: +64 MiB ${mem.ab <= 64 && mem.rss <= 64 ? "ok" : "EXCEEDED"})`,
      );
    }
  console.log(
    "\nMemory (deltas around one direct kernel call, output still held; includes WebAssembly memory growth):",
  );
  for (const r of memRows) console.log(r);
}

await main();

// LogCumSumExp over 1e7 float32 values: onnxruntime-node (which has no LogCumSumExp-29) running an
// exact expanded body — a Hillis–Steele log-add-exp scan, built here (ceil(log2 n) steps of
// y = lae(y, y shifted by d along the axis, -inf filled), computed in double) — against our
// one-pass kernel (WebAssembly and TypeScript paths), called directly and through the executor.
// Prints medians, ratios ORT/ours (>= 1: we are faster), the largest ulp distance between the
// two, and memory.
//
//   npx tsx bench/lcse.ts
//   npx tsx --expose-gc bench/lcse.ts   (steadier memory figures)

import * as ort from "onnxruntime-node";
import { encodeModel } from "../src/io/files.js";
import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import { Tensor } from "../src/ir/tensor.js";
import type { Model, Node } from "../src/ir/types.js";
import { DataType } from "../src/ir/types.js";
import { run } from "../src/interp/executor.js";
import { logCumSumExp, setLogCumSumExpWasmEnabled } from "../src/interp/kernels/logcumsumexp.js";
import type { RTensor } from "../src/interp/types.js";

const MiB = 2 ** 20;
const gc = (globalThis as { gc?: () => void }).gc;

async function median(f: () => unknown | Promise<unknown>, runs: number): Promise<number> {
  await f();
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const a = performance.now();
    await f();
    t.push(performance.now() - a);
  }
  t.sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)]!;
}

/** The Hillis–Steele expansion of LogCumSumExp along `axis` for a float32 X of static shape. */
function hillisSteeleModel(shape: number[], axis: number): { m: Model; nodes: number } {
  const nodes: Node[] = [];
  const inits: Tensor[] = [];
  let k = 0;
  const op = (type: string, ins: string[], attrs: Record<string, number> = {}): string => {
    const out = `t${k++}`;
    nodes.push(node(type, ins, [out], attrs));
    return out;
  };
  const konst = (name: string, t: Tensor) => {
    t.name = name;
    inits.push(t);
    return name;
  };
  const negInf = konst("neg_inf", Tensor.scalar(DataType.DOUBLE, -Infinity));
  const one = konst("one", Tensor.scalar(DataType.DOUBLE, 1));
  const zero = konst("zero", Tensor.scalar(DataType.DOUBLE, 0));
  const axes = konst("axes", Tensor.from(DataType.INT64, [1], [BigInt(axis)]));
  const starts = konst("starts", Tensor.from(DataType.INT64, [1], [0n]));
  // log(exp(a) + exp(b)) = max + log1p(exp(-|a - b|)); log1p(e) = log(u) * e / (u - 1) with
  // u = 1 + e (e itself when u rounds to 1); an infinite max is the answer; NaN in, NaN out.
  const lae = (a: string, b: string): string => {
    const mx = op("Max", [a, b]);
    const diff = op("Sub", [a, b]);
    const e = op("Exp", [op("Neg", [op("Abs", [diff])])]);
    const u = op("Add", [e, one]);
    const den = op("Sub", [u, one]);
    const l1p = op("Where", [
      op("Equal", [den, zero]),
      e,
      op("Div", [op("Mul", [op("Log", [u]), e]), den]),
    ]);
    const finite = op("Where", [op("IsInf", [mx]), mx, op("Add", [mx, l1p])]);
    return op("Where", [op("Or", [op("IsNaN", [a]), op("IsNaN", [b])]), diff, finite]);
  };
  const n = shape[axis]!;
  let y = op("Cast", ["X"], { to: DataType.DOUBLE });
  for (let d = 1; d < n; d *= 2) {
    const head = op("Slice", [
      y,
      starts,
      konst(`end${d}`, Tensor.from(DataType.INT64, [1], [BigInt(n - d)])),
      axes,
    ]);
    const shifted = op("Pad", [
      head,
      konst(`pads${d}`, Tensor.from(DataType.INT64, [2], [BigInt(d), 0n])),
      negInf,
      axes,
    ]);
    y = lae(y, shifted);
  }
  nodes.push(node("Cast", [y], ["Y"], { to: DataType.FLOAT }));
  const g = graph({
    nodes,
    initializers: inits,
    inputs: [valueInfo("X", "float", shape)],
    outputs: [valueInfo("Y", "float", shape)],
  });
  return { m: model(g, 18, 9), nodes: nodes.length };
}

/** Largest distance in float32 ulps between two arrays (NaN/inf must match exactly). */
function maxUlps(a: Float32Array, b: Float32Array): number {
  const ia = new Int32Array(a.buffer, a.byteOffset, a.length);
  const ib = new Int32Array(b.buffer, b.byteOffset, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    if (Object.is(a[i], b[i])) continue;
    if (!Number.isFinite(a[i]!) || !Number.isFinite(b[i]!)) return Infinity;
    const oa = ia[i]! < 0 ? -(ia[i]! & 0x7fffffff) : ia[i]!;
    const ob = ib[i]! < 0 ? -(ib[i]! & 0x7fffffff) : ib[i]!;
    worst = Math.max(worst, Math.abs(oa - ob));
  }
  return worst;
}

const fmt = (v: number, d = 1) => v.toFixed(d).padStart(9);

async function main(): Promise<void> {
  const n = 1e7;
  const x = new Float32Array(n);
  let s = 7;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    x[i] = (s / 2 ** 32) * 40 - 20;
  }
  console.log(
    `LogCumSumExp of 1e7 float32 (${((n * 4) / MiB).toFixed(1)} MiB), warm medians; ratio = ORT ms / ours ms`,
  );
  console.log(
    "ORT runs the Hillis–Steele expansion (it has no LogCumSumExp-29); max ulps: ours vs ORT's result\n",
  );
  console.log(
    [
      "shape".padEnd(12),
      "axis",
      "ORT H-S ms",
      "(nodes)",
      "wasm ms",
      "ratio",
      "ts ms",
      "ratio",
      "exec ms",
      "ratio",
      "max ulps",
    ].join(" "),
  );
  const memRows: string[] = [];
  for (const [shape, axis] of [
    [[10000, 1000], 1],
    [[10000, 1000], 0],
  ] as [number[], number][]) {
    const hs = hillisSteeleModel(shape, axis);
    const sHs = await ort.InferenceSession.create(encodeModel(hs.m));
    const feeds = { X: new ort.Tensor("float32", x, shape) };
    let ortY: Float32Array | undefined;
    const tHs = await median(async () => {
      ortY = (await sHs.run(feeds)).Y!.data as Float32Array;
    }, 5);
    await sHs.release();

    const xt: RTensor = { dtype: DataType.FLOAT, shape, data: x };
    gc?.();
    const m0 = process.memoryUsage();
    const y = logCumSumExp(xt, axis, "bench");
    const m1 = process.memoryUsage();
    const tOurs = await median(() => logCumSumExp(xt, axis, "bench"), 5);
    setLogCumSumExpWasmEnabled(false);
    const tTs = await median(() => logCumSumExp(xt, axis, "bench"), 5);
    setLogCumSumExpWasmEnabled(true);
    const direct = model(
      graph({
        nodes: [node("LogCumSumExp", ["X"], ["Y"], { axis })],
        inputs: [valueInfo("X", "float", shape)],
        outputs: [valueInfo("Y", "float")],
      }),
      29,
      11,
    );
    let tExec = NaN;
    try {
      tExec = await median(() => run(direct, { X: xt }), 5);
    } catch (e) {
      console.log(`(executor: ${(e as Error).message})`);
    }
    const ulps = maxUlps(y.data as Float32Array, ortY!);
    console.log(
      [
        `[${shape}]`.padEnd(12),
        String(axis).padStart(4),
        fmt(tHs, 0).padStart(10),
        `(${hs.nodes})`.padStart(7),
        fmt(tOurs, 0).padStart(7),
        fmt(tHs / tOurs, 2).padStart(5),
        fmt(tTs, 0).padStart(5),
        fmt(tHs / tTs, 2).padStart(5),
        fmt(tExec, 0).padStart(7),
        fmt(tHs / tExec, 2).padStart(5),
        String(ulps).padStart(8),
      ].join(" "),
    );
    const io = (2 * n * 4) / MiB;
    const drss = (m1.rss - m0.rss) / MiB;
    const dab = (m1.arrayBuffers - m0.arrayBuffers) / MiB;
    memRows.push(
      `[${shape}] axis ${axis}: inputs+outputs ${io.toFixed(1)} MiB; one run: Δrss ${drss.toFixed(1)} MiB, ΔarrayBuffers ${dab.toFixed(1)} MiB` +
        ` (held beyond the input: the output; budget output + 64 MiB: ${dab <= io / 2 + 64 && drss <= io / 2 + 64 ? "ok" : "EXCEEDED"})`,
    );
  }
  console.log("\nMemory (deltas around one direct kernel call, output held):");
  for (const r of memRows) console.log(r);
}

await main();

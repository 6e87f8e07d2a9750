// LogCumSumExp over 1e7 float32 values: onnxruntime-node (which has no LogCumSumExp-29) running the
// schema's exact expanded body (unrolled log-add-exp scan, and the Scan-op form) — against our
// one-pass kernel (WebAssembly and TypeScript paths), called directly and through the executor.
// Prints medians, ratios ORT/ours (>= 1: we are faster), the largest ulp distance between the
// two, and memory.
//
//   npx tsx bench/lcse.ts
//   npx tsx --expose-gc bench/lcse.ts   (steadier memory figures)

import { median } from "./timing.js";
import * as ort from "onnxruntime-node";
import { encodeModel } from "../src/io/files.js";
import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import { NameScope } from "../src/ir/graph.js";
import { SchemaRegistry } from "../src/schema/index.js";
import { callInputTypes, inlineCall } from "../src/expand/inline.js";
import { walkGraphNodes } from "../src/ir/visit.js";
import type { Model } from "../src/ir/types.js";
import { DataType } from "../src/ir/types.js";
import { run } from "../src/interp/executor.js";
import { logCumSumExp, setLogCumSumExpWasmEnabled } from "../src/interp/kernels/logcumsumexp.js";
import type { RTensor } from "../src/interp/types.js";

const MiB = 2 ** 20;
const gc = (globalThis as { gc?: () => void }).gc;

/**
 * The model `Y = LogCumSumExp(X)` expanded with the schema's own body (src/schema/builders):
 * the unrolled log-add-exp scan for a static axis length, or the Scan form with preferLoops.
 */
function expandedModel(
  shape: number[],
  axis: number,
  preferLoops: boolean,
): { m: Model; nodes: number } {
  const call = node("LogCumSumExp", ["X"], ["Y"], { axis });
  const g = graph({
    nodes: [call],
    inputs: [valueInfo("X", "float", shape)],
    outputs: [valueInfo("Y", "float", shape)],
  });
  const op = SchemaRegistry.default().resolve("", "LogCumSumExp", 29);
  const m = model(g, 29, 10);
  const body = inlineCall(call, op, callInputTypes(m, call), new NameScope(g), { preferLoops });
  const opset = Math.max(...body.opsetImports.map((o) => o.version));
  const expanded = { ...g, nodes: body.nodes };
  return { m: model(expanded, opset, 10), nodes: [...walkGraphNodes(expanded)].length };
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
    "ORT runs the schema's expanded body (it has no LogCumSumExp-29): H-S = unrolled log-add-exp scan,\n" +
      "Scan = the Scan-op form; ratio uses the faster of the two; max ulps: ours vs ORT's H-S result\n",
  );
  console.log(
    [
      "shape".padEnd(12),
      "axis",
      "ORT H-S ms",
      "(nodes)",
      "ORT Scan ms",
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
    const hs = expandedModel(shape, axis, false);
    const sHs = await ort.InferenceSession.create(encodeModel(hs.m));
    const feeds = { X: new ort.Tensor("float32", x, shape) };
    let ortY: Float32Array | undefined;
    const tUnrolled = await median(async () => {
      ortY = (await sHs.run(feeds)).Y!.data as Float32Array;
    }, 5);
    await sHs.release();
    const sScan = await ort.InferenceSession.create(
      encodeModel(expandedModel(shape, axis, true).m),
    );
    const tScan = await median(() => sScan.run(feeds), 5);
    await sScan.release();
    const tHs = Math.min(tUnrolled, tScan);

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
        fmt(tUnrolled, 0).padStart(10),
        `(${hs.nodes})`.padStart(7),
        fmt(tScan, 0).padStart(11),
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

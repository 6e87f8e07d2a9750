// onnxruntime-node as the independent runtime: tensors both ways, seeded random inputs, running a
// model, and a comparison of the interpreter's outputs with onnxruntime's on the same model and
// inputs.

import * as ort from "onnxruntime-node";
import { expect } from "vitest";
import { compareTensors } from "../../src/interp/backend-test.js";
import { toIRTensor as toIR } from "../../src/interp/ir-tensors.js";
import { run } from "../../src/interp/executor.js";
import { fromFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import { encodeModel } from "../../src/io/files.js";
import { walkTensors } from "../../src/ir/visit.js";
import type { Graph, Model } from "../../src/ir/types.js";
import { DataType, node } from "./interp.js";

export { FROM_ORT, ORT_TYPE, fromOrt, toOrt } from "./ort-tensors.js";
import { fromOrt, toOrt } from "./ort-tensors.js";

/**
 * The folder of the model's external data files (undefined when it has none): onnxruntime reads
 * them from there although the model itself is given as bytes.
 */
function externalDataFolder(m: Model): string | undefined {
  const dirs = new Set<string>();
  for (const t of walkTensors(m)) if (t.data.kind === "external") dirs.add(t.data.baseDir ?? ".");
  if (dirs.size > 1)
    throw new Error(`external data in ${dirs.size} folders: ${[...dirs].join(", ")}`);
  return [...dirs][0];
}

/**
 * Runs a model on onnxruntime-node; returns the graph outputs by name. `optimized: false` turns
 * onnxruntime's graph optimizations off (its QDQ fusions compute a quantized model's ops in
 * integers, which the model as written does not say). `threads` sets the intra-op thread count
 * (default: onnxruntime's, which depends on the machine; a few kernels' numbers depend on it, as
 * DynamicQuantizeLSTM's, see docs/semantics.md).
 */
export async function runOrt(
  m: Model,
  feeds: Record<string, RTensor>,
  opts: { optimized?: boolean; threads?: number } = {},
): Promise<Record<string, RTensor>> {
  const folder = externalDataFolder(m);
  const session = await ort.InferenceSession.create(encodeModel(m), {
    // Warnings (the transpose optimizer on old opsets, ...) are not results: errors only.
    logSeverityLevel: 3,
    ...(opts.optimized === false ? { graphOptimizationLevel: "disabled" as const } : {}),
    ...(opts.threads !== undefined ? { intraOpNumThreads: opts.threads } : {}),
    ...(folder
      ? { extra: { session: { model_external_initializers_file_folder_path: folder } } }
      : {}),
  });
  try {
    const out = await session.run(
      Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, toOrt(v)])),
    );
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, fromOrt(v)]));
  } finally {
    await session.release();
  }
}

/** A deterministic pseudo-random generator (xorshift32). */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** Seeded uniform values in [lo, hi) of a dtype (integers rounded). */
export function random(dtype: number, shape: number[], seed: number, lo = -3, hi = 3): RTensor {
  const r = rng(seed);
  const n = shape.reduce((p, d) => p * d, 1);
  const v = Float64Array.from({ length: n }, () => lo + (hi - lo) * r());
  if (dtype === DataType.INT64)
    return { dtype, shape, data: BigInt64Array.from(v, (x) => BigInt(Math.round(x))) };
  const integer =
    dtype !== DataType.FLOAT &&
    dtype !== DataType.DOUBLE &&
    dtype !== DataType.FLOAT16 &&
    dtype !== DataType.BFLOAT16;
  return fromFloat64(dtype, shape, integer ? v.map(Math.round) : v);
}

/** Runs the model in the interpreter and in onnxruntime-node and expects equal outputs. */
export async function compareWithOrt(
  m: Model,
  feeds: Record<string, RTensor>,
  tol = { rtol: 1e-5, atol: 1e-6 },
): Promise<void> {
  const ours = run(m, feeds);
  const theirs = await runOrt(m, feeds);
  for (const o of m.graph.outputs) {
    const diff = compareTensors(ours[o.name]!, theirs[o.name]!, tol);
    expect(diff, `output '${o.name}'`).toBeUndefined();
  }
}

/**
 * Runs two models on onnxruntime-node and expects the second's outputs to be the first's, bit for
 * bit (element type, shape and every value: a rewrite that must be exact).
 */
export async function expectSameOnOrt(
  a: Model,
  b: Model,
  feeds: Record<string, RTensor>,
): Promise<void> {
  const [x, y] = [await runOrt(a, feeds), await runOrt(b, feeds)];
  for (const k of Object.keys(x)) {
    expect(y[k]!.dtype, k).toBe(x[k]!.dtype);
    expect(y[k]!.shape, k).toEqual(x[k]!.shape);
    expect([...y[k]!.data], k).toEqual([...x[k]!.data]);
  }
}

/** Puts constant inputs into the graph as Constant nodes, so both runtimes see the same graph. */
export function prependConstants(g: Graph, consts: Record<string, RTensor>): void {
  g.nodes.unshift(
    ...Object.entries(consts).map(([name, t]) =>
      node(
        "Constant",
        [],
        [name],
        {},
        { attributes: [{ name: "value", type: "TENSOR", value: toIR(t) }] },
      ),
    ),
  );
}

// Generates ONNX backend-test folders (model.onnx, test_data_set_0/input_*.pb, output_0.pb) under
// test/data/ for the examples of the seed pages: ReduceLogSum (seed 000: desc/asc axes, default,
// negative axes; at opsets 18, 13, 11 and 1) and LogCumSumExp-29 (seed 001: dynamic range, axes
// 0/1/2/-1/-3, special values, empty inputs, float16/bfloat16 low precision).
//
// Expected outputs come from the seeds' formulas evaluated here in float64 (a plain multi-index
// loop, independent of the interpreter's kernels), then rounded once to the element type.
// Random data comes from a fixed-seed generator, so the files are reproducible.
//
//   npx tsx scripts/gen-seed-tests.ts [outDir=test/data]

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeModel } from "../src/io/files.js";
import { encodeTensorBytes } from "../src/io/encode.js";
import { graph, model, node, valueInfo, type AttrInput } from "../src/ir/builder.js";
import { Tensor } from "../src/ir/tensor.js";
import { DataType } from "../src/ir/types.js";

const outDir = process.argv[2] ?? "test/data";

interface Io {
  name: string;
  dtype: number;
  shape: number[];
  values: number[] | bigint[];
}

function tensorBytes(t: Io): Uint8Array {
  return encodeTensorBytes(Tensor.from(t.dtype, t.shape, t.values, t.name));
}

function writeTest(
  name: string,
  opset: number,
  irVersion: number,
  op: string,
  attrs: Record<string, AttrInput>,
  inputs: Io[],
  output: Io,
): void {
  const dir = join(outDir, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "test_data_set_0"), { recursive: true });
  const g = graph({
    name,
    nodes: [
      node(
        op,
        inputs.map((i) => i.name),
        [output.name],
        attrs,
      ),
    ],
    inputs: inputs.map((i) => valueInfo(i.name, i.dtype, i.shape)),
    outputs: [valueInfo(output.name, output.dtype, output.shape)],
  });
  writeFileSync(join(dir, "model.onnx"), encodeModel(model(g, opset, irVersion)));
  inputs.forEach((t, i) =>
    writeFileSync(join(dir, "test_data_set_0", `input_${i}.pb`), tensorBytes(t)),
  );
  writeFileSync(join(dir, "test_data_set_0", "output_0.pb"), tensorBytes(output));
  console.log(`${dir}`);
}

// mulberry32: a small seeded generator for uniform [0, 1) values.
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const size = (shape: number[]) => shape.reduce((a, b) => a * b, 1);

/** Row-major multi-index of flat position i. */
function unravel(i: number, shape: number[]): number[] {
  const idx = new Array<number>(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    idx[d] = i % shape[d]!;
    i = Math.floor(i / shape[d]!);
  }
  return idx;
}

function ravel(idx: number[], shape: number[]): number {
  let p = 0;
  for (let d = 0; d < shape.length; d++) p = p * shape[d]! + idx[d]!;
  return p;
}

/** log(sum(data, axes, keepdims)) in float64, as numpy computes it in the seed (axes undefined: all). */
function logSumReference(
  data: number[],
  shape: number[],
  axes: number[] | undefined,
  keepdims: boolean,
): { shape: number[]; values: number[] } {
  const r = shape.length;
  const red = new Set((axes ?? shape.map((_, i) => i)).map((a) => (a < 0 ? a + r : a)));
  const keptShape = shape.map((d, i) => (red.has(i) ? 1 : d));
  const sums = new Array<number>(size(keptShape)).fill(0);
  for (let i = 0; i < data.length; i++) {
    const idx = unravel(i, shape).map((v, d) => (red.has(d) ? 0 : v));
    sums[ravel(idx, keptShape)] += data[i]!;
  }
  const outShape = keepdims ? keptShape : shape.filter((_, i) => !red.has(i));
  return { shape: outShape, values: sums.map(Math.log) };
}

function reduceLogSumTests(): void {
  const examples: { name: string; axes: number[]; keepdims: number }[] = [
    { name: "desc_axes", axes: [2, 1], keepdims: 0 },
    { name: "asc_axes", axes: [0, 1], keepdims: 0 },
    { name: "default", axes: [], keepdims: 1 },
    { name: "negative_axes", axes: [-2], keepdims: 1 },
  ];
  examples.forEach((ex, k) => {
    const shape = [3, 4, 5];
    const next = rng(1000 + k);
    const data = Array.from({ length: size(shape) }, () => Math.fround(next())); // np.random.ranf, float32
    const ref = logSumReference(
      data,
      shape,
      ex.axes.length ? ex.axes : undefined,
      ex.keepdims === 1,
    );
    const x: Io = { name: "data", dtype: DataType.FLOAT, shape, values: data };
    const y: Io = { name: "reduced", dtype: DataType.FLOAT, shape: ref.shape, values: ref.values };
    for (const opset of [18, 13, 11, 1]) {
      const name = `test_reduce_log_sum_${ex.name}${opset === 18 ? "" : `_opset${opset}`}`;
      if (opset === 18) {
        // Version 18: axes is an input (an empty one reduces over all axes).
        const axes: Io = {
          name: "axes",
          dtype: DataType.INT64,
          shape: [ex.axes.length],
          values: ex.axes.map(BigInt),
        };
        const attrs = ex.keepdims === 1 ? {} : { keepdims: ex.keepdims };
        writeTest(name, opset, 8, "ReduceLogSum", attrs, [x, axes], y);
      } else {
        // Earlier versions: axes is an attribute; absent means all axes.
        const attrs: Record<string, AttrInput> = ex.axes.length ? { axes: ex.axes } : {};
        if (ex.keepdims !== 1) attrs.keepdims = ex.keepdims;
        writeTest(name, opset, 8, "ReduceLogSum", attrs, [x], y);
      }
    }
  });
}

/** log(cumsum(exp(x), axis)) in float64, the seed's formula for the axis example. */
function logCumSumExpPlain(x: number[], shape: number[], axis: number): number[] {
  const a = axis < 0 ? axis + shape.length : axis;
  return x.map((_, i) => {
    const idx = unravel(i, shape);
    let s = 0;
    for (let k = 0; k <= idx[a]!; k++) {
      const j = [...idx];
      j[a] = k;
      s += Math.exp(x[ravel(j, shape)]!);
    }
    return Math.log(s);
  });
}

function logCumSumExpTests(): void {
  const opset = 29;
  const ir = 14;
  const io = (name: string, dtype: number, shape: number[], values: number[]): Io => ({
    name,
    dtype,
    shape,
    values,
  });
  const lcse = (
    name: string,
    attrs: Record<string, AttrInput>,
    dtype: number,
    shape: number[],
    x: number[],
    y: number[],
  ) =>
    writeTest(
      name,
      opset,
      ir,
      "LogCumSumExp",
      attrs,
      [io("X", dtype, shape, x)],
      io("Y", dtype, shape, y),
    );

  // The exact result is the input itself: each later term dwarfs the sum before it.
  lcse(
    "test_logcumsumexp_dynamic_range",
    {},
    DataType.FLOAT,
    [3],
    [-200, -100, 100],
    [-200, -100, 100],
  );

  const x = Array.from({ length: 24 }, (_, i) => Math.log(i + 1));
  for (const axis of [0, 1, 2, -1, -3])
    lcse(
      `test_logcumsumexp_axis_${axis}`,
      { axis },
      DataType.DOUBLE,
      [2, 3, 4],
      x,
      logCumSumExpPlain(x, [2, 3, 4], axis),
    );

  const I = Infinity;
  lcse(
    "test_logcumsumexp_special_values",
    { axis: 1 },
    DataType.FLOAT,
    [5, 4],
    [-I, -I, -I, -I, -I, 0, I, -I, 0, I, I, 1, 0, NaN, I, -I, I, -I, NaN, 0],
    [-I, -I, -I, -I, -I, 0, I, I, 0, I, I, I, 0, NaN, NaN, NaN, I, I, NaN, NaN],
  );

  for (const [shape, axis] of [
    [[2, 0, 3], 1],
    [[0, 3], -1],
  ] as [number[], number][])
    lcse(`test_logcumsumexp_empty_axis_${axis}`, { axis }, DataType.FLOAT, shape, [], []);

  const zeros = new Array<number>(128).fill(0);
  const logs = Array.from({ length: 128 }, (_, i) => Math.log(i + 1));
  lcse("test_logcumsumexp_float16", {}, DataType.FLOAT16, [128], zeros, logs);
  lcse("test_logcumsumexp_bfloat16", {}, DataType.BFLOAT16, [128], zeros, logs);
}

reduceLogSumTests();
logCumSumExpTests();

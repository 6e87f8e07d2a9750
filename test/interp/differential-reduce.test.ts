// Differential test: ReduceSum, ReduceLogSum and ReduceL1 at opsets 11, 13 and 18 against
// onnxruntime-node, on seeded random cases (shapes with zero dims and rank 0; axes absent, empty,
// negative, duplicated; keepdims; noop_with_empty_axes; every dtype ORT's CPU provider accepts for
// these ops: float, double, float16, int32, int64). Each model is built as IR, encoded, and run in
// ORT and in our executor (which dispatches to the Reduce kernels).
//
// Where ORT and SEMANTICS.md disagree, SEMANTICS.md wins; those cases are listed at the end with
// both results asserted, so a change on either side shows up.
//
// The other Reduce ops (Mean, Prod, Max, Min, L2, SumSquare, LogSumExp) get a smaller seeded set at
// opsets 13 and 18 on non-empty inputs, for the types ORT implements.

import * as ort from "onnxruntime-node";
import { describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import { numberToFloat16Bits, float16BitsToNumber } from "../../src/ir/dtype.js";
import { decodeModel, encodeModel } from "../../src/io/files.js";
import { graph, model, node, valueInfo, type AttrInput } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType } from "../../src/ir/types.js";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";

type DT = "float" | "double" | "float16" | "int32" | "int64";
const ORT_TYPE: Record<DT, ort.Tensor.Type> = {
  float: "float32",
  double: "float64",
  float16: "float16",
  int32: "int32",
  int64: "int64",
};
const DT_ID: Record<DT, number> = {
  float: DataType.FLOAT,
  double: DataType.DOUBLE,
  float16: DataType.FLOAT16,
  int32: DataType.INT32,
  int64: DataType.INT64,
};

interface Case {
  op: string;
  opset: number;
  dt: DT;
  shape: number[];
  values: number[];
  /** undefined: absent; [] empty. */
  axes?: number[];
  attrs: Record<string, AttrInput>;
}

function axesAreInput(op: string, opset: number): boolean {
  return op === "ReduceSum" ? opset >= 13 : opset >= 18;
}

function storage(dt: DT, values: number[]): RTensor["data"] {
  switch (dt) {
    case "float":
      return new Float32Array(values);
    case "double":
      return new Float64Array(values);
    case "float16":
      return Uint16Array.from(values, numberToFloat16Bits);
    case "int32":
      return new Int32Array(values);
    case "int64":
      return BigInt64Array.from(values, (v) => BigInt(v));
  }
}

function buildModel(c: Case): Uint8Array {
  const inputs = ["x"];
  const inits: Tensor[] = [];
  const attrs = { ...c.attrs };
  if (c.axes !== undefined) {
    if (axesAreInput(c.op, c.opset)) {
      inputs.push("axes");
      inits.push(Tensor.from(DataType.INT64, [c.axes.length], c.axes.map(BigInt), "axes"));
    } else attrs.axes = c.axes.map(BigInt);
  }
  const g = graph({
    nodes: [node(c.op, inputs, ["y"], attrs, { name: "r" })],
    inputs: [valueInfo("x", c.dt, c.shape)],
    outputs: [valueInfo("y", c.dt)],
    initializers: inits,
  });
  return encodeModel(model(g, c.opset));
}

type Outcome = { shape: number[]; values: number[] } | { error: string };

async function runOrt(c: Case): Promise<Outcome> {
  try {
    const s = await ort.InferenceSession.create(buildModel(c));
    const r = await s.run({
      x: new ort.Tensor(ORT_TYPE[c.dt], storage(c.dt, c.values) as never, c.shape),
    });
    const y = r.y!;
    await s.release();
    const data = Array.from(y.data as ArrayLike<number | bigint>, (v) => Number(v));
    return {
      shape: [...y.dims],
      values: c.dt === "float16" ? data.map(float16BitsToNumber) : data,
    };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function runOurs(c: Case): Outcome {
  try {
    const y = run(decodeModel(buildModel(c)), {
      x: { dtype: DT_ID[c.dt], shape: c.shape, data: storage(c.dt, c.values) },
    }).y!;
    const data = Array.from(y.data as ArrayLike<number | bigint>, (v) => Number(v));
    return { shape: y.shape, values: c.dt === "float16" ? data.map(float16BitsToNumber) : data };
  } catch (e) {
    if (!(e instanceof OnnxError)) throw e;
    return { error: e.message };
  }
}

function tolerance(dt: DT): { rel: number; abs: number } {
  if (dt === "float") return { rel: 2e-6, abs: 1e-6 };
  if (dt === "double") return { rel: 1e-12, abs: 1e-12 };
  if (dt === "float16") return { rel: 2e-3, abs: 2e-3 };
  return { rel: 0, abs: 0 };
}

function expectClose(ours: Outcome, theirs: Outcome, c: Case): void {
  const what = JSON.stringify(c);
  if ("error" in theirs || "error" in ours) {
    expect(
      "error" in ours,
      `${what}\nours: ${JSON.stringify(ours)}\nORT: ${JSON.stringify(theirs)}`,
    ).toBe("error" in theirs);
    return;
  }
  expect(ours.shape, what).toEqual(theirs.shape);
  const { rel, abs } = tolerance(c.dt);
  for (let i = 0; i < ours.values.length; i++) {
    const a = ours.values[i]!;
    const b = theirs.values[i]!;
    if (Number.isNaN(b) || !Number.isFinite(b)) expect(a, `${what} [${i}]`).toBe(b);
    else
      expect(Math.abs(a - b), `${what} [${i}]: ours ${a}, ORT ${b}`).toBeLessThanOrEqual(
        abs + rel * Math.abs(b),
      );
  }
}

// Seeded generator (mulberry32) so every run sees the same cases.
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeCases(): Case[] {
  const r = rng(20261202);
  const int = (n: number) => Math.floor(r() * n);
  const cases: Case[] = [];
  for (const op of ["ReduceSum", "ReduceLogSum", "ReduceL1"] as const)
    for (const opset of [11, 13, 18])
      for (const dt of ["float", "double", "float16", "int32", "int64"] as DT[])
        for (let k = 0; k < 12; k++) {
          const rank = int(5);
          const shape = Array.from({ length: rank }, () => (r() < 0.08 ? 0 : 1 + int(4)));
          const n = shape.reduce((a, b) => a * b, 1);
          const isInt = dt === "int32" || dt === "int64";
          const logSum = op === "ReduceLogSum";
          // Integer ReduceLogSum stays on positive values (a sum <= 0 is a listed difference below).
          const values = Array.from({ length: n }, () => {
            if (isInt) return logSum ? 1 + int(9) : int(101) - 50;
            const v = logSum ? 0.05 + r() * 3 : r() * 10 - 5;
            return dt === "float16"
              ? float16BitsToNumber(numberToFloat16Bits(v))
              : dt === "float"
                ? Math.fround(v)
                : v;
          });
          let axes: number[] | undefined;
          const mode = int(4);
          if (rank > 0 && mode >= 2) {
            axes = Array.from({ length: 1 + int(3) }, () => int(2 * rank) - rank);
          } else if (mode === 1) axes = [];
          const attrs: Record<string, AttrInput> = { keepdims: int(2) };
          if (axesAreInput(op, opset) && r() < 0.4) attrs.noop_with_empty_axes = 1;
          const c: Case = { op, opset, dt, shape, values, attrs };
          if (axes !== undefined) c.axes = axes;
          // An empty reduction set under integer ReduceLogSum is a listed difference; skip it here.
          if (isInt && logSum && n === 0) continue;
          cases.push(c);
        }
  return cases;
}

describe("differential: ReduceSum / ReduceLogSum / ReduceL1 vs onnxruntime-node", () => {
  const cases = makeCases();
  it(`has at least 500 cases (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(500);
  });
  for (const op of ["ReduceSum", "ReduceLogSum", "ReduceL1"])
    for (const opset of [11, 13, 18])
      it(`${op}-${opset}`, { timeout: 30000 }, async () => {
        const mine = cases.filter((c) => c.op === op && c.opset === opset);
        for (const c of mine) {
          const ours = runOurs(c);
          const theirs = await runOrt(c);
          if (c.values.length === 0) {
            // Empty inputs: ORT's output shape is wrong when explicit axes meet a zero-sized
            // dimension (it keeps some reduced dimensions at 0, e.g. [0,3,3] axes [0] keepdims 0
            // gives [0,3,3]). Ours must match SEMANTICS.md; ORT is compared only where it agrees.
            const want = expectedForEmpty(c);
            expect(ours, JSON.stringify(c)).toEqual(want);
            if ("shape" in theirs && JSON.stringify(theirs.shape) === JSON.stringify(want.shape))
              expectClose(ours, theirs, c);
            else ortEmptyShapeDiffers++;
          } else expectClose(ours, theirs, c);
        }
      });
  it("ORT's empty-input shape quirk is the only divergence there", () => {
    // Recorded so the count is visible; a change in ORT or in the generator moves it.
    expect(ortEmptyShapeDiffers).toBeGreaterThan(0);
  });
});

let ortEmptyShapeDiffers = 0;

/** SEMANTICS.md for an input with no elements: the output shape, filled with the empty-set value. */
function expectedForEmpty(c: Case): { shape: number[]; values: number[] } {
  const r = c.shape.length;
  const noop = c.attrs.noop_with_empty_axes === 1 && axesAreInput(c.op, c.opset);
  const reduced = new Array<boolean>(r).fill(false);
  if (c.axes === undefined || c.axes.length === 0) reduced.fill(!noop);
  else for (const a of c.axes) reduced[a < 0 ? a + r : a] = true;
  const keep = c.attrs.keepdims !== 0;
  const shape: number[] = [];
  c.shape.forEach((d, i) => {
    if (!reduced[i]) shape.push(d);
    else if (keep) shape.push(1);
  });
  const n = shape.reduce((a, b) => a * b, 1);
  return { shape, values: new Array<number>(n).fill(c.op === "ReduceLogSum" ? -Infinity : 0) };
}

// The rest of the family, on non-empty inputs (their empty-set values are unit-tested), at the
// last attribute version and the first input version of axes.
const OTHER_OPS = [
  "ReduceMean",
  "ReduceProd",
  "ReduceMax",
  "ReduceMin",
  "ReduceL2",
  "ReduceSumSquare",
  "ReduceLogSumExp",
];

function makeOtherCases(): Case[] {
  const r = rng(7);
  const int = (n: number) => Math.floor(r() * n);
  const cases: Case[] = [];
  for (const op of OTHER_OPS)
    for (const opset of [13, 18])
      for (const dt of ["float", "double", "int32", "int64"] as DT[])
        for (let k = 0; k < 5; k++) {
          const rank = 1 + int(3);
          const shape = Array.from({ length: rank }, () => 1 + int(4));
          const n = shape.reduce((a, b) => a * b, 1);
          const isInt = dt === "int32" || dt === "int64";
          const values = Array.from({ length: n }, () => {
            if (op === "ReduceProd") return isInt ? 1 + int(3) : 0.5 + r();
            const v = isInt ? int(21) - 10 : r() * 6 - 3;
            return dt === "float" ? Math.fround(v) : v;
          });
          const c: Case = { op, opset, dt, shape, values, attrs: { keepdims: int(2) } };
          if (int(3) > 0)
            c.axes = Array.from({ length: 1 + int(rank) }, () => int(2 * rank) - rank);
          cases.push(c);
        }
  return cases;
}

describe("differential: the other Reduce ops vs onnxruntime-node", () => {
  const cases = makeOtherCases();
  for (const op of OTHER_OPS)
    it(op, { timeout: 30000 }, async () => {
      let compared = 0;
      for (const c of cases.filter((c) => c.op === op)) {
        const theirs = await runOrt(c);
        // ORT's CPU provider lacks some of these types; nothing to compare with there.
        if ("error" in theirs && /Could not find an implementation|Type Error/.test(theirs.error))
          continue;
        // Integer ReduceLogSumExp is a listed difference (below).
        if (op === "ReduceLogSumExp" && (c.dt === "int32" || c.dt === "int64")) continue;
        expectClose(runOurs(c), theirs, c);
        compared++;
      }
      expect(compared).toBeGreaterThanOrEqual(20);
    });
});

describe("listed differences: SEMANTICS.md wins over ORT", () => {
  const base = { attrs: { keepdims: 0 } };
  it("float32 accumulates in float64 here, in float32 in ORT", async () => {
    const c: Case = {
      ...base,
      op: "ReduceSum",
      opset: 13,
      dt: "float",
      shape: [3],
      values: [1e8, 1, -1e8],
    };
    expect(await runOrt(c)).toEqual({ shape: [], values: [0] });
    expect(runOurs(c)).toEqual({ shape: [], values: [1] });
    const l1: Case = {
      ...base,
      op: "ReduceL1",
      opset: 18,
      dt: "float",
      shape: [3],
      values: [2 ** 24, 1, 1],
    };
    expect(await runOrt(l1)).toEqual({ shape: [], values: [2 ** 24] });
    expect(runOurs(l1)).toEqual({ shape: [], values: [2 ** 24 + 2] });
  });
  it("integer ReduceLogSumExp: ORT truncates the log term and adds the max; we truncate the whole result", async () => {
    // exact: -5 + log(1 + e^-2 + e^-4 + e^-5) = -4.83; the ONNX v18 function body (double, Log,
    // CastLike) truncates that toward zero: -4. ORT's kernel gives -5.
    const c: Case = {
      ...base,
      op: "ReduceLogSumExp",
      opset: 18,
      dt: "int32",
      shape: [4],
      values: [-7, -9, -5, -10],
    };
    expect(await runOrt(c)).toEqual({ shape: [], values: [-5] });
    expect(runOurs(c)).toEqual({ shape: [], values: [-4] });
  });
  it("int32 ReduceSum overflow: ORT saturates, we wrap modulo 2^32", async () => {
    const c: Case = {
      ...base,
      op: "ReduceSum",
      opset: 13,
      dt: "int32",
      shape: [2],
      values: [2 ** 31 - 1, 1],
    };
    expect(await runOrt(c)).toEqual({ shape: [], values: [2 ** 31 - 1] });
    expect(runOurs(c)).toEqual({ shape: [], values: [-(2 ** 31)] });
  });
  it("int32 ReduceL1 of the minimum: ORT saturates, we wrap (Abs of the minimum is itself)", async () => {
    const c: Case = {
      ...base,
      op: "ReduceL1",
      opset: 18,
      dt: "int32",
      shape: [1],
      values: [-(2 ** 31)],
      axes: [0],
    };
    expect(await runOrt(c)).toEqual({ shape: [], values: [2 ** 31 - 1] });
    expect(runOurs(c)).toEqual({ shape: [], values: [-(2 ** 31)] });
  });
  it("integer ReduceLogSum of a sum <= 0 or an empty set: ORT gives the type minimum, we raise an error", async () => {
    for (const c of [
      { ...base, op: "ReduceLogSum", opset: 18, dt: "int32", shape: [2], values: [-6, 3] },
      { ...base, op: "ReduceLogSum", opset: 18, dt: "int32", shape: [2, 0], values: [], axes: [1] },
    ] as Case[]) {
      const theirs = await runOrt(c);
      expect("values" in theirs && theirs.values.every((v) => v === -(2 ** 31))).toBe(true);
      const ours = runOurs(c);
      expect("error" in ours && ours.error).toMatch(
        /node 'r' \(ReduceLogSum\): integer sum 0? ?-?\d* ?has no logarithm/,
      );
    }
  });
});

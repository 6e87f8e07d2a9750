// Kernels against the spec where differential testing (interpreter vs onnxruntime-node) found
// them wrong, and the decided rules for NaN, Inf and rounding edge cases (docs/semantics.md,
// "Edge cases found by differential testing"). Values marked "ORT" were measured with
// onnxruntime-node 1.30.

import { describe, expect, it } from "vitest";
import { DataType, f32, i64, runOne, vals } from "../helpers/interp.js";

const N = NaN;
const I = Infinity;
const one = (spec: Parameters<typeof runOne>[0]) => vals(runOne(spec)[0]!);

describe("wrong kernels, fixed", () => {
  it("Clip with min > max gives max everywhere (Min(max, Max(x, min))); NaN stays NaN", () => {
    expect(
      one({ op: "Clip", inputs: [f32([3], [-5, 0.5, 5]), f32([], [1]), f32([], [0])], opset: 13 }),
    ).toEqual([0, 0, 0]);
    expect(
      one({ op: "Clip", inputs: [f32([2], [N, 2]), f32([], [0]), f32([], [1])], opset: 13 }),
    ).toEqual([N, 1]);
  });

  it("LayerNormalization broadcasts a Scale of higher rank multidirectionally", () => {
    const y = one({
      op: "LayerNormalization",
      inputs: [f32([2, 2], [1, 2, 3, 5]), f32([2, 2], [1, 1, 10, 10])],
      opset: 17,
    });
    // Row 1 is scaled by 10, not by Scale's first row (ORT: -9.99995, 9.99995).
    expect(y[2]).toBeCloseTo(-9.99995, 4);
    expect(y[3]).toBeCloseTo(9.99995, 4);
    expect(y[0]).toBeCloseTo(-0.99998, 4);
    // A Scale of rank 3 makes a rank-3 output.
    const [t] = runOne({
      op: "LayerNormalization",
      inputs: [f32([2], [1, 3]), f32([2, 1, 2], [1, 1, 2, 2]), f32([2], [0, 1])],
      opset: 17,
      outputs: 1,
    });
    expect(t!.shape).toEqual([2, 1, 2]);
    expect(vals(t!).map((v) => Math.round(Number(v) * 1e4) / 1e4)).toEqual([-1, 2, -2, 3]);
  });

  it("MatMul keeps 0 x Inf and 0 x NaN (NaN)", () => {
    expect(
      one({ op: "MatMul", inputs: [f32([1, 2], [0, 1]), f32([2, 1], [I, 1])], opset: 13 }),
    ).toEqual([N]);
    expect(
      one({ op: "MatMul", inputs: [f32([1, 2], [0, 1]), f32([2, 1], [N, 1])], opset: 13 }),
    ).toEqual([N]);
  });
});

describe("decided edge cases", () => {
  it("Conv: a padded tap multiplies 0 by its weight, so an Inf or NaN weight there gives NaN (ORT)", () => {
    expect(
      one({
        op: "Conv",
        inputs: [f32([1, 1, 1, 2], [1, 2]), f32([1, 1, 1, 3], [N, 1, 1])],
        attrs: { pads: [0, 1, 0, 1] },
        opset: 13,
      }),
    ).toEqual([N, N]);
    expect(
      one({ op: "Conv", inputs: [f32([1, 1, 1, 2], [0, 2]), f32([1, 1, 1, 1], [I])], opset: 13 }),
    ).toEqual([N, I]);
  });

  it("Resize: a tap of weight 0 is skipped (ORT; ONNX's reference multiplies and gives NaN)", () => {
    const x = f32([1, 1, 1, 3], [I, 2, 4]);
    const y = one({
      op: "Resize",
      inputs: [x, f32([4], [1, 1, 1, 2])],
      names: ["x0", "", "x1"],
      attrs: { mode: "linear", coordinate_transformation_mode: "asymmetric" },
      opset: 13,
    });
    expect(y).toEqual([I, I, 2, 3, 4, 4]);
  });

  it("MaxPool: any NaN in the window gives NaN, wherever it is", () => {
    const p = (v: number[]) =>
      one({
        op: "MaxPool",
        inputs: [f32([1, 1, 1, 4], v)],
        attrs: { kernel_shape: [1, 2] },
        opset: 13,
      });
    expect(p([N, 1, 2, 3])).toEqual([N, 2, 3]);
    expect(p([1, N, 2, 3])).toEqual([N, N, 3]);
  });

  it("ArgMax/ArgMin/Hardmax: the first NaN (the last with select_last_index) is the extreme", () => {
    const x = f32([5], [1, N, 3, N, 2]);
    expect(one({ op: "ArgMax", inputs: [x], attrs: { keepdims: 0 }, opset: 13 })).toEqual([1n]);
    expect(one({ op: "ArgMin", inputs: [x], attrs: { keepdims: 0 }, opset: 13 })).toEqual([1n]);
    expect(
      one({ op: "ArgMax", inputs: [x], attrs: { keepdims: 0, select_last_index: 1 }, opset: 13 }),
    ).toEqual([3n]);
    expect(
      one({ op: "ArgMax", inputs: [f32([3], [1, 3, N])], attrs: { keepdims: 0 }, opset: 13 }),
    ).toEqual([2n]);
    expect(one({ op: "Hardmax", inputs: [f32([4], [1, N, 3, 2])], opset: 13 })).toEqual([
      0, 1, 0, 0,
    ]);
  });

  it("TopK: NaN sorts above every number", () => {
    const x = f32([4], [1, N, 3, 2]);
    const [v, i] = runOne({ op: "TopK", inputs: [x, i64([1], [2])], outputs: 2, opset: 13 });
    expect(vals(v!)).toEqual([N, 3]);
    expect(vals(i!)).toEqual([1n, 2n]);
    const [s, j] = runOne({
      op: "TopK",
      inputs: [x, i64([1], [2])],
      attrs: { largest: 0 },
      outputs: 2,
      opset: 13,
    });
    expect(vals(s!)).toEqual([1, 2]);
    expect(vals(j!)).toEqual([0n, 3n]);
  });

  it("ReduceMax/ReduceMin and ScatterElements min/max propagate NaN (ORT ignores it in reductions)", () => {
    expect(
      one({ op: "ReduceMax", inputs: [f32([3], [1, N, 3])], attrs: { keepdims: 0 }, opset: 13 }),
    ).toEqual([N]);
    expect(
      one({ op: "ReduceMin", inputs: [f32([3], [1, N, 0])], attrs: { keepdims: 0 }, opset: 13 }),
    ).toEqual([N]);
    expect(
      one({
        op: "ScatterElements",
        inputs: [f32([2], [N, 2]), i64([2], [0, 1]), f32([2], [0, 1])],
        attrs: { reduction: "min" },
        opset: 18,
      }),
    ).toEqual([N, 1]);
    expect(
      one({
        op: "ScatterElements",
        inputs: [f32([2], [1, 2]), i64([2], [0, 1]), f32([2], [N, 1])],
        attrs: { reduction: "max" },
        opset: 18,
      }),
    ).toEqual([N, 2]);
  });

  it("Cast to integers: int32/int64 give the minimum for NaN, ±inf and out-of-range (ORT); narrower types truncate and wrap, NaN/inf → 0", () => {
    const x = f32([4], [N, I, -I, 3e9]);
    expect(one({ op: "Cast", inputs: [x], attrs: { to: DataType.INT32 }, opset: 13 })).toEqual([
      -(2 ** 31),
      -(2 ** 31),
      -(2 ** 31),
      -(2 ** 31),
    ]);
    const m = -(2n ** 63n);
    expect(
      one({
        op: "Cast",
        inputs: [f32([4], [N, I, -I, 1e20])],
        attrs: { to: DataType.INT64 },
        opset: 13,
      }),
    ).toEqual([m, m, m, m]);
    expect(
      one({
        op: "Cast",
        inputs: [f32([4], [N, I, -1, 300])],
        attrs: { to: DataType.UINT8 },
        opset: 13,
      }),
    ).toEqual([0, 0, 255, 44]);
    expect(
      one({
        op: "Cast",
        inputs: [f32([4], [N, I, -129, 300])],
        attrs: { to: DataType.INT8 },
        opset: 13,
      }),
    ).toEqual([0, 0, 127, 44]);
    expect(
      one({
        op: "Cast",
        inputs: [f32([2], [-2.7, 2.7])],
        attrs: { to: DataType.INT32 },
        opset: 13,
      }),
    ).toEqual([-2, 2]);
  });

  it("Resize: output length floor(input × scale); nearest rounds half down by default (ORT)", () => {
    const r = (x: ReturnType<typeof f32>, s: number, attrs: Record<string, string>) =>
      runOne({
        op: "Resize",
        inputs: [x, f32([4], [1, 1, 1, s])],
        names: ["x0", "", "x1"],
        attrs,
        opset: 13,
      })[0]!;
    const a = r(f32([1, 1, 1, 5], [1, 2, 3, 4, 5]), 1.5, { mode: "nearest" });
    expect(a.shape).toEqual([1, 1, 1, 7]);
    expect(vals(a)).toEqual([1, 1, 2, 3, 3, 4, 5]);
    expect(
      vals(
        r(f32([1, 1, 1, 2], [1, 2]), 2, {
          mode: "nearest",
          coordinate_transformation_mode: "align_corners",
        }),
      ),
    ).toEqual([1, 1, 2, 2]);
    expect(vals(r(f32([1, 1, 1, 4], [1, 2, 3, 4]), 0.75, { mode: "nearest" }))).toEqual([1, 2, 4]);
  });

  it("float64 accumulation is more accurate than ORT: ReduceL2 of 1e30 values, InstanceNormalization", () => {
    // ORT: Infinity (the float32 sum of squares overflows).
    expect(
      one({
        op: "ReduceL2",
        inputs: [f32([2], [1e30, 1e30])],
        attrs: { keepdims: 0 },
        opset: 13,
      })[0],
    ).toBeCloseTo(1.41421e30, -25);
    // ORT: ±1.224609375 (variance in float32); the exact value is ±1.2247357.
    const y = one({
      op: "InstanceNormalization",
      inputs: [f32([1, 1, 3], [10001, 10002, 10003]), f32([1], [1]), f32([1], [0])],
      opset: 13,
    });
    expect(y[0]).toBeCloseTo(-1.2247357, 6);
  });
});

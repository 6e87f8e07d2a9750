// Integer Max/Min/Clip down, GridSample, DFT, Cast, Scatter, GroupNormalization, broadcasting
// 6 <-> 7, PRelu 6 <-> 7, Scan 8 <-> 9.

import { describe, expect, it } from "vitest";
import { DataType, T, f32 } from "../helpers/interp.js";
import { convertAndCompare, convertText, nodeLines } from "../helpers/convert.js";
import { convertModel } from "../../src/convert/index.js";
import { parseModelText } from "../../src/text/index.js";

const head = (opset: number, ir = 7) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

describe("integer Max/Min/Clip below 12", () => {
  it("int8 Max is carried in float and cast back", async () => {
    const m = `${head(13)}
g (int8[4] a, int8[4] b) => (int8[4] y) { y = Max(a, b) }`;
    const feeds = {
      a: T(DataType.INT8, [4], [-128, 5, 7, 127]),
      b: T(DataType.INT8, [4], [3, -4, 7, -128]),
    };
    const t = await convertAndCompare({ text: m, target: 11, feeds });
    expect(nodeLines(t)).toEqual([
      "a_float = Cast <to: int = 1> (a)",
      "b_float = Cast <to: int = 1> (b)",
      "y_float = Max (a_float, b_float)",
      "y = Cast <to: int = 3> (y_float)",
    ]);
  });
  it("int64 Min (not exact in double) is written with Less and Where", async () => {
    const m = `${head(13)}
g (int64[3] a, int64[3] b, int64[3] c) => (int64[3] y) { y = Min(a, b, c) }`;
    const big = 2n ** 62n + 1n;
    const feeds = {
      a: T(DataType.INT64, [3], [big, 1n, -5n]),
      b: T(DataType.INT64, [3], [big - 1n, 2n, -5n]),
      c: T(DataType.INT64, [3], [big + 1n, 0n, 7n]),
    };
    const t = await convertAndCompare({ text: m, target: 11, feeds });
    expect(nodeLines(t)).toEqual([
      "y_partial_less = Less (a, b)",
      "y_partial = Where (y_partial_less, a, b)",
      "y_less = Less (y_partial, c)",
      "y = Where (y_less, y_partial, c)",
    ]);
  });
  it("int64 Max going below 9 is refused at its first step, one node, not as the Where nodes it would write", () => {
    const inputs = Array.from({ length: 2000 }, (_, i) => `x${i}`);
    const m = `${head(13)}
g (${inputs.map((x) => `int64[3] ${x}`).join(", ")}) => (int64[3] y) { y = Max(${inputs.join(", ")}) }`;
    const r = convertModel(parseModelText(m), 7);
    expect(r.model).toBeUndefined();
    expect(r.plan.blocked.map((b) => b.message)).toEqual([
      "Max-8 lacks the element type of 'x0'; written with Greater/Less and Where instead, which do not exist before opset 9 (target 7)",
    ]);
    // At 9 the same node converts (Greater and Where take int64 there).
    expect(convertModel(parseModelText(m), 9).model).toBeDefined();
  });
  it("int8 Clip with bounds is carried in float", async () => {
    const m = `${head(13)}
g (int8[5] x) => (int8[5] y) <int8 lo = {-3}, int8 hi = {4}> { y = Clip(x, lo, hi) }`;
    const feeds = { x: T(DataType.INT8, [5], [-128, -3, 0, 5, 127]) };
    await convertAndCompare({ text: m, target: 11, feeds });
  });
});

describe("GridSample 16 <-> 20", () => {
  const m16 = (mode: string) => `${head(16, 8)}
g (float[1,1,3,3] x, float[1,2,2,2] grid) => (float[1,1,2,2] y) { y = GridSample<mode = "${mode}">(x, grid) }`;
  it("bilinear -> linear, bicubic -> cubic, and back", async () => {
    const grid = f32([1, 2, 2, 2], [-0.9, -0.5, 0.2, 0.7, 1.0, -1.0, 0.1, 0.3]);
    const x = f32([1, 1, 3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const [old, now] of [
      ["bilinear", "linear"],
      ["bicubic", "cubic"],
      ["nearest", "nearest"],
    ]) {
      const t20 = await convertAndCompare({ text: m16(old!), target: 20, feeds: { x, grid } });
      expect(nodeLines(t20)).toEqual([`y = GridSample <mode: string = "${now}"> (x, grid)`]);
      const t16 = await convertAndCompare({ text: t20, target: 16, feeds: { x, grid } });
      expect(nodeLines(t16)).toEqual([`y = GridSample <mode: string = "${old}"> (x, grid)`]);
    }
  });
  it("a 5-D input blocks the step down", () => {
    const m20 = `${head(20, 9)}
g (float[1,1,2,2,2] x, float[1,1,1,1,3] grid) => (float[1,1,1,1,1] y) { y = GridSample(x, grid) }`;
    expect(() => convertText(m20, 16)).toThrow(/5-D/);
  });
});

describe("DFT 17 <-> 20", () => {
  it("axis attribute -> input and back", async () => {
    const m17 = `${head(17, 8)}
g (float[2,4,1] x) => (float[2,4,2] y) { y = DFT<axis = 1>(x) }`;
    const t20 = await convertAndCompare({ text: m17, target: 20 });
    expect(nodeLines(t20)).toEqual([
      "y_axis = Constant <value: tensor = int64 {1}> ()",
      'y = DFT (x, "", y_axis)',
    ]);
    const t17 = await convertAndCompare({ text: t20, target: 17 });
    expect(nodeLines(t17)).toEqual(["y = DFT <axis: int = 1> (x)"]);
  });
  it("DFT-20's default axis (-2) becomes rank - 2", async () => {
    const m20 = `${head(20, 9)}
g (float[3,4,2] x) => (float[3,4,2] y) { y = DFT(x) }`;
    const t17 = await convertAndCompare({ text: m20, target: 17 });
    expect(nodeLines(t17)).toEqual(["y = DFT <axis: int = 1> (x)"]);
  });
});

describe("Cast and Scatter", () => {
  it("Cast saturate goes below 19, round_mode below 24", async () => {
    const m = `${head(24, 10)}
g (float[3] x) => (int32[3] y) { y = Cast<to = 6, saturate = 1, round_mode = "up">(x) }`;
    const t = await convertAndCompare({ text: m, target: 13 });
    expect(nodeLines(t)).toEqual(["y = Cast <to: int = 6> (x)"]);
  });
  it("Scatter-9 becomes ScatterElements-11", async () => {
    const m9 = `${head(9, 4)}
g (float[3,3] x, int64[1,2] i, float[1,2] u) => (float[3,3] y) { y = Scatter<axis = 1>(x, i, u) }`;
    const feeds = {
      x: f32([3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]),
      i: T(DataType.INT64, [1, 2], [2, 0]),
      u: f32([1, 2], [-1, -2]),
    };
    const t = await convertAndCompare({ text: m9, target: 13, feeds });
    expect(nodeLines(t)).toEqual(["y = ScatterElements <axis: int = 1> (x, i, u)"]);
  });
});

describe("GroupNormalization 18 <-> 21", () => {
  // The interpreter has no GroupNormalization kernel: onnxruntime-node is the reference.
  it("per-group scale/bias up and per-channel ones down agree with the original", async () => {
    const m18 = `${head(18, 8)}
g (float[2,4,3] x, float[2] s, float[2] b) => (float[2,4,3] y) { y = GroupNormalization<num_groups = 2, epsilon = 0.01>(x, s, b) }`;
    const t21 = await convertAndCompare({
      text: m18,
      target: 21,
      noInterpreter: true,
      tol: { rtol: 1e-4, atol: 1e-5 },
    });
    expect(nodeLines(t21).at(-1)).toBe("y = Reshape (y_shifted, y_shape)");
    const m21 = `${head(21, 10)}
g (float[2,4,3] x, float[4] s, float[4] b) => (float[2,4,3] y) { y = GroupNormalization<num_groups = 2, epsilon = 0.01>(x, s, b) }`;
    const t18 = await convertAndCompare({
      text: m21,
      target: 18,
      noInterpreter: true,
      tol: { rtol: 1e-4, atol: 1e-5 },
    });
    expect(nodeLines(t18).at(-1)).toBe("y = Add (y_scaled, y_bias)");
    expect(t18).not.toMatch(/GroupNormalization/);
  });
});

describe("broadcasting 6 <-> 7", () => {
  it("B aligned at an axis gets trailing 1s", async () => {
    const m6 = `${head(6, 3)}
g (float[2,3,4] a, float[3] b) => (float[2,3,4] y) { y = Add<broadcast = 1, axis = 1>(a, b) }`;
    const t = await convertAndCompare({ text: m6, target: 7, noOrtBefore: true });
    expect(nodeLines(t)).toEqual([
      "b_aligned = Unsqueeze <axes: ints = [1]> (b)",
      "y = Add (a, b_aligned)",
    ]);
  });
  it("suffix broadcasting needs nothing up and broadcast=1 down", async () => {
    const m7 = `${head(7, 3)}
g (float[2,3,4] a, float[3,4] b) => (float[2,3,4] y) { y = Mul(a, b) }`;
    const t6 = await convertAndCompare({ text: m7, target: 6, noOrtAfter: true });
    expect(nodeLines(t6)).toEqual(["y = Mul <broadcast: int = 1> (a, b)"]);
    const back = await convertAndCompare({ text: t6, target: 7, noOrtBefore: true });
    expect(nodeLines(back)).toEqual(["y = Mul (a, b)"]);
  });
  it("numpy broadcasting of A blocks the step down", () => {
    const m7 = `${head(7, 3)}
g (float[3,1] a, float[1,4] b) => (float[3,4] y) { y = Sub(a, b) }`;
    expect(() => convertText(m7, 6)).toThrow(/legacy way/);
  });
  it("PRelu-6 per-channel slope becomes [C, 1, 1]", async () => {
    const m6 = `${head(6, 3)}
g (float[2,3,2,2] x, float[3] s) => (float[2,3,2,2] y) { y = PRelu(x, s) }`;
    const t = await convertAndCompare({ text: m6, target: 9, noOrtBefore: true });
    expect(nodeLines(t)).toEqual([
      "s_per_channel = Unsqueeze <axes: ints = [1, 2]> (s)",
      "y = PRelu (x, s_per_channel)",
    ]);
  });
});

describe("Scan 8 <-> 9", () => {
  const body = `body (float[2] s_in, float[2] x_in) => (float[2] s_out, float[2] y_out) {
    s_out = Add(s_in, x_in)
    y_out = Identity(s_out)
  }`;
  it("Scan-8's batch becomes an outer Scan-9; Scan-9 goes down with a batch of 1", async () => {
    const m8 = `${head(8, 3)}
g (float[3,2] s0, float[3,4,2] xs) => (float[3,2] s, float[3,4,2] ys) {
  s, ys = Scan<num_scan_inputs = 1, body = ${body}>(, s0, xs)
}`;
    const t9 = await convertAndCompare({ text: m8, target: 9 });
    expect(t9).toMatch(/s_batch_entry \(float\[2\] s0_entry, float\[4,2\] xs_entry\)/);
    const m9 = `${head(9, 4)}
g (float[2] s0, float[4,2] xs) => (float[2] s, float[4,2] ys) {
  s, ys = Scan<num_scan_inputs = 1, scan_input_directions = [1], body = ${body}>(s0, xs)
}`;
    const t8 = await convertAndCompare({ text: m9, target: 8 });
    expect(nodeLines(t8).at(-1)).toBe("ys = Squeeze <axes: ints = [0]> (ys_batch)");
  });
  it("sequence lengths shorter than the sequence block the step up", () => {
    const m8 = `${head(8, 3)}
g (float[1,2] s0, float[1,4,2] xs) => (float[1,2] s, float[1,4,2] ys) <int32[1] lens = {2}> {
  s, ys = Scan<num_scan_inputs = 1, body = ${body}>(lens, s0, xs)
}`;
    expect(() => convertText(m8, 9)).toThrow(/sequence_lens/);
  });
});

describe("GatherND 12 -> 11", () => {
  it("batch_dims=1 becomes indices prefixed with their batch coordinate", async () => {
    const m13 = `${head(13)}
g (float[2,3,2] x, int64[2,2,1] i) => (float[2,2,2] y) { y = GatherND<batch_dims = 1>(x, i) }`;
    const feeds = {
      x: f32([2, 3, 2], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
      i: T(DataType.INT64, [2, 2, 1], [2, 0, 1, 1]),
    };
    const t11 = await convertAndCompare({ text: m13, target: 11, feeds });
    expect(nodeLines(t11).at(-1)).toBe("y = GatherND (x, y_indices_full)");
  });
  it("batch_dims=2 prefixes two coordinates", async () => {
    const m13 = `${head(13)}
g (float[2,2,3] x, int64[2,2,1] i) => (float[2,2] y) { y = GatherND<batch_dims = 2>(x, i) }`;
    const feeds = {
      x: f32([2, 2, 3], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
      i: T(DataType.INT64, [2, 2, 1], [2, 0, 1, 1]),
    };
    await convertAndCompare({ text: m13, target: 11, feeds });
  });
});

// Kernel behaviour users rely on: broadcasting, integer wrap-around, float16/bfloat16 rounding,
// empty and rank-0 tensors, and every version-dependent form of the data-movement ops.

import { describe, expect, it } from "vitest";
import { DataType, T, f32, i64, runOne, vals } from "../helpers/interp.js";
import { attr } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";

const one = (spec: Parameters<typeof runOne>[0]) => runOne(spec)[0]!;

describe("broadcasting binary ops", () => {
  it("broadcasts [2,3] with [3], [2,1] with [1,3], and rank 0 with [2]", () => {
    const a = one({ op: "Add", inputs: [f32([2, 3], [1, 2, 3, 4, 5, 6]), f32([3], [10, 20, 30])] });
    expect(a.shape).toEqual([2, 3]);
    expect(vals(a)).toEqual([11, 22, 33, 14, 25, 36]);
    const b = one({ op: "Mul", inputs: [f32([2, 1], [2, 3]), f32([1, 3], [1, 10, 100])] });
    expect(b.shape).toEqual([2, 3]);
    expect(vals(b)).toEqual([2, 20, 200, 3, 30, 300]);
    const c = one({ op: "Sub", inputs: [f32([], [1]), f32([2], [5, 7])] });
    expect(c.shape).toEqual([2]);
    expect(vals(c)).toEqual([-4, -6]);
  });

  it("rejects shapes that do not broadcast, naming the node", () => {
    expect(() => one({ op: "Add", inputs: [f32([2], [1, 2]), f32([3], [1, 2, 3])] })).toThrow(
      /node #0 \(Add\): shapes \[2\] and \[3\] cannot be broadcast together/,
    );
  });

  it("keeps empty shapes empty and rank 0 rank 0", () => {
    const e = one({ op: "Add", inputs: [f32([0, 3], []), f32([3], [1, 2, 3])] });
    expect(e.shape).toEqual([0, 3]);
    expect(e.data.length).toBe(0);
    const s = one({ op: "Neg", inputs: [f32([], [2.5])] });
    expect(s.shape).toEqual([]);
    expect(vals(s)).toEqual([-2.5]);
  });

  it("folds variadic Max/Min over three broadcast inputs; NaN propagates", () => {
    const m = one({ op: "Max", inputs: [f32([3], [1, 5, 3]), f32([1], [4]), f32([2, 1], [0, 6])] });
    expect(m.shape).toEqual([2, 3]);
    expect(vals(m)).toEqual([4, 5, 4, 6, 6, 6]);
    const n = one({ op: "Min", inputs: [f32([2], [NaN, 1]), f32([2], [0, NaN])] });
    expect(vals(n).map((v) => Number.isNaN(v))).toEqual([true, true]);
    const single = one({ op: "Max", inputs: [i64([2], [3n, -1n])] });
    expect(vals(single)).toEqual([3n, -1n]);
  });
});

describe("integer arithmetic wraps modulo 2^bits", () => {
  it("int8, uint8, int16, uint16", () => {
    expect(
      vals(
        one({
          op: "Add",
          inputs: [T(DataType.INT8, [2], [127, -128]), T(DataType.INT8, [2], [1, -1])],
        }),
      ),
    ).toEqual([-128, 127]);
    expect(
      vals(one({ op: "Sub", inputs: [T(DataType.UINT8, [1], [0]), T(DataType.UINT8, [1], [1])] })),
    ).toEqual([255]);
    expect(
      vals(
        one({ op: "Mul", inputs: [T(DataType.INT16, [1], [300]), T(DataType.INT16, [1], [300])] }),
      ),
    ).toEqual([90000 - 65536]);
    expect(
      vals(
        one({
          op: "Add",
          inputs: [T(DataType.UINT16, [1], [65535]), T(DataType.UINT16, [1], [2])],
        }),
      ),
    ).toEqual([1]);
  });

  it("int32 and uint32 products keep the exact low bits", () => {
    const m = one({
      op: "Mul",
      inputs: [
        T(DataType.INT32, [2], [2147483647, 123456789]),
        T(DataType.INT32, [2], [2, 987654321]),
      ],
    });
    expect(vals(m)).toEqual([-2, Number(BigInt.asIntN(32, 123456789n * 987654321n))]);
    const u = one({
      op: "Mul",
      inputs: [T(DataType.UINT32, [1], [4294967295]), T(DataType.UINT32, [1], [4294967295])],
    });
    expect(vals(u)).toEqual([1]);
  });

  it("int64 and uint64 wrap exactly with BigInt", () => {
    const max = 2n ** 63n - 1n;
    expect(vals(one({ op: "Add", inputs: [i64([1], [max]), i64([1], [1n])] }))).toEqual([
      -(2n ** 63n),
    ]);
    expect(vals(one({ op: "Mul", inputs: [i64([1], [max]), i64([1], [max])] }))).toEqual([1n]);
    expect(
      vals(
        one({ op: "Sub", inputs: [T(DataType.UINT64, [1], [0n]), T(DataType.UINT64, [1], [1n])] }),
      ),
    ).toEqual([2n ** 64n - 1n]);
  });

  it("integer Div truncates toward zero", () => {
    expect(
      vals(
        one({
          op: "Div",
          inputs: [T(DataType.INT32, [4], [-7, 7, -7, 7]), T(DataType.INT32, [4], [2, 2, -2, -2])],
        }),
      ),
    ).toEqual([-3, 3, 3, -3]);
    expect(
      vals(one({ op: "Div", inputs: [i64([2], [-7n, 9007199254740993n]), i64([2], [2n, 1n])] })),
    ).toEqual([-3n, 9007199254740993n]);
  });

  it("Abs of the minimum integer wraps to itself", () => {
    expect(vals(one({ op: "Abs", inputs: [T(DataType.INT8, [2], [-128, -5])] }))).toEqual([
      -128, 5,
    ]);
    expect(vals(one({ op: "Abs", inputs: [i64([1], [-(2n ** 63n)])] }))).toEqual([-(2n ** 63n)]);
  });
});

describe("float16 and bfloat16", () => {
  const h = (v: number[]) => T(DataType.FLOAT16, [v.length], v);
  it("computes in float32 and rounds once to nearest even", () => {
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even mantissa (1).
    // 1 + 3·2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: ties to 1 + 2^-9.
    // 65504 + 8 rounds back to 65504; 65504 + 16 = 65520 is the tie that overflows to inf.
    const r = one({
      op: "Add",
      inputs: [h([1, 1, 65504, 65504]), h([2 ** -11, 3 * 2 ** -11, 8, 16])],
    });
    expect(r.dtype).toBe(DataType.FLOAT16);
    expect(vals(r)).toEqual([1, 1 + 2 ** -9, 65504, Infinity]);
  });

  it("Cast to float16/bfloat16 rounds to nearest even; back is exact", () => {
    const x = f32([4], [1 + 2 ** -8, 1 + 3 * 2 ** -8, 65520, -0]);
    expect(vals(one({ op: "Cast", inputs: [x], attrs: { to: DataType.BFLOAT16 } }))).toEqual([
      1,
      1 + 2 ** -6,
      65536,
      -0,
    ]);
    const f16 = one({ op: "Cast", inputs: [x], attrs: { to: DataType.FLOAT16 } });
    expect(vals(f16)).toEqual([1 + 2 ** -8, 1 + 3 * 2 ** -8, Infinity, -0]);
    const back = one({ op: "Cast", inputs: [f16], attrs: { to: DataType.DOUBLE } });
    expect(back.dtype).toBe(DataType.DOUBLE);
    expect(vals(back)).toEqual([1 + 2 ** -8, 1 + 3 * 2 ** -8, Infinity, -0]);
  });

  it("IsNaN / IsInf read half-precision bits", () => {
    const x = h([NaN, Infinity, -Infinity, 1]);
    expect(vals(one({ op: "IsNaN", inputs: [x] }))).toEqual([1, 0, 0, 0]);
    expect(vals(one({ op: "IsInf", inputs: [x], attrs: { detect_negative: 0 } }))).toEqual([
      0, 1, 0, 0,
    ]);
    expect(vals(one({ op: "IsInf", inputs: [x], attrs: { detect_positive: 0 } }))).toEqual([
      0, 0, 1, 0,
    ]);
  });
});

describe("Cast", () => {
  it("float to int truncates toward zero; int64 narrowing wraps; bool is x != 0", () => {
    expect(
      vals(
        one({ op: "Cast", inputs: [f32([3], [-2.7, 2.7, 0.5])], attrs: { to: DataType.INT32 } }),
      ),
    ).toEqual([-2, 2, 0]);
    expect(
      vals(one({ op: "Cast", inputs: [i64([2], [300n, -129n])], attrs: { to: DataType.INT8 } })),
    ).toEqual([44, 127]);
    expect(
      vals(one({ op: "Cast", inputs: [f32([3], [0, -0.1, NaN])], attrs: { to: DataType.BOOL } })),
    ).toEqual([0, 1, 1]);
    expect(
      vals(one({ op: "Cast", inputs: [f32([1], [-3.9])], attrs: { to: DataType.INT64 } })),
    ).toEqual([-3n]);
    const big = one({
      op: "Cast",
      inputs: [T(DataType.UINT64, [1], [2n ** 64n - 1n])],
      attrs: { to: DataType.INT64 },
    });
    expect(vals(big)).toEqual([-1n]);
  });

  it("to and from strings", () => {
    const s = one({
      op: "Cast",
      inputs: [f32([3], [1.5, -0.25, Infinity])],
      attrs: { to: DataType.STRING },
    });
    expect(vals(s)).toEqual(["1.5", "-0.25", "INF"]);
    const back = one({
      op: "Cast",
      inputs: [T(DataType.STRING, [3], ["2.5", "-INF", "7"])],
      attrs: { to: DataType.FLOAT },
    });
    expect(vals(back)).toEqual([2.5, -Infinity, 7]);
  });

  it("CastLike takes the target type from its second input", () => {
    const r = one({ op: "CastLike", inputs: [f32([2], [1.7, -1.7]), T(DataType.INT16, [0], [])] });
    expect(r.dtype).toBe(DataType.INT16);
    expect(vals(r)).toEqual([1, -1]);
  });
});

describe("comparisons, logic, Where", () => {
  it("compare with broadcasting into bool", () => {
    const a = f32([2, 2], [1, 2, 3, 4]);
    const b = f32([2], [2, 3]);
    expect(vals(one({ op: "Less", inputs: [a, b] }))).toEqual([1, 1, 0, 0]);
    expect(vals(one({ op: "GreaterOrEqual", inputs: [a, b] }))).toEqual([0, 0, 1, 1]);
    expect(vals(one({ op: "Equal", inputs: [i64([2], [5n, 6n]), i64([], [6n])] }))).toEqual([0, 1]);
    expect(vals(one({ op: "Equal", inputs: [f32([1], [NaN]), f32([1], [NaN])] }))).toEqual([0]);
  });

  it("Not/And/Or on bool", () => {
    const p = T(DataType.BOOL, [4], [1, 1, 0, 0]);
    const q = T(DataType.BOOL, [4], [1, 0, 1, 0]);
    expect(vals(one({ op: "And", inputs: [p, q] }))).toEqual([1, 0, 0, 0]);
    expect(vals(one({ op: "Or", inputs: [p, q] }))).toEqual([1, 1, 1, 0]);
    expect(vals(one({ op: "Not", inputs: [p] }))).toEqual([0, 0, 1, 1]);
  });

  it("Where broadcasts all three inputs and keeps int64 exact", () => {
    const c = T(DataType.BOOL, [2, 1], [1, 0]);
    const x = i64([3], [2n ** 60n + 1n, 2n, 3n]);
    const y = i64([], [-1n]);
    const r = one({ op: "Where", inputs: [c, x, y] });
    expect(r.shape).toEqual([2, 3]);
    expect(vals(r)).toEqual([2n ** 60n + 1n, 2n, 3n, -1n, -1n, -1n]);
  });
});

describe("data movement", () => {
  const x = f32([2, 3], [0, 1, 2, 3, 4, 5]);

  it("Slice with inputs (v10+): negative steps, INT64_MAX ends, axes", () => {
    const s = one({
      op: "Slice",
      inputs: [x, i64([1], [-1]), i64([1], [-(2n ** 63n)]), i64([1], [1]), i64([1], [-1])],
    });
    expect(s.shape).toEqual([2, 3]);
    expect(vals(s)).toEqual([2, 1, 0, 5, 4, 3]);
    const t = one({
      op: "Slice",
      inputs: [x, i64([2], [1, 1]), i64([2], [2n ** 63n - 1n, 2n ** 63n - 1n])],
    });
    expect(t.shape).toEqual([1, 2]);
    expect(vals(t)).toEqual([4, 5]);
    const e = one({ op: "Slice", inputs: [x, i64([1], [2]), i64([1], [1]), i64([1], [1])] });
    expect(e.shape).toEqual([2, 0]);
  });

  it("Slice with attributes (v1)", () => {
    const s = one({
      op: "Slice",
      inputs: [x],
      opset: 9,
      attrs: { starts: [0, 1], ends: [1, 1000], axes: [0, 1] },
    });
    expect(s.shape).toEqual([1, 2]);
    expect(vals(s)).toEqual([1, 2]);
  });

  it("Pad: constant (v11 inputs, v18 axes), reflect, edge, and v2 attributes", () => {
    const p = one({ op: "Pad", inputs: [x, i64([4], [0, 1, 1, 0]), f32([], [9])] });
    expect(p.shape).toEqual([3, 4]);
    expect(vals(p)).toEqual([9, 0, 1, 2, 9, 3, 4, 5, 9, 9, 9, 9]);
    const r = one({
      op: "Pad",
      inputs: [f32([3], [1, 2, 3]), i64([2], [2, 2])],
      attrs: { mode: "reflect" },
    });
    expect(vals(r)).toEqual([3, 2, 1, 2, 3, 2, 1]);
    const ed = one({
      op: "Pad",
      inputs: [f32([3], [1, 2, 3]), i64([2], [1, 2])],
      attrs: { mode: "edge" },
    });
    expect(vals(ed)).toEqual([1, 1, 2, 3, 3, 3]);
    const ax = one({
      op: "Pad",
      inputs: [x, i64([2], [1, 0]), f32([], [7]), i64([1], [-1])],
      opset: 18,
    });
    expect(vals(ax)).toEqual([7, 0, 1, 2, 7, 3, 4, 5]);
    const v2 = one({
      op: "Pad",
      inputs: [f32([2], [1, 2])],
      opset: 2,
      attrs: { pads: [1, -1], value: 0.5 },
    });
    expect(vals(v2)).toEqual([0.5, 1]);
  });

  it("Reshape with 0, -1 and allowzero", () => {
    expect(one({ op: "Reshape", inputs: [x, i64([2], [0, -1])] }).shape).toEqual([2, 3]);
    expect(one({ op: "Reshape", inputs: [x, i64([1], [-1])] }).shape).toEqual([6]);
    const z = one({
      op: "Reshape",
      inputs: [f32([0, 3], []), i64([2], [3, 0])],
      attrs: { allowzero: 1 },
    });
    expect(z.shape).toEqual([3, 0]);
    expect(() => one({ op: "Reshape", inputs: [x, i64([1], [4])] })).toThrow(
      /node #0 \(Reshape\): cannot reshape 6 elements/,
    );
  });

  it("Squeeze/Unsqueeze: attribute axes before 13, input axes from 13", () => {
    const s = f32([], [3]);
    expect(one({ op: "Unsqueeze", inputs: [s, i64([2], [0, -1])] }).shape).toEqual([1, 1]);
    expect(one({ op: "Unsqueeze", inputs: [x], opset: 11, attrs: { axes: [1] } }).shape).toEqual([
      2, 1, 3,
    ]);
    const y = f32([1, 2, 1], [1, 2]);
    expect(one({ op: "Squeeze", inputs: [y] }).shape).toEqual([2]);
    expect(one({ op: "Squeeze", inputs: [y, i64([1], [-1])] }).shape).toEqual([1, 2]);
    expect(one({ op: "Squeeze", inputs: [y], opset: 12, attrs: { axes: [0] } }).shape).toEqual([
      2, 1,
    ]);
  });

  it("Concat (with an empty input), Gather (negative indices), Expand, Shape start/end, Size", () => {
    const c = one({
      op: "Concat",
      inputs: [x, f32([2, 0], []), f32([2, 1], [8, 9])],
      attrs: { axis: -1 },
    });
    expect(c.shape).toEqual([2, 4]);
    expect(vals(c)).toEqual([0, 1, 2, 8, 3, 4, 5, 9]);
    const g = one({ op: "Gather", inputs: [x, i64([2, 1], [-1, 0])], attrs: { axis: 1 } });
    expect(g.shape).toEqual([2, 2, 1]);
    expect(vals(g)).toEqual([2, 0, 5, 3]);
    const e = one({ op: "Expand", inputs: [f32([3, 1], [1, 2, 3]), i64([3], [2, 1, 2])] });
    expect(e.shape).toEqual([2, 3, 2]);
    expect(vals(e)).toEqual([1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3]);
    expect(
      vals(
        one({ op: "Shape", inputs: [f32([2, 3, 4], new Array(24).fill(0))], attrs: { start: -2 } }),
      ),
    ).toEqual([3n, 4n]);
    expect(
      vals(
        one({
          op: "Shape",
          inputs: [f32([2, 3, 4], new Array(24).fill(0))],
          attrs: { start: 1, end: -1 },
        }),
      ),
    ).toEqual([3n]);
    const size = one({ op: "Size", inputs: [x] });
    expect(size.shape).toEqual([]);
    expect(vals(size)).toEqual([6n]);
  });

  it("CumSum: exclusive, reverse, negative axis input", () => {
    const v = T(DataType.INT32, [2, 3], [1, 2, 3, 4, 5, 6]);
    expect(vals(one({ op: "CumSum", inputs: [v, T(DataType.INT32, [], [-1])] }))).toEqual([
      1, 3, 6, 4, 9, 15,
    ]);
    expect(
      vals(one({ op: "CumSum", inputs: [v, i64([], [1])], attrs: { exclusive: 1, reverse: 1 } })),
    ).toEqual([5, 3, 0, 11, 6, 0]);
    expect(vals(one({ op: "CumSum", inputs: [v, i64([], [0])] }))).toEqual([1, 2, 3, 5, 7, 9]);
  });

  it("Range and ConstantOfShape", () => {
    expect(
      vals(one({ op: "Range", inputs: [i64([], [10]), i64([], [1]), i64([], [-3])] })),
    ).toEqual([10n, 7n, 4n]);
    expect(
      vals(one({ op: "Range", inputs: [f32([], [0]), f32([], [1]), f32([], [0.25])] })),
    ).toEqual([0, 0.25, 0.5, 0.75]);
    expect(one({ op: "Range", inputs: [f32([], [5]), f32([], [1]), f32([], [1])] }).shape).toEqual([
      0,
    ]);
    const c = one({
      op: "ConstantOfShape",
      inputs: [i64([2], [2, 2])],
      attrs: { value: Tensor.from(DataType.INT32, [1], [7]) },
    });
    expect(c.dtype).toBe(DataType.INT32);
    expect(vals(c)).toEqual([7, 7, 7, 7]);
    expect(one({ op: "ConstantOfShape", inputs: [i64([1], [0])] }).shape).toEqual([0]);
  });

  it("Constant in each attribute form", () => {
    const c = (a: ReturnType<typeof attr>) => one({ op: "Constant", inputs: [], attributes: [a] });
    expect(vals(c(attr("value_float", 1.5, "FLOAT")))).toEqual([1.5]);
    expect(c(attr("value_floats", [1, 2], "FLOATS")).shape).toEqual([2]);
    expect(vals(c(attr("value_int", 3n)))).toEqual([3n]);
    expect(vals(c(attr("value_ints", [1n, 2n])))).toEqual([1n, 2n]);
    expect(vals(c(attr("value_string", "hi")))).toEqual(["hi"]);
    expect(vals(c(attr("value_strings", ["a", "b"])))).toEqual(["a", "b"]);
    expect(vals(c(attr("value", Tensor.from(DataType.UINT8, [2], [4, 5]))))).toEqual([4, 5]);
  });
});

describe("legacy op versions", () => {
  it("binary ops before version 7 align B at `axis` when broadcast=1", () => {
    const a = f32([2, 3, 2], new Array(12).fill(0));
    const r = one({
      op: "Add",
      inputs: [a, f32([3], [1, 2, 3])],
      opset: 6,
      attrs: { broadcast: 1, axis: 1 },
    });
    expect(r.shape).toEqual([2, 3, 2]);
    expect(vals(r)).toEqual([1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3]);
  });

  it("Cast-1 names the target type as a string", () => {
    const r = one({
      op: "Cast",
      inputs: [f32([2], [1.5, -2.5])],
      opset: 1,
      attrs: { to: "INT32" },
    });
    expect(r.dtype).toBe(DataType.INT32);
    expect(vals(r)).toEqual([1, -2]);
  });
});

describe("empty tensors and rank 0 across kernel families", () => {
  it("MatMul with an empty inner dimension gives zeros; with an empty outer one an empty result", () => {
    const z = one({ op: "MatMul", inputs: [f32([2, 0], []), f32([0, 3], [])] });
    expect(z.shape).toEqual([2, 3]);
    expect(vals(z)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(
      one({ op: "MatMul", inputs: [f32([0, 2], []), f32([2, 3], [1, 2, 3, 4, 5, 6])] }).shape,
    ).toEqual([0, 3]);
  });

  it("elementwise, Where, Cast and Softmax keep empty shapes", () => {
    const e = f32([2, 0], []);
    expect(one({ op: "Exp", inputs: [e] }).shape).toEqual([2, 0]);
    expect(one({ op: "Cast", inputs: [e], attrs: { to: DataType.FLOAT16 } }).shape).toEqual([2, 0]);
    expect(one({ op: "Softmax", inputs: [e] }).shape).toEqual([2, 0]);
    const w = one({
      op: "Where",
      inputs: [T(DataType.BOOL, [0], []), f32([], [1]), f32([1], [2])],
    });
    expect(w.shape).toEqual([0]);
  });

  it("rank-0 inputs: Where, Cast, Identity, Reshape to [1] and back", () => {
    expect(
      vals(one({ op: "Where", inputs: [T(DataType.BOOL, [], [0]), f32([], [1]), f32([], [2])] })),
    ).toEqual([2]);
    expect(one({ op: "Reshape", inputs: [f32([], [5]), i64([1], [1])] }).shape).toEqual([1]);
    expect(one({ op: "Reshape", inputs: [f32([1], [5]), i64([0], [])] }).shape).toEqual([]);
  });

  it("axis ops refuse rank 0 with an error naming the node", () => {
    expect(() => one({ op: "CumSum", inputs: [f32([], [1]), i64([], [0])] })).toThrow(
      /^node #0 \(CumSum\): input must have rank at least 1$/,
    );
    expect(() => one({ op: "Softmax", inputs: [f32([], [1])] })).toThrow(
      /^node #0 \(Softmax\): axis -1 is out of range for rank 0/,
    );
    expect(() => one({ op: "Gather", inputs: [f32([], [1]), i64([], [0])] })).toThrow(
      /^node #0 \(Gather\): axis 0 is out of range for rank 0/,
    );
    expect(() => one({ op: "ArgMax", inputs: [f32([0, 2], [])] })).toThrow(/empty axis 0/);
  });
});

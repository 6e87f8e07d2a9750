// Reduce* kernels on every SEMANTICS.md case, plus agreement of the WebAssembly and TypeScript paths.

import { afterEach, describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import {
  numberToBfloat16Bits,
  numberToFloat16Bits,
  float16BitsToNumber,
  bfloat16BitsToNumber,
} from "../../src/ir/dtype.js";
import { DataType } from "../../src/ir/types.js";
import {
  reduceKernels,
  runReduce,
  setReduceWasmEnabled,
  type ReduceOp,
} from "../../src/interp/kernels/reduce.js";
import type { RTensor } from "../../src/interp/types.js";
import { axesT, ctxFor, f32, f64, i32, i64 } from "../helpers/reduce.js";

const ALL_OPS: ReduceOp[] = [
  "Sum",
  "Mean",
  "Prod",
  "Max",
  "Min",
  "L1",
  "L2",
  "SumSquare",
  "LogSum",
  "LogSumExp",
];

function run(
  op: ReduceOp,
  opset: number,
  x: RTensor,
  attrs: Record<string, number | number[]> = {},
  axes?: RTensor,
): RTensor {
  const out = reduceKernels[`Reduce${op}`]!(ctxFor(`Reduce${op}`, opset, attrs), [x, axes]);
  return out[0] as RTensor;
}
const vals = (t: RTensor) => Array.from(t.data as ArrayLike<number | bigint>);

afterEach(() => setReduceWasmEnabled(true));

describe("axes", () => {
  const x = f32([2, 3], [1, 2, 3, 4, 5, 6]);
  it("normalises negative axes in every version", () => {
    for (const opset of [1, 11])
      expect(vals(run("Sum", opset, x, { axes: [-1] }))).toEqual([6, 15]);
    expect(vals(run("Sum", 13, x, {}, axesT([-1])))).toEqual([6, 15]);
    expect(vals(run("L1", 18, x, {}, axesT([-2])))).toEqual([5, 7, 9]);
  });
  it("collapses duplicate axes after normalising", () => {
    const y = run("Sum", 13, x, { keepdims: 0 }, axesT([1, -1]));
    expect(y.shape).toEqual([2]);
    expect(vals(y)).toEqual([6, 15]);
  });
  it("rejects an out-of-range axis, naming node, axis and rank", () => {
    for (const [opset, attrs, axes] of [
      [11, { axes: [2] }, undefined],
      [13, {}, axesT([-3])],
      [18, {}, axesT([5])],
    ] as const) {
      const op = opset === 18 ? "LogSum" : "Sum";
      let err: unknown;
      try {
        run(op, opset, x, attrs as Record<string, number[]>, axes);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(OnnxError);
      expect((err as OnnxError).code).toBe("E_RUNTIME");
      expect((err as OnnxError).message).toMatch(
        /^node 'r1' \(Reduce\w+\): axis -?\d out of range for rank 2$/,
      );
    }
  });
  it("reduces over all axes when axes are absent, or empty with noop_with_empty_axes=0", () => {
    expect(run("Sum", 11, x).shape).toEqual([1, 1]);
    expect(vals(run("Sum", 13, x, { keepdims: 0 }))).toEqual([21]);
    const e = run("LogSum", 18, x, { keepdims: 0 }, axesT([]));
    expect(e.shape).toEqual([]);
    expect(vals(e)[0]).toBeCloseTo(Math.log(21), 6);
  });
  it("keepdims=1 keeps reduced dimensions as 1, keepdims=0 removes them", () => {
    const x3 = f32(
      [2, 3, 4],
      Array.from({ length: 24 }, (_, i) => i),
    );
    expect(run("Sum", 18, x3, {}, axesT([0, 2])).shape).toEqual([1, 3, 1]);
    expect(run("Sum", 18, x3, { keepdims: 0 }, axesT([0, 2])).shape).toEqual([3]);
    expect(vals(run("Sum", 18, x3, { keepdims: 0 }, axesT([0, 2])))).toEqual([
      0 + 1 + 2 + 3 + 12 + 13 + 14 + 15,
      4 + 5 + 6 + 7 + 16 + 17 + 18 + 19,
      8 + 9 + 10 + 11 + 20 + 21 + 22 + 23,
    ]);
  });
});

describe("noop_with_empty_axes=1 with empty or absent axes: elementwise step only, input shape", () => {
  const x = f64([2, 2], [1, -2, 4, 0.5]);
  const expected: Record<ReduceOp, number[]> = {
    Sum: [1, -2, 4, 0.5],
    Mean: [1, -2, 4, 0.5],
    Prod: [1, -2, 4, 0.5],
    Max: [1, -2, 4, 0.5],
    Min: [1, -2, 4, 0.5],
    LogSumExp: [1, -2, 4, 0.5],
    L1: [1, 2, 4, 0.5],
    L2: [1, 2, 4, 0.5],
    SumSquare: [1, 4, 16, 0.25],
    LogSum: [0, NaN, Math.log(4), Math.log(0.5)],
  };
  for (const op of ALL_OPS)
    it(op, () => {
      for (const axes of [undefined, axesT([])])
        for (const keepdims of [0, 1]) {
          const opset = op === "Sum" ? 13 : 18;
          const y = run(op, opset, x, { noop_with_empty_axes: 1, keepdims }, axes);
          expect(y.shape).toEqual([2, 2]);
          expect(vals(y)).toEqual(expected[op]);
        }
    });
  it("is ignored when axes are given", () => {
    expect(vals(run("Sum", 13, x, { noop_with_empty_axes: 1, keepdims: 0 }, axesT([0])))).toEqual([
      5, -1.5,
    ]);
  });
});

describe("empty reduction sets and zero-sized dimensions", () => {
  const x = f32([2, 0, 3], []);
  const expected: Record<ReduceOp, number> = {
    LogSum: -Infinity,
    LogSumExp: -Infinity,
    L1: 0,
    L2: 0,
    Sum: 0,
    SumSquare: 0,
    Prod: 1,
    Max: -Infinity,
    Min: Infinity,
    Mean: NaN,
  };
  for (const op of ALL_OPS)
    it(`${op} over an empty axis`, () => {
      for (const path of [true, false]) {
        setReduceWasmEnabled(path);
        const y = run(op, 18, x, {}, axesT([1]));
        expect(y.shape).toEqual([2, 1, 3]);
        expect(vals(y)).toEqual(new Array(6).fill(expected[op]));
      }
    });
  it("integer Max/Min of an empty set are the type's minimum/maximum", () => {
    const xi = i32([0, 2], []);
    expect(vals(run("Max", 18, xi, { keepdims: 0 }, axesT([0])))).toEqual([-(2 ** 31), -(2 ** 31)]);
    expect(vals(run("Min", 18, xi, { keepdims: 0 }, axesT([0])))).toEqual([
      2 ** 31 - 1,
      2 ** 31 - 1,
    ]);
    const xu: RTensor = { dtype: DataType.UINT8, shape: [0], data: new Uint8Array(0) };
    expect(vals(run("Max", 13, xu, { keepdims: 0 }))).toEqual([0]);
    expect(vals(run("Min", 13, xu, { keepdims: 0 }))).toEqual([255]);
    const xl = i64([0], []);
    expect(vals(run("Max", 20, xl, { keepdims: 0 }))).toEqual([-(2n ** 63n)]);
    expect(vals(run("Sum", 13, xl, { keepdims: 0 }))).toEqual([0n]);
  });
  it("a zero-sized dimension that is not reduced gives an empty output", () => {
    const y = run("LogSum", 18, x, { keepdims: 0 }, axesT([2]));
    expect(y.shape).toEqual([2, 0]);
    expect(y.data.length).toBe(0);
  });
});

describe("rank 0", () => {
  const s = f32([], [5]);
  it("absent or empty axes: the op on the single element, rank-0 output", () => {
    expect(run("LogSum", 18, s).shape).toEqual([]);
    expect(vals(run("LogSum", 18, s))[0]).toBeCloseTo(Math.log(5), 6);
    expect(vals(run("L1", 18, f32([], [-3]), {}, axesT([])))).toEqual([3]);
    expect(vals(run("SumSquare", 11, s))).toEqual([25]);
  });
  it("an explicit axis is an error", () => {
    expect(() => run("Sum", 13, s, {}, axesT([0]))).toThrow(/axis 0 out of range for rank 0/);
    expect(() => run("L1", 11, s, { axes: [-1] })).toThrow(/axis -1 out of range for rank 0/);
  });
});

describe("precision", () => {
  it("float32 accumulates in float64", () => {
    expect(vals(run("Sum", 13, f32([3], [1e8, 1, -1e8])))).toEqual([1]);
    // 2^24 + 1 + 1 ... is where float32 accumulation stalls
    const ones = new Array(20000).fill(1);
    ones[0] = 2 ** 24;
    expect(vals(run("Sum", 13, f32([20000], ones)))).toEqual([Math.fround(2 ** 24 + 19999)]); // float32 accumulation: 2^24
  });
  it("float16 and bfloat16 accumulate in at least float32 and round once", () => {
    const h = new Uint16Array(4096).fill(numberToFloat16Bits(1));
    const yh = run("Sum", 13, { dtype: DataType.FLOAT16, shape: [4096], data: h });
    expect(float16BitsToNumber((yh.data as Uint16Array)[0]!)).toBe(4096); // float16 accumulation stops at 2048
    const b = new Uint16Array(1000).fill(numberToBfloat16Bits(1));
    const yb = run("L1", 18, { dtype: DataType.BFLOAT16, shape: [1000], data: b });
    expect(bfloat16BitsToNumber((yb.data as Uint16Array)[0]!)).toBe(1000); // bfloat16 accumulation stops at 256
    const yl = run("LogSum", 18, { dtype: DataType.FLOAT16, shape: [4096], data: h });
    expect(float16BitsToNumber((yl.data as Uint16Array)[0]!)).toBe(
      float16BitsToNumber(numberToFloat16Bits(Math.log(4096))),
    );
  });
  it("LogSumExp is stable for large and -inf inputs", () => {
    expect(vals(run("LogSumExp", 18, f64([3], [1000, 1000, -Infinity])))[0]).toBeCloseTo(
      1000 + Math.log(2),
      12,
    );
    expect(vals(run("LogSumExp", 18, f64([2], [-Infinity, -Infinity])))).toEqual([-Infinity]);
    expect(vals(run("LogSumExp", 18, f64([2], [Infinity, 3])))).toEqual([Infinity]);
  });
  it("Max and Min propagate NaN", () => {
    expect(vals(run("Max", 18, f32([3], [1, NaN, 2])))).toEqual([NaN]);
    expect(vals(run("Min", 18, f32([2, 2], [NaN, 1, 2, 3]), { keepdims: 0 }, axesT([0])))).toEqual([
      NaN,
      1,
    ]);
  });
});

describe("integers", () => {
  it("ReduceSum and ReduceL1 wrap modulo 2^bits", () => {
    expect(vals(run("Sum", 13, i32([2], [2 ** 31 - 1, 1])))).toEqual([-(2 ** 31)]);
    expect(vals(run("L1", 18, i32([1], [-(2 ** 31)])))).toEqual([-(2 ** 31)]);
    expect(
      vals(
        run("Sum", 13, {
          dtype: DataType.UINT32,
          shape: [2],
          data: new Uint32Array([2 ** 32 - 1, 5]),
        }),
      ),
    ).toEqual([4]);
    expect(vals(run("Sum", 13, i64([2], [2n ** 63n - 1n, 1n])))).toEqual([-(2n ** 63n)]);
    expect(vals(run("L1", 18, i64([1], [-(2n ** 63n)])))).toEqual([-(2n ** 63n)]);
    expect(
      vals(
        run("Sum", 11, {
          dtype: DataType.UINT64,
          shape: [2],
          data: new BigUint64Array([2n ** 64n - 1n, 2n]),
        }),
      ),
    ).toEqual([1n]);
    // exact beyond 2^53: float64 accumulation would lose the +1
    expect(vals(run("Sum", 13, i64([2], [2n ** 60n, 1n])))).toEqual([2n ** 60n + 1n]);
    expect(vals(run("SumSquare", 18, i32([2], [65536, 3])))).toEqual([9]);
    expect(vals(run("Prod", 18, i64([2], [2n ** 40n, 2n ** 30n])))).toEqual([
      BigInt.asIntN(64, 2n ** 70n),
    ]);
  });
  it("ReduceLogSum: exact sum, float64 log, truncated toward zero", () => {
    expect(vals(run("LogSum", 18, i32([3], [1, 2, 3])))).toEqual([1]);
    expect(vals(run("LogSum", 13, i64([2], [2n ** 62n, 2n ** 62n])))).toEqual([
      BigInt(Math.trunc(63 * Math.LN2)),
    ]);
    expect(vals(run("LogSum", 18, i32([2], [2 ** 31 - 1, 2 ** 31 - 1])))).toEqual([
      Math.trunc(Math.log(2 ** 32 - 2)),
    ]);
  });
  it("ReduceLogSum of a sum <= 0 is an error naming the node", () => {
    expect(() => run("LogSum", 18, i32([2], [1, -1]))).toThrow(
      /^node 'r1' \(ReduceLogSum\): integer sum 0 has no logarithm/,
    );
    expect(() => run("LogSum", 18, i64([1], [-5]))).toThrow(OnnxError);
  });
  it("ReduceMax/ReduceMin accept int8, uint8 and (version 20) bool", () => {
    const b: RTensor = { dtype: DataType.BOOL, shape: [2, 2], data: new Uint8Array([0, 1, 0, 0]) };
    expect(vals(run("Max", 20, b, { keepdims: 0 }, axesT([1])))).toEqual([1, 0]);
    expect(vals(run("Min", 20, b, { keepdims: 0 }, axesT([0])))).toEqual([0, 0]);
    const i8: RTensor = { dtype: DataType.INT8, shape: [3], data: new Int8Array([-128, 5, 127]) };
    expect(vals(run("Max", 12, i8))).toEqual([127]);
    expect(vals(run("Min", 12, i8))).toEqual([-128]);
  });
  it("rejects types without numeric reductions", () => {
    const s: RTensor = { dtype: DataType.STRING, shape: [1], data: ["a"] };
    expect(() => run("Sum", 13, s)).toThrow(/does not accept tensor\(string\)/);
  });
});

describe("WebAssembly and TypeScript paths agree", () => {
  // A deterministic generator so a failure reproduces.
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const shapes: [number[], number[]][] = [
    [[100, 1000], [0]],
    [[100, 1000], [1]],
    [[1000, 7], [0]],
    [[7, 1000], [1]],
    [[3, 50, 70], [1]],
    [[5, 9000], []],
    [[2, 70000], [1]],
    [[70000, 2], [0]],
    [
      [6, 33, 41],
      [0, 1],
    ],
    // larger than the WebAssembly window: rows split in pieces, several column windows / row groups
    [[3, 140000], [1]],
    [[5, 140000], [0]],
    [[140000, 3], [1]],
    [[2, 5, 40000], [1]],
  ];
  for (const op of ["Sum", "Mean", "L1", "L2", "SumSquare", "LogSum"] as ReduceOp[])
    it(op, () => {
      for (const [shape, axes] of shapes) {
        const n = shape.reduce((a, b) => a * b, 1);
        const x = f32(
          shape,
          Array.from({ length: n }, () => rnd() * 2 - (op === "LogSum" ? 0.1 : 1)),
        );
        const ctx = ctxFor(`Reduce${op}`, 18, { keepdims: 0 });
        setReduceWasmEnabled(true);
        const a = runReduce(ctx, op, x, axes.length ? axesT(axes) : undefined);
        setReduceWasmEnabled(false);
        const b = runReduce(ctx, op, x, axes.length ? axesT(axes) : undefined);
        expect(a.shape).toEqual(b.shape);
        // Both accumulate in float64 (in a different order) and round once to float32.
        const av = a.data as Float32Array;
        const bv = b.data as Float32Array;
        const bad: string[] = [];
        for (let i = 0; i < av.length; i++) {
          const same = Number.isNaN(bv[i]!)
            ? Number.isNaN(av[i]!)
            : Math.abs(av[i]! - bv[i]!) <= Math.abs(bv[i]!) * 2 ** -23;
          if (!same && bad.length < 5)
            bad.push(`[${shape}] axes [${axes}] element ${i}: ${av[i]} vs ${bv[i]}`);
        }
        expect(bad).toEqual([]);
      }
    });
});

describe("ReduceLogSumExp on integers", () => {
  it("computes in float64 and truncates, over inner and outer axes", () => {
    const x = i32([2, 3], [1, 2, 3, 10, 10, 10]);
    const lse = (v: number[]) =>
      Math.trunc(
        Math.max(...v) + Math.log(v.reduce((s, t) => s + Math.exp(t - Math.max(...v)), 0)),
      );
    expect(vals(run("LogSumExp", 18, x, { keepdims: 0 }, axesT([1])))).toEqual([
      lse([1, 2, 3]),
      lse([10, 10, 10]),
    ]);
    expect(vals(run("LogSumExp", 18, x, { keepdims: 0 }, axesT([0])))).toEqual([
      lse([1, 10]),
      lse([2, 10]),
      lse([3, 10]),
    ]);
    const y = i64([2, 3], [1, 2, 3, 10, 10, 10]);
    expect(vals(run("LogSumExp", 13, y, { keepdims: 0, axes: [0] }))).toEqual(
      [lse([1, 10]), lse([2, 10]), lse([3, 10])].map(BigInt),
    );
  });
});

describe("long integer runs", () => {
  it("int32/uint32 sums wrap exactly however long the reduced run", () => {
    // 2^23 values of 2^31 - 1: the unwrapped sum passes 2^53, where float64 stops being exact
    const n = 2 ** 23;
    const x = i32([n], new Array<number>(n).fill(2 ** 31 - 1));
    const want = Number(BigInt.asIntN(32, BigInt(n) * (2n ** 31n - 1n)));
    expect(vals(run("Sum", 13, x))).toEqual([want]);
    const u: RTensor = {
      dtype: DataType.UINT32,
      shape: [n],
      data: new Uint32Array(n).fill(2 ** 32 - 1),
    };
    expect(vals(run("L1", 18, u))).toEqual([
      Number(BigInt.asUintN(32, BigInt(n) * (2n ** 32n - 1n))),
    ]);
  });
});

describe("long int64 products", () => {
  it("wrap as they go (exact modulo 2^64)", () => {
    const n = 200000;
    const x = i64([n], new Array<bigint>(n).fill(3n));
    let want = 1n;
    for (let i = 0; i < n; i++) want = BigInt.asUintN(64, want * 3n);
    expect(vals(run("Prod", 18, x))).toEqual([BigInt.asIntN(64, want)]);
  });
});

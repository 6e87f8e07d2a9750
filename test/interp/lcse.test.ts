// LogCumSumExp-29: SEMANTICS.md accuracy cases (ulp-checked against a float64 reference), the seed's
// examples, special values, errors, and random wide-range data in every element type.

import { describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import {
  bfloat16BitsToNumber,
  float16BitsToNumber,
  numberToBfloat16Bits,
  numberToFloat16Bits,
} from "../../src/ir/dtype.js";
import { DataType } from "../../src/ir/types.js";
import {
  logCumSumExpKernels,
  setLogCumSumExpWasmEnabled,
} from "../../src/interp/kernels/logcumsumexp.js";
import type { RTensor } from "../../src/interp/types.js";
import { ctxFor, f32, f64 } from "../helpers/reduce.js";

function lcse(x: RTensor, axis?: number): RTensor {
  const attrs = axis === undefined ? {} : { axis };
  return logCumSumExpKernels.LogCumSumExp!(ctxFor("LogCumSumExp", 29, attrs), [x])[0] as RTensor;
}

/** The float64 reference: each prefix from scratch, largest term factored out, others summed small-first. */
function reference(x: ArrayLike<number>, shape: number[], axis: number): Float64Array {
  const r = shape.length;
  const a = axis < 0 ? axis + r : axis;
  let outer = 1;
  let inner = 1;
  for (let i = 0; i < a; i++) outer *= shape[i]!;
  for (let i = a + 1; i < r; i++) inner *= shape[i]!;
  const n = shape[a]!;
  const y = new Float64Array(outer * n * inner);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++)
      for (let j = 0; j < n; j++) {
        const p: number[] = [];
        for (let k = 0; k <= j; k++) p.push(x[(o * n + k) * inner + i]!);
        let v: number;
        if (p.some((t) => Number.isNaN(t))) v = NaN;
        else if (p.includes(Infinity)) v = Infinity;
        else {
          const m = Math.max(...p);
          if (m === -Infinity) v = -Infinity;
          else {
            const terms = p.map((t) => Math.exp(t - m)).sort((s, t) => s - t);
            terms.pop(); // the maximum's own exp(0) = 1, kept exact through log1p
            v = m + Math.log1p(terms.reduce((s, t) => s + t, 0));
          }
        }
        y[(o * n + j) * inner + i] = v;
      }
  return y;
}

const b64 = new DataView(new ArrayBuffer(8));
/** Position of a value on the ordered line of the type's values: a difference is a distance in ulps. */
function ordinal(v: number, dtype: number): bigint {
  let bits: bigint;
  let sign: bigint;
  if (dtype === DataType.DOUBLE) {
    b64.setFloat64(0, v);
    bits = b64.getBigUint64(0);
    sign = 1n << 63n;
  } else if (dtype === DataType.FLOAT) {
    b64.setFloat32(0, v);
    bits = BigInt(b64.getUint32(0));
    sign = 1n << 31n;
  } else {
    bits = BigInt(dtype === DataType.FLOAT16 ? numberToFloat16Bits(v) : numberToBfloat16Bits(v));
    sign = 1n << 15n;
  }
  return bits & sign ? -(bits & (sign - 1n)) : bits;
}

function decoded(t: RTensor): number[] {
  if (t.dtype === DataType.FLOAT16) return Array.from(t.data as Uint16Array, float16BitsToNumber);
  if (t.dtype === DataType.BFLOAT16) return Array.from(t.data as Uint16Array, bfloat16BitsToNumber);
  return Array.from(t.data as Float32Array);
}

/** Every element within `ulps` of the reference rounded to the type; special values equal. */
function expectUlps(y: RTensor, ref: ArrayLike<number>, ulps = 2): void {
  const got = decoded(y);
  expect(got.length).toBe(ref.length);
  for (let i = 0; i < got.length; i++) {
    const g = got[i]!;
    const r = ref[i]!;
    if (!Number.isFinite(r) || !Number.isFinite(g)) {
      // A finite reference may overflow the type only by rounding; anything else must match.
      if (Number.isNaN(r)) expect(g, `element ${i}`).toBeNaN();
      else expect(g, `element ${i} (reference ${r})`).toBe(r);
      continue;
    }
    const d = ordinal(g, y.dtype) - ordinal(r, y.dtype);
    expect(d < 0n ? -d : d, `element ${i}: got ${g}, reference ${r}`).toBeLessThanOrEqual(
      BigInt(ulps),
    );
  }
}

function make(dtype: number, shape: number[], v: number[]): RTensor {
  if (dtype === DataType.FLOAT) return f32(shape, v);
  if (dtype === DataType.DOUBLE) return f64(shape, v);
  const conv = dtype === DataType.FLOAT16 ? numberToFloat16Bits : numberToBfloat16Bits;
  return { dtype, shape, data: Uint16Array.from(v, conv) };
}

describe("SEMANTICS.md accuracy cases", () => {
  it("[-200, -100, 100] is exactly itself", () => {
    for (const dt of [DataType.FLOAT, DataType.DOUBLE])
      expect(decoded(lcse(make(dt, [3], [-200, -100, 100])))).toEqual([-200, -100, 100]);
  });
  it("[-1000, 0] gives [-1000, 0]", () => {
    for (const dt of [DataType.FLOAT, DataType.DOUBLE, DataType.FLOAT16, DataType.BFLOAT16])
      expect(decoded(lcse(make(dt, [2], [-1000, 0])))).toEqual([-1000, 0]);
  });
  it("[0, -20] gives [0, 2.0611537e-9] within 2 ulp", () => {
    const y = lcse(f32([2], [0, -20]));
    expectUlps(y, [0, Math.log1p(Math.exp(-20))]);
    expect((y.data as Float32Array)[1]).toBeCloseTo(2.0611537e-9, 15);
    expectUlps(lcse(f64([2], [0, -20])), [0, Math.log1p(Math.exp(-20))], 1);
  });
  it("[1e30, -1e30] in float32 gives [1e30, 1e30]", () => {
    const y = lcse(f32([2], [1e30, -1e30]));
    expect(Array.from(y.data as Float32Array)).toEqual([Math.fround(1e30), Math.fround(1e30)]);
  });
});

describe("the seed's examples", () => {
  it("axes 0, 1, 2, -1, -3 on log(1..24) reshaped [2, 3, 4] (float64)", () => {
    const v = Array.from({ length: 24 }, (_, i) => Math.log(i + 1));
    const x = f64([2, 3, 4], v);
    for (const axis of [0, 1, 2, -1, -3]) {
      const y = lcse(x, axis);
      expect(y.shape).toEqual([2, 3, 4]);
      // log(cumsum(exp(x))) computed plainly: fine here (no wide range), within 2 ulp of ours
      const a = axis < 0 ? axis + 3 : axis;
      const strides = [12, 4, 1];
      const plain = new Float64Array(24);
      for (let i = 0; i < 24; i++) {
        const idx = [Math.floor(i / 12), Math.floor(i / 4) % 3, i % 4];
        let s = 0;
        for (let k = 0; k <= idx[a]!; k++) s += Math.exp(v[i + (k - idx[a]!) * strides[a]!]!);
        plain[i] = Math.log(s);
      }
      expectUlps(y, plain);
      expectUlps(y, reference(v, [2, 3, 4], axis));
    }
  });
  it("special values along axis 1", () => {
    const I = Infinity;
    const x = f32([5, 4], [-I, -I, -I, -I, -I, 0, I, -I, 0, I, I, 1, 0, NaN, I, -I, I, -I, NaN, 0]);
    const y = Array.from(lcse(x, 1).data as Float32Array);
    expect(y).toEqual([-I, -I, -I, -I, -I, 0, I, I, 0, I, I, I, 0, NaN, NaN, NaN, I, I, NaN, NaN]);
  });
  it("empty inputs give empty outputs of the same shape", () => {
    for (const [shape, axis] of [
      [[2, 0, 3], 1],
      [[0, 3], -1],
    ] as [number[], number][]) {
      const y = lcse(f32(shape, []), axis);
      expect(y.shape).toEqual(shape);
      expect(y.data.length).toBe(0);
    }
  });
  it("float16 and bfloat16 zeros(128) give log(1..128): the rounded value is never fed back", () => {
    for (const dt of [DataType.FLOAT16, DataType.BFLOAT16]) {
      const y = lcse(make(dt, [128], new Array(128).fill(0)));
      const round = dt === DataType.FLOAT16 ? numberToFloat16Bits : numberToBfloat16Bits;
      expect(Array.from(y.data as Uint16Array)).toEqual(
        Array.from({ length: 128 }, (_, i) => round(Math.log(i + 1))),
      );
    }
  });
});

describe("errors", () => {
  it("rank 0 is an error naming the node", () => {
    expect(() => lcse(f32([], [1]))).toThrow(/^node 'r1' \(LogCumSumExp\): .*rank/);
  });
  it("an out-of-range axis is an error", () => {
    expect(() => lcse(f32([2, 2], [0, 0, 0, 0]), 2)).toThrow(/axis 2 out of range for rank 2/);
    expect(() => lcse(f32([2, 2], [0, 0, 0, 0]), -3)).toThrow(OnnxError);
  });
  it("non-float types are rejected", () => {
    expect(() => lcse({ dtype: DataType.INT32, shape: [1], data: new Int32Array(1) })).toThrow(
      /does not accept tensor\(int32\)/,
    );
  });
});

describe("random wide-range data, every type and axis, within 2 ulp", () => {
  let seed = 99;
  const rnd = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const types = [DataType.FLOAT, DataType.DOUBLE, DataType.FLOAT16, DataType.BFLOAT16];
  for (const dt of types)
    it(`dtype ${dt}`, () => {
      for (let c = 0; c < 12; c++) {
        const shape = [
          1 + Math.floor(rnd() * 4),
          1 + Math.floor(rnd() * 30),
          1 + Math.floor(rnd() * 3),
        ];
        const axis = Math.floor(rnd() * 6) - 3;
        const scale = [1, 10, 300, 1e4][c % 4]!;
        const lim = dt === DataType.FLOAT16 ? 6e4 : Infinity;
        const n = shape.reduce((a, b) => a * b, 1);
        const v = Array.from({ length: n }, () => {
          const u = rnd();
          if (u < 0.03) return -Infinity;
          return Math.max(-lim, Math.min(lim, (rnd() * 2 - 1) * scale));
        });
        const x = make(dt, shape, v);
        // the reference sees the values the kernel sees (after rounding to the type)
        const input = dt === DataType.DOUBLE ? v : decoded(x);
        expectUlps(lcse(x, axis), reference(input, shape, axis));
      }
    });
});

describe("WebAssembly and TypeScript paths agree", () => {
  let seed = 4242;
  const rnd = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  // Layouts of the WebAssembly driver: blocks of short rows (row counts not a multiple of 4),
  // long rows in pieces (n > 16384), columns (inner not a multiple of 4), a row wider than the
  // window (TypeScript fallback), and a single slice.
  const layouts: [number[], number][] = [
    [[7, 900], 1],
    [[5, 9], -1],
    [[3, 20000], 1],
    [[900, 7], 0],
    [[4, 600, 3], 1],
    [[2, 70000], 0],
    [[5000], 0],
  ];
  for (const dt of [DataType.FLOAT, DataType.FLOAT16, DataType.BFLOAT16])
    it(`dtype ${dt}`, () => {
      for (const [shape, axis] of layouts) {
        const n = shape.reduce((a, b) => a * b, 1);
        const lim = dt === DataType.FLOAT16 ? 6e4 : 1e30;
        const scale = [1, 30, 1000][Math.floor(rnd() * 3)]!;
        const v = Array.from({ length: n }, () => {
          const u = rnd();
          if (u < 0.002) return -Infinity;
          if (u < 0.0022) return Infinity;
          if (u < 0.0024) return NaN;
          return Math.max(-lim, Math.min(lim, (rnd() * 2 - 1) * scale));
        });
        const x = make(dt, shape, v);
        setLogCumSumExpWasmEnabled(true);
        const a = lcse(x, axis);
        setLogCumSumExpWasmEnabled(false);
        const b = lcse(x, axis);
        setLogCumSumExpWasmEnabled(true);
        const bad: string[] = [];
        for (let i = 0; i < n && bad.length < 5; i++) {
          const same = Object.is(decodedAt(a, i), decodedAt(b, i));
          if (!same) {
            const d = ordinal(decodedAt(a, i), dt) - ordinal(decodedAt(b, i), dt);
            if (!Number.isFinite(decodedAt(b, i)) || d > 1n || d < -1n)
              bad.push(
                `[${shape}] axis ${axis} element ${i}: ${decodedAt(a, i)} vs ${decodedAt(b, i)}`,
              );
          }
        }
        expect(bad).toEqual([]);
      }
    });
});

function decodedAt(t: RTensor, i: number): number {
  if (t.dtype === DataType.FLOAT16) return float16BitsToNumber((t.data as Uint16Array)[i]!);
  if (t.dtype === DataType.BFLOAT16) return bfloat16BitsToNumber((t.data as Uint16Array)[i]!);
  return (t.data as Float32Array)[i]!;
}

// LogCumSumExp-29 (seed 001, SEMANTICS.md): y[j] = log(Σ_{k≤j} exp(x[k])) along `axis`.
//
// One pass per slice, in float64: the running maximum m and t = Σ exp(x[k] − m) over the elements
// other than the one that set m. Then y = m + log1p(t): the largest term contributes exactly m, so
// wide ranges ([-1000, 0], [1e30, -1e30]) and tiny increments ([0, -20]) stay exact to rounding.
// When a new maximum arrives the sum is rescaled: t ← (t + 1)·exp(m_old − m_new).
// NaN and +inf are sticky flags; -inf contributes nothing. Each y is rounded to the element type
// on store; the float64 state is never replaced by the rounded value.
//
// Inputs of 4096 elements or more with float32-or-narrower results take the WebAssembly SIMD
// version of the same scan (wasm/lcse.wat, four slices at once); the loop here is the reference
// and the fallback (and the float64 path).

import { OnnxError } from "../../errors.js";
import {
  dtypeName,
  float16Table,
  numberToBfloat16Bits,
  numberToFloat16Bits,
} from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import type { Kernel, RTensor } from "../types.js";
import { lcseWasm } from "./wasm/loader.js";
import { scratch } from "../tensor.js";
import { intAttr } from "./attrs.js";

let wasmEnabled = true;
/** Turns the WebAssembly path on or off (tests compare both paths). */
export function setLogCumSumExpWasmEnabled(on: boolean): void {
  wasmEnabled = on;
}

/** Input elements per window of WebAssembly memory (256 KiB of float32, 512 KiB of results). */
const CHUNK = 1 << 16;
/** Smaller inputs stay on the TypeScript path. */
const WASM_MIN_ELEMENTS = 4096;

type Values = ArrayLike<number>;

function readValues(t: RTensor): Values {
  if (t.dtype === DataType.FLOAT || t.dtype === DataType.DOUBLE)
    return t.data as Float32Array | Float64Array;
  const src = t.data as Uint16Array;
  if (t.dtype === DataType.FLOAT16) {
    const table = float16Table();
    const out = scratch(Float32Array, src.length);
    for (let i = 0; i < src.length; i++) out[i] = table[src[i]!]!;
    return out;
  }
  const bits = scratch(Uint32Array, src.length);
  for (let i = 0; i < src.length; i++) bits[i] = src[i]! << 16;
  return new Float32Array(bits.buffer);
}

/**
 * The scan in float64 into `out` (float64 values, or float32 values when `out` is a Float32Array:
 * then the only rounding is the store). `outer` slices of `n` steps, each step `inner` wide.
 */
export function logCumSumExpInto(
  x: Values,
  out: Float32Array | Float64Array,
  outer: number,
  n: number,
  inner: number,
): void {
  if (inner === 1) {
    for (let o = 0; o < outer; o++) {
      const base = o * n;
      let m = -Infinity;
      let t = 0;
      let nan = false;
      let pinf = false;
      for (let j = 0; j < n; j++) {
        const v = x[base + j]!;
        if (v > m) {
          if (v === Infinity) pinf = true;
          else {
            t = (t + 1) * Math.exp(m - v);
            m = v;
          }
        } else if (v !== v) nan = true;
        else if (v !== -Infinity) t += Math.exp(v - m);
        out[base + j] = nan
          ? NaN
          : pinf
            ? Infinity
            : m === -Infinity
              ? -Infinity
              : m + Math.log1p(t);
      }
    }
    return;
  }
  // Axis not last: the state is a row of `inner` lanes, updated with contiguous reads.
  const m = scratch(Float64Array, inner);
  const t = scratch(Float64Array, inner);
  const flag = scratch(Uint8Array, inner); // 1: NaN seen, 2: +inf seen (NaN wins)
  for (let o = 0; o < outer; o++) {
    m.fill(-Infinity);
    t.fill(0);
    flag.fill(0);
    for (let j = 0; j < n; j++) {
      const base = (o * n + j) * inner;
      for (let i = 0; i < inner; i++) {
        const v = x[base + i]!;
        const mi = m[i]!;
        if (v > mi) {
          if (v === Infinity) flag[i] = flag[i]! | 2;
          else {
            t[i] = (t[i]! + 1) * Math.exp(mi - v);
            m[i] = v;
          }
        } else if (v !== v) flag[i] = flag[i]! | 1;
        else if (v !== -Infinity) t[i] += Math.exp(v - mi);
        const f = flag[i]!;
        out[base + i] =
          f & 1 ? NaN : f ? Infinity : m[i] === -Infinity ? -Infinity : m[i]! + Math.log1p(t[i]!);
      }
    }
  }
}

/**
 * The same scan in WebAssembly SIMD, four slices at a time (rows when the axis is last, columns
 * otherwise), for float32 input values and results rounded to float32 or narrower: its exp
 * flushes terms below e^-708 to zero, which changes no such result. The input streams through a
 * window of the module's memory; results are copied out (and rounded) per window. Returns false
 * when the layout does not suit it (a row of `inner` wider than the window) or WebAssembly is off.
 */
export function logCumSumExpWasmInto(
  x: Float32Array,
  out: Float32Array | Float64Array,
  outer: number,
  n: number,
  inner: number,
): boolean {
  const w = wasmEnabled ? lcseWasm() : undefined;
  if (!w || inner > CHUNK) return false;
  const inBase = 0;
  const outBase = CHUNK * 4;
  const stateBase = CHUNK * 12;
  const quads = Math.ceil(inner / 4);
  w.reserve(stateBase + quads * 128 + 128);
  const buf = w.memory.buffer;
  const heapIn = new Float32Array(buf, inBase, CHUNK);
  const heapOut = new Float64Array(buf, outBase, CHUNK);
  const state = new Float64Array(buf, stateBase, quads * 16);
  const lcse4 = w.lcse4;
  // m = -inf, t = 0, no NaN, no +inf, for the four lanes of `count` groups
  const reset = (count: number) => {
    state.fill(0, 0, count * 16);
    for (let g = 0; g < count; g++) {
      state.fill(-Infinity, g * 16, g * 16 + 2);
      state.fill(-Infinity, g * 16 + 8, g * 16 + 10);
    }
  };
  // Slices a..a+3, clamped to `last` (a short last group repeats its last slice in the spare lanes).
  const lane = (a: number, k: number, last: number) => Math.min(a + k, last);
  if (inner === 1 && 4 * n <= CHUNK) {
    // Blocks of whole rows, four rows a call.
    const per = Math.floor(CHUNK / n);
    for (let r0 = 0; r0 < outer; r0 += per) {
      const g = Math.min(per, outer - r0);
      heapIn.set(x.subarray(r0 * n, (r0 + g) * n));
      for (let a = 0; a < g; a += 4) {
        const [b, c, d] = [lane(a, 1, g - 1), lane(a, 2, g - 1), lane(a, 3, g - 1)];
        reset(1);
        const pi = (r: number) => inBase + r * n * 4;
        const po = (r: number) => outBase + r * n * 8;
        lcse4(pi(a), pi(b), pi(c), pi(d), po(a), po(b), po(c), po(d), n, 4, 8, stateBase);
      }
      out.set(heapOut.subarray(0, g * n), r0 * n);
    }
  } else if (inner === 1) {
    // Long rows: four rows at a time, in pieces, the state carried between pieces.
    const P = CHUNK / 4;
    for (let a = 0; a < outer; a += 4) {
      const rows = [a, lane(a, 1, outer - 1), lane(a, 2, outer - 1), lane(a, 3, outer - 1)];
      reset(1);
      for (let c = 0; c < n; c += P) {
        const len = Math.min(P, n - c);
        rows.forEach((r, k) => heapIn.set(x.subarray(r * n + c, r * n + c + len), k * P));
        const pi = (k: number) => inBase + k * P * 4;
        const po = (k: number) => outBase + k * P * 8;
        lcse4(pi(0), pi(1), pi(2), pi(3), po(0), po(1), po(2), po(3), len, 4, 8, stateBase);
        rows.forEach((r, k) => {
          if (k === 0 || r !== rows[k - 1])
            out.set(heapOut.subarray(k * P, k * P + len), r * n + c);
        });
      }
    }
  } else {
    // Axis not last: lanes are neighbouring columns; windows of whole rows of `inner` values.
    const J = Math.floor(CHUNK / inner);
    for (let o = 0; o < outer; o++) {
      reset(quads);
      for (let j0 = 0; j0 < n; j0 += J) {
        const rows = Math.min(J, n - j0);
        const start = (o * n + j0) * inner;
        heapIn.set(x.subarray(start, start + rows * inner));
        for (let g = 0; g < quads; g++) {
          const i = 4 * g;
          const [i1, i2, i3] = [
            lane(i, 1, inner - 1),
            lane(i, 2, inner - 1),
            lane(i, 3, inner - 1),
          ];
          lcse4(
            inBase + i * 4,
            inBase + i1 * 4,
            inBase + i2 * 4,
            inBase + i3 * 4,
            outBase + i * 8,
            outBase + i1 * 8,
            outBase + i2 * 8,
            outBase + i3 * 8,
            rows,
            inner * 4,
            inner * 8,
            stateBase + g * 128,
          );
        }
        out.set(heapOut.subarray(0, rows * inner), start);
      }
    }
  }
  return true;
}

export function logCumSumExp(x: RTensor, axisAttr: number, where: string): RTensor {
  const r = x.shape.length;
  const dt = x.dtype;
  if (
    dt !== DataType.FLOAT &&
    dt !== DataType.DOUBLE &&
    dt !== DataType.FLOAT16 &&
    dt !== DataType.BFLOAT16
  )
    throw new OnnxError(
      "E_UNSUPPORTED",
      `LogCumSumExp does not accept tensor(${dtypeName(dt)})`,
      where,
    );
  if (r === 0)
    throw new OnnxError(
      "E_RUNTIME",
      "input X must have rank at least 1, got a scalar (rank 0)",
      where,
    );
  if (axisAttr < -r || axisAttr >= r)
    throw new OnnxError("E_RUNTIME", `axis ${axisAttr} out of range for rank ${r}`, where);
  const axis = axisAttr < 0 ? axisAttr + r : axisAttr;
  const shape = [...x.shape];
  let outer = 1;
  let inner = 1;
  for (let i = 0; i < axis; i++) outer *= shape[i]!;
  for (let i = axis + 1; i < r; i++) inner *= shape[i]!;
  const n = shape[axis]!;
  const count = outer * n * inner;
  const xs = readValues(x);
  // float32 and narrower: the WebAssembly path where it applies (xs is then a Float32Array).
  const fast = (o: Float32Array | Float64Array) =>
    dt !== DataType.DOUBLE &&
    count >= WASM_MIN_ELEMENTS &&
    logCumSumExpWasmInto(xs as Float32Array, o, outer, n, inner);
  if (dt === DataType.FLOAT) {
    const out = scratch(Float32Array, count);
    if (count > 0 && !fast(out)) logCumSumExpInto(xs, out, outer, n, inner);
    return { dtype: dt, shape, data: out };
  }
  const y = scratch(Float64Array, count);
  if (count > 0 && !fast(y)) logCumSumExpInto(xs, y, outer, n, inner);
  if (dt === DataType.DOUBLE) return { dtype: dt, shape, data: y };
  const out = scratch(Uint16Array, count);
  const round = dt === DataType.FLOAT16 ? numberToFloat16Bits : numberToBfloat16Bits;
  for (let i = 0; i < count; i++) out[i] = round(y[i]!);
  return { dtype: dt, shape, data: out };
}

const kernel: Kernel = (ctx, inputs) => {
  const x = inputs[0];
  if (!x || !("dtype" in x))
    throw new OnnxError("E_RUNTIME", "input X must be a tensor", ctx.label);
  return [logCumSumExp(x, intAttr(ctx, "axis"), ctx.label)];
};

export const logCumSumExpKernels: Record<string, Kernel> = { LogCumSumExp: kernel };

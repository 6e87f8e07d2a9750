// LogCumSumExp-29 (seed 001, SEMANTICS.md): y[j] = log(Σ_{k≤j} exp(x[k])) along `axis`.
//
// One pass per slice, in float64: the running maximum m and t = Σ exp(x[k] − m) over the elements
// other than the one that set m. Then y = m + log1p(t): the largest term contributes exactly m, so
// wide ranges ([-1000, 0], [1e30, -1e30]) and tiny increments ([0, -20]) stay exact to rounding.
// When a new maximum arrives the sum is rescaled: t ← (t + 1)·exp(m_old − m_new).
// NaN and +inf are sticky flags; -inf contributes nothing. Each y is rounded to the element type
// on store; the float64 state is never replaced by the rounded value.

import { OnnxError } from "../../errors.js";
import { attrInt } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { float16Table, toBfloat16Bits, toFloat16Bits } from "../tensor.js";
import type { Kernel, RTensor } from "../types.js";

type Values = ArrayLike<number>;

function readValues(t: RTensor): Values {
  if (t.dtype === DataType.FLOAT || t.dtype === DataType.DOUBLE)
    return t.data as Float32Array | Float64Array;
  const src = t.data as Uint16Array;
  if (t.dtype === DataType.FLOAT16) {
    const table = float16Table();
    const out = new Float32Array(src.length);
    for (let i = 0; i < src.length; i++) out[i] = table[src[i]!]!;
    return out;
  }
  const bits = new Uint32Array(src.length);
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
  const m = new Float64Array(inner);
  const t = new Float64Array(inner);
  const flag = new Uint8Array(inner); // 1: NaN seen, 2: +inf seen (NaN wins)
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
  if (dt === DataType.FLOAT) {
    const out = new Float32Array(count);
    if (count > 0) logCumSumExpInto(xs, out, outer, n, inner);
    return { dtype: dt, shape, data: out };
  }
  const y = new Float64Array(count);
  if (count > 0) logCumSumExpInto(xs, y, outer, n, inner);
  if (dt === DataType.DOUBLE) return { dtype: dt, shape, data: y };
  const out = new Uint16Array(count);
  const round = dt === DataType.FLOAT16 ? toFloat16Bits : toBfloat16Bits;
  for (let i = 0; i < count; i++) out[i] = round(y[i]!);
  return { dtype: dt, shape, data: out };
}

const kernel: Kernel = (ctx, inputs) => {
  const x = inputs[0];
  if (!x || !("dtype" in x))
    throw new OnnxError("E_RUNTIME", "input X must be a tensor", ctx.label);
  return [logCumSumExp(x, attrInt(ctx.node, "axis", 0), ctx.label)];
};

export const logCumSumExpKernels: Record<string, Kernel> = { LogCumSumExp: kernel };

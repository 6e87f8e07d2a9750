// Kernels beyond the core set that common models and the ONNX test corpus use:
// parameterised activations, Clip, Mod, BitShift, Softmax/LogSoftmax/Hardmax, ArgMax/ArgMin,
// MatMul, Gemm, Trilu, Dropout (inference), normalisations (including LRN and
// MeanVarianceNormalization), losses, Conv, pooling and MaxUnpool.
// Floating-point work is done in float64 and rounded once to the output type.

import { attrInt, attrInts, attrString } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { fromFloat64, isFloatType, toFloat64, scratch } from "../tensor.js";
import type { Kernel, KernelContext, RTensor } from "../types.js";
import { binaryCompute, unary } from "./elementwise.js";
import {
  alloc,
  broadcastShapes,
  checkedCount,
  fail,
  input,
  intValues,
  normAxis,
  optInput,
  scalarNumber,
  strides,
} from "./util.js";
import { hasInput, inputIndex, outputTypes, softmaxAlongAxis } from "../../schema/facts.js";
import { opVersion } from "./version.js";
import { floatAttr, intAttr, intsAttr, stringAttr } from "./attrs.js";

type AnyStore = { [i: number]: unknown; length: number };
const prod = (xs: readonly number[]) => xs.reduce((p, d) => p * d, 1);

function requireFloat(ctx: KernelContext, t: RTensor, what = "input"): void {
  if (!isFloatType(t.dtype)) fail(ctx, `${what} must be floating point, got ${dtypeName(t.dtype)}`);
}

// ---------------------------------------------------------------------------------------------
// Activations with attributes

function activation(
  op: string,
  make: (ctx: KernelContext) => (x: number) => number,
  ints = false,
): Kernel {
  return (ctx, inputs) => {
    const f = make(ctx);
    return unary(op, ints ? { float: f, int: f } : { float: f })(ctx, inputs);
  };
}

const activations: Record<string, Kernel> = {
  Elu: activation("Elu", (ctx) => {
    const a = floatAttr(ctx, "alpha");
    return (x) => (x < 0 ? a * Math.expm1(x) : x);
  }),
  Celu: activation("Celu", (ctx) => {
    const a = floatAttr(ctx, "alpha");
    return (x) => Math.max(0, x) + Math.min(0, a * Math.expm1(x / a));
  }),
  LeakyRelu: activation("LeakyRelu", (ctx) => {
    const a = floatAttr(ctx, "alpha");
    return (x) => (x < 0 ? a * x : x);
  }),
  Selu: activation("Selu", (ctx) => {
    const a = floatAttr(ctx, "alpha");
    const g = floatAttr(ctx, "gamma");
    return (x) => (x > 0 ? g * x : g * a * Math.expm1(x));
  }),
  HardSigmoid: activation("HardSigmoid", (ctx) => {
    const a = floatAttr(ctx, "alpha");
    const b = floatAttr(ctx, "beta");
    return (x) => Math.max(0, Math.min(1, a * x + b));
  }),
  HardSwish: activation("HardSwish", () => (x) => x * Math.max(0, Math.min(1, x / 6 + 0.5))),
  ThresholdedRelu: activation("ThresholdedRelu", (ctx) => {
    const a = floatAttr(ctx, "alpha");
    return (x) => (x > a ? x : 0);
  }),
  Shrink: activation(
    "Shrink",
    (ctx) => {
      const bias = floatAttr(ctx, "bias");
      const lambd = floatAttr(ctx, "lambd");
      return (x) => (x < -lambd ? x + bias : x > lambd ? x - bias : 0);
    },
    true,
  ),
};

// ---------------------------------------------------------------------------------------------
// Clip, Mod, BitShift

const Clip: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  let lo: number | bigint | undefined;
  let hi: number | bigint | undefined;
  if (!hasInput(opVersion(ctx), "min")) {
    // Clip-6's absent bounds are its schema defaults (the float limits), bound by the executor;
    // Clip-1 states no defaults: an absent bound is no bound.
    lo = floatAttr(ctx, "min", { without: -Infinity });
    hi = floatAttr(ctx, "max", { without: Infinity });
  } else {
    const mn = optInput(ctx, inputs, 1);
    const mx = optInput(ctx, inputs, 2);
    const read = (t: RTensor | undefined) =>
      t === undefined
        ? undefined
        : typeof t.data[0] === "bigint"
          ? (t.data[0] as bigint)
          : scalarNumber(ctx, t, "min/max");
    lo = read(mn);
    hi = read(mx);
  }
  if (x.dtype === DataType.INT64 || x.dtype === DataType.UINT64) {
    const src = x.data as BigInt64Array;
    const out = alloc(ctx, x.dtype, [...x.shape]);
    const d = out.data as BigInt64Array;
    const l = lo === undefined ? undefined : BigInt(lo);
    const h = hi === undefined ? undefined : BigInt(hi);
    for (let i = 0; i < src.length; i++) {
      let v = src[i]!;
      if (l !== undefined && v < l) v = l;
      if (h !== undefined && v > h) v = h;
      d[i] = v;
    }
    return [out];
  }
  const l = lo === undefined ? -Infinity : Number(lo);
  const h = hi === undefined ? Infinity : Number(hi);
  const v = toFloat64(x);
  // Min(max, Max(x, min)) as the spec defines it: with min > max every element is max; NaN stays.
  for (let i = 0; i < v.length; i++) {
    const a = v[i]!;
    const c = a < l ? l : a;
    v[i] = c > h ? h : c;
  }
  return [fromFloat64(x.dtype, [...x.shape], v)];
};

const Mod: Kernel = (ctx, inputs) => {
  const fmod = intAttr(ctx, "fmod") !== 0;
  const a = input(ctx, inputs, 0);
  if (isFloatType(a.dtype) && !fmod) fail(ctx, "fmod must be 1 for floating-point inputs");
  const intMod = (x: number, y: number) => {
    if (y === 0) return 0;
    const r = x % y;
    return r !== 0 && r < 0 !== y < 0 ? r + y : r;
  };
  const bigMod = (x: bigint, y: bigint) => {
    if (y === 0n) return 0n;
    const r = x % y;
    return r !== 0n && r < 0n !== y < 0n ? r + y : r;
  };
  const spec = fmod
    ? {
        float: (x: number, y: number) => x % y,
        int: (x: number, y: number) => (y === 0 ? 0 : x % y),
        big: (x: bigint, y: bigint) => (y === 0n ? 0n : x % y),
      }
    : { int: intMod, big: bigMod };
  return [binaryCompute(ctx, "Mod", spec, a, input(ctx, inputs, 1))];
};

const BitShift: Kernel = (ctx, inputs) => {
  const dir = attrString(ctx.node, "direction", "");
  if (dir !== "LEFT" && dir !== "RIGHT") fail(ctx, `direction must be LEFT or RIGHT, got '${dir}'`);
  const a = input(ctx, inputs, 0);
  const bits = a.dtype === DataType.UINT8 ? 8 : a.dtype === DataType.UINT16 ? 16 : 32;
  const left = dir === "LEFT";
  const spec = {
    int: (x: number, s: number) => (s >= bits ? 0 : left ? x * 2 ** s : Math.floor(x / 2 ** s)),
    big: (x: bigint, s: bigint) => (s >= 64n ? 0n : left ? x << s : x >> s),
  };
  if (
    ![DataType.UINT8, DataType.UINT16, DataType.UINT32, DataType.UINT64].includes(a.dtype as never)
  )
    fail(ctx, `BitShift needs an unsigned integer input, got ${dtypeName(a.dtype)}`);
  return [binaryCompute(ctx, "BitShift", spec, a, input(ctx, inputs, 1))];
};

// ---------------------------------------------------------------------------------------------
// Softmax family, ArgMax/ArgMin

/** [outer, dim, inner] around an axis; before version 13 the input is coerced to 2-D at axis. */
function softmaxLayout(ctx: KernelContext, x: RTensor): [number, number, number] {
  const r = x.shape.length;
  const v = opVersion(ctx);
  const axisAttr = intAttr(ctx, "axis");
  if (!softmaxAlongAxis(v)) {
    const axis = normAxis(ctx, axisAttr, Math.max(r, 1));
    return [prod(x.shape.slice(0, axis)), prod(x.shape.slice(axis)), 1];
  }
  const axis = normAxis(ctx, axisAttr, r);
  return [prod(x.shape.slice(0, axis)), x.shape[axis]!, prod(x.shape.slice(axis + 1))];
}

function softmaxLike(kind: "softmax" | "log" | "hard"): Kernel {
  return (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    requireFloat(ctx, x);
    const [outer, dim, inner] = softmaxLayout(ctx, x);
    const v = toFloat64(x);
    const out = scratch(Float64Array, v.length);
    for (let o = 0; o < outer; o++)
      for (let i = 0; i < inner; i++) {
        const base = o * dim * inner + i;
        let max = -Infinity;
        let arg = 0;
        // The first NaN wins, as in ArgMax (softmax of a NaN row is all NaN either way).
        for (let k = 0; k < dim; k++) {
          const e = v[base + k * inner]!;
          if (e > max || (e !== e && max === max)) {
            max = e;
            arg = k;
          }
        }
        if (kind === "hard") {
          out[base + arg * inner] = 1;
          continue;
        }
        let sum = 0;
        for (let k = 0; k < dim; k++) sum += Math.exp(v[base + k * inner]! - max);
        const logSum = Math.log(sum);
        for (let k = 0; k < dim; k++) {
          const idx = base + k * inner;
          out[idx] = kind === "log" ? v[idx]! - max - logSum : Math.exp(v[idx]! - max) / sum;
        }
      }
    return [fromFloat64(x.dtype, [...x.shape], out)];
  };
}

function argExtreme(max: boolean): Kernel {
  return (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    const r = x.shape.length;
    const axis = normAxis(ctx, intAttr(ctx, "axis"), r);
    const keep = intAttr(ctx, "keepdims") !== 0;
    const last = intAttr(ctx, "select_last_index", { without: 0 }) !== 0;
    const dim = x.shape[axis]!;
    if (dim === 0) fail(ctx, `cannot take Arg${max ? "Max" : "Min"} over an empty axis ${axis}`);
    const outer = prod(x.shape.slice(0, axis));
    const inner = prod(x.shape.slice(axis + 1));
    const v = toFloat64(x);
    const shape = keep
      ? x.shape.map((d, i) => (i === axis ? 1 : d))
      : x.shape.filter((_, i) => i !== axis);
    const out = alloc(ctx, DataType.INT64, shape);
    const d = out.data as BigInt64Array;
    for (let o = 0; o < outer; o++)
      for (let i = 0; i < inner; i++) {
        const base = o * dim * inner + i;
        // NaN is the extreme in both directions (numpy and ONNX's reference): the first NaN, or
        // with select_last_index the last one, is the answer.
        let best = v[base]!;
        let at = 0;
        for (let k = 1; k < dim; k++) {
          const e = v[base + k * inner]!;
          const better =
            e !== e
              ? best === best || last
              : best === best &&
                (max ? e > best || (last && e === best) : e < best || (last && e === best));
          if (better) {
            best = e;
            at = k;
          }
        }
        d[o * inner + i] = BigInt(at);
      }
    return [out];
  };
}

// ---------------------------------------------------------------------------------------------
// MatMul, Gemm, Trilu

const MatMul: Kernel = (ctx, inputs) => {
  const a = input(ctx, inputs, 0);
  const b = input(ctx, inputs, 1);
  if (a.dtype !== b.dtype)
    fail(ctx, `inputs have different types (${dtypeName(a.dtype)} and ${dtypeName(b.dtype)})`);
  if (a.shape.length === 0 || b.shape.length === 0)
    fail(ctx, "MatMul inputs must have rank at least 1");
  const as = a.shape.length === 1 ? [1, a.shape[0]!] : a.shape;
  const bs = b.shape.length === 1 ? [b.shape[0]!, 1] : b.shape;
  const n = as[as.length - 2]!;
  const k = as[as.length - 1]!;
  const k2 = bs[bs.length - 2]!;
  const m = bs[bs.length - 1]!;
  if (k !== k2)
    fail(ctx, `inner dimensions differ: [${a.shape.join(",")}] × [${b.shape.join(",")}]`);
  const batch = broadcastShapes(ctx, [as.slice(0, -2), bs.slice(0, -2)]);
  const outShape = [...batch, n, m];
  checkedCount(ctx, outShape);
  const av = toFloat64(a);
  const bv = toFloat64(b);
  const out = scratch(Float64Array, prod(outShape));
  const nb = prod(batch);
  const aBatch = as.slice(0, -2);
  const bBatch = bs.slice(0, -2);
  const batchIndex = (shape: number[], flat: number) => {
    // index of the broadcast batch entry `flat` within a batch of `shape`
    let idx = 0;
    let mul = 1;
    let rem = flat;
    for (let i = batch.length - 1; i >= 0; i--) {
      const c = rem % batch[i]!;
      rem = Math.floor(rem / batch[i]!);
      const j = i - (batch.length - shape.length);
      if (j >= 0) {
        idx += (shape[j] === 1 ? 0 : c) * mul;
        mul *= shape[j]!;
      }
    }
    return idx;
  };
  const row = scratch(Float64Array, m);
  for (let p = 0; p < nb; p++) {
    const ao = batchIndex(aBatch, p) * n * k;
    const bo = batchIndex(bBatch, p) * k * m;
    const oo = p * n * m;
    for (let i = 0; i < n; i++) {
      row.fill(0);
      for (let t = 0; t < k; t++) {
        // No skipping of zero terms: 0 × Inf and 0 × NaN are NaN and must reach the sum.
        const x = av[ao + i * k + t]!;
        const bRow = bo + t * m;
        for (let j = 0; j < m; j++) row[j]! += x * bv[bRow + j]!;
      }
      out.set(row, oo + i * m);
    }
  }
  let shape = outShape;
  if (a.shape.length === 1) shape = shape.filter((_, i) => i !== shape.length - 2);
  if (b.shape.length === 1) shape = shape.slice(0, -1);
  return [fromFloat64(a.dtype, shape, out)];
};

const Gemm: Kernel = (ctx, inputs) => {
  const a = input(ctx, inputs, 0);
  const b = input(ctx, inputs, 1);
  const c = optInput(ctx, inputs, 2);
  if (a.shape.length !== 2 || b.shape.length !== 2) fail(ctx, "A and B must be 2-D");
  const ta = intAttr(ctx, "transA") !== 0;
  const tb = intAttr(ctx, "transB") !== 0;
  const alpha = floatAttr(ctx, "alpha");
  const beta = floatAttr(ctx, "beta");
  const [m, k] = ta ? [a.shape[1]!, a.shape[0]!] : [a.shape[0]!, a.shape[1]!];
  const [k2, n] = tb ? [b.shape[1]!, b.shape[0]!] : [b.shape[0]!, b.shape[1]!];
  if (k !== k2) fail(ctx, `inner dimensions differ: ${k} and ${k2}`);
  checkedCount(ctx, [m, n]);
  const av = toFloat64(a);
  const bv = toFloat64(b);
  const out = scratch(Float64Array, m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let t = 0; t < k; t++)
        s += av[ta ? t * m + i : i * k + t]! * bv[tb ? j * k + t : t * n + j]!;
      out[i * n + j] = alpha * s;
    }
  if (c && beta !== 0) {
    broadcastShapes(ctx, [c.shape, [m, n]]);
    const cv = toFloat64(c);
    const cs = c.shape;
    const cr = cs.length >= 2 ? cs[cs.length - 2]! : 1;
    const cc = cs.length >= 1 ? cs[cs.length - 1]! : 1;
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++)
        out[i * n + j]! += beta * cv[(cr === 1 ? 0 : i) * cc + (cc === 1 ? 0 : j)]!;
  }
  return [fromFloat64(a.dtype, [m, n], out)];
};

const Trilu: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const kT = optInput(ctx, inputs, 1);
  const k = kT ? (intValues(ctx, kT, "k")[0] ?? 0) : 0;
  const upper = intAttr(ctx, "upper") !== 0;
  const r = x.shape.length;
  if (r < 2) fail(ctx, "input must have rank at least 2");
  const rows = x.shape[r - 2]!;
  const cols = x.shape[r - 1]!;
  const out = alloc(ctx, x.dtype, [...x.shape]);
  const s = x.data as unknown as unknown[];
  const d = out.data as unknown as unknown[];
  const zero = out.data[0];
  for (let p = 0; p < x.data.length; p++) {
    const j = p % cols;
    const i = Math.floor(p / cols) % rows;
    const keep = upper ? j - i >= k : j - i <= k;
    d[p] = keep ? s[p] : zero;
  }
  return [out];
};

const Dropout: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const v = opVersion(ctx);
  if (hasInput(v, "training_mode")) {
    const tm = optInput(ctx, inputs, inputIndex(v, "training_mode"));
    const ratio = optInput(ctx, inputs, inputIndex(v, "ratio"));
    const training = tm ? Boolean(tm.data[0]) : false;
    const r = ratio ? scalarNumber(ctx, ratio, "ratio") : 0.5;
    if (training && r > 0) fail(ctx, "training-mode dropout (random) is not supported");
  }
  // Versions before 12 are run as inference (is_test / ratio only matter for training).
  const outs: RTensor[] = [x];
  if (ctx.node.outputs.length > 1) {
    // A bool mask from version 10; before, the mask has the input's type.
    const boolMask = outputTypes(v, "mask").every((t) => t === "tensor(bool)");
    const maskType = boolMask ? DataType.BOOL : x.dtype;
    const mask = alloc(ctx, maskType, [...x.shape]);
    (mask.data as unknown as { fill(v: unknown): void }).fill(
      maskType === DataType.BOOL ? 1 : fromFloat64(maskType, [1], Float64Array.of(1)).data[0],
    );
    outs.push(mask);
  }
  return outs;
};

// ---------------------------------------------------------------------------------------------
// Normalisations

const BatchNormalization: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  requireFloat(ctx, x);
  const [scale, bias, mean, variance] = [1, 2, 3, 4].map((i) => toFloat64(input(ctx, inputs, i)));
  const eps = floatAttr(ctx, "epsilon");
  const c = x.shape[1] ?? 1;
  const inner = prod(x.shape.slice(2));
  const v = toFloat64(x);
  const training = intAttr(ctx, "training_mode", { without: 0 }) !== 0;
  // Training mode normalises with the batch statistics and also returns the updated running ones.
  const useMean = training ? scratch(Float64Array, c) : mean!;
  const useVar = training ? scratch(Float64Array, c) : variance!;
  if (training) {
    const count = v.length / c;
    for (let p = 0; p < v.length; p++) useMean[Math.floor(p / inner) % c]! += v[p]!;
    for (let ch = 0; ch < c; ch++) useMean[ch]! /= count;
    for (let p = 0; p < v.length; p++) {
      const ch = Math.floor(p / inner) % c;
      useVar[ch]! += (v[p]! - useMean[ch]!) ** 2;
    }
    for (let ch = 0; ch < c; ch++) useVar[ch]! /= count;
  }
  for (let p = 0; p < v.length; p++) {
    const ch = Math.floor(p / inner) % c;
    v[p] = (scale![ch]! * (v[p]! - useMean[ch]!)) / Math.sqrt(useVar[ch]! + eps) + bias![ch]!;
  }
  const outs = [fromFloat64(x.dtype, [...x.shape], v)];
  if (training) {
    const mom = floatAttr(ctx, "momentum");
    const meanT = input(ctx, inputs, 3);
    const varT = input(ctx, inputs, 4);
    outs.push(
      fromFloat64(
        meanT.dtype,
        [c],
        mean!.map((m, i) => m * mom + useMean[i]! * (1 - mom)),
      ),
    );
    outs.push(
      fromFloat64(
        varT.dtype,
        [c],
        variance!.map((m, i) => m * mom + useVar[i]! * (1 - mom)),
      ),
    );
  }
  return outs;
};

const InstanceNormalization: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  requireFloat(ctx, x);
  const scale = toFloat64(input(ctx, inputs, 1));
  const bias = toFloat64(input(ctx, inputs, 2));
  const eps = floatAttr(ctx, "epsilon");
  const c = x.shape[1] ?? 1;
  const inner = prod(x.shape.slice(2));
  const v = toFloat64(x);
  for (let g = 0; g < v.length / Math.max(inner, 1); g++) {
    const ch = g % c;
    let mean = 0;
    for (let i = 0; i < inner; i++) mean += v[g * inner + i]!;
    mean /= inner;
    let varSum = 0;
    for (let i = 0; i < inner; i++) varSum += (v[g * inner + i]! - mean) ** 2;
    const inv = 1 / Math.sqrt(varSum / inner + eps);
    for (let i = 0; i < inner; i++)
      v[g * inner + i] = (v[g * inner + i]! - mean) * inv * scale[ch]! + bias[ch]!;
  }
  return [fromFloat64(x.dtype, [...x.shape], v)];
};

const LayerNormalization: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  requireFloat(ctx, x);
  const r = x.shape.length;
  const axis = normAxis(ctx, intAttr(ctx, "axis"), r);
  const eps = floatAttr(ctx, "epsilon");
  const scaleT = input(ctx, inputs, 1);
  const biasT = optInput(ctx, inputs, 2);
  const inner = prod(x.shape.slice(axis));
  const outer = prod(x.shape.slice(0, axis));
  const statShape = x.shape.map((d, i) => (i < axis ? d : 1));
  const v = toFloat64(x);
  const means = scratch(Float64Array, outer);
  const invs = scratch(Float64Array, outer);
  for (let o = 0; o < outer; o++) {
    let mean = 0;
    for (let i = 0; i < inner; i++) mean += v[o * inner + i]!;
    mean /= inner;
    let vs = 0;
    for (let i = 0; i < inner; i++) vs += (v[o * inner + i]! - mean) ** 2;
    const inv = 1 / Math.sqrt(vs / inner + eps);
    means[o] = mean;
    invs[o] = inv;
    for (let i = 0; i < inner; i++) {
      const p = o * inner + i;
      v[p] = (v[p]! - mean) * inv;
    }
  }
  // Y = Normalized * Scale + B with ordinary multidirectional broadcasting, as the function body
  // computes it: a Scale or B of higher rank than the normalised axes (even than X) is allowed.
  const shapes = [x.shape, scaleT.shape, ...(biasT ? [biasT.shape] : [])];
  const outShape = broadcastShapes(ctx, shapes);
  checkedCount(ctx, outShape);
  const s = toFloat64(scaleT);
  const b = biasT ? toFloat64(biasT) : undefined;
  const xIdx = broadcastAlong(x.shape, outShape);
  const sIdx = broadcastAlong(scaleT.shape, outShape);
  const bIdx = biasT ? broadcastAlong(biasT.shape, outShape) : undefined;
  const y = scratch(Float64Array, prod(outShape));
  for (let p = 0; p < y.length; p++) y[p] = v[xIdx(p)]! * s[sIdx(p)]! + (b ? b[bIdx!(p)]! : 0);
  const statType = intAttr(ctx, "stash_type") === 1 ? DataType.FLOAT : x.dtype;
  return [
    fromFloat64(x.dtype, outShape, y),
    fromFloat64(statType, statShape, means),
    fromFloat64(statType, statShape, invs),
  ];
};

/** Maps a flat index of `target` to the flat index of a tensor of `shape` broadcast onto it. */
function broadcastAlong(
  shape: readonly number[],
  target: readonly number[],
): (i: number) => number {
  if (shape.length === target.length && shape.every((d, i) => d === target[i])) return (i) => i;
  const st = strides(target);
  const ss = strides(shape);
  const off = target.length - shape.length;
  return (flat) => {
    let idx = 0;
    for (let k = 0; k < target.length; k++) {
      const c = Math.floor(flat / st[k]!) % target[k]!;
      const j = k - off;
      if (j >= 0 && shape[j] !== 1) idx += c * ss[j]!;
    }
    return idx;
  };
}

// ---------------------------------------------------------------------------------------------
// Losses

interface NllResult {
  loss: RTensor;
}

function nll(
  ctx: KernelContext,
  logp: Float64Array,
  shape: number[],
  dtype: number,
  target: RTensor,
  weight: RTensor | undefined,
): NllResult {
  const reduction = stringAttr(ctx, "reduction");
  const ignore = attrInt(ctx.node, "ignore_index");
  const n = shape[0]!;
  const c = shape[1]!;
  const inner = prod(shape.slice(2));
  const t = intValues(ctx, target, "target");
  if (t.length !== n * inner) fail(ctx, `target has ${t.length} entries, ${n * inner} expected`);
  const w = weight ? toFloat64(weight) : undefined;
  const losses = scratch(Float64Array, n * inner);
  let wsum = 0;
  for (let i = 0; i < n; i++)
    for (let j = 0; j < inner; j++) {
      const cls = t[i * inner + j]!;
      if (ignore !== undefined && cls === ignore) continue;
      if (cls < 0 || cls >= c) fail(ctx, `target class ${cls} is out of range [0, ${c - 1}]`);
      const wt = w ? w[cls]! : 1;
      losses[i * inner + j] = -logp[(i * c + cls) * inner + j]! * wt;
      wsum += wt;
    }
  if (reduction === "none") return { loss: fromFloat64(dtype, [n, ...shape.slice(2)], losses) };
  let total = 0;
  for (const l of losses) total += l;
  if (reduction === "sum") return { loss: fromFloat64(dtype, [], Float64Array.of(total)) };
  if (reduction === "mean")
    return { loss: fromFloat64(dtype, [], Float64Array.of(wsum === 0 ? 0 : total / wsum)) };
  return fail(ctx, `reduction must be none, sum or mean, got '${reduction}'`);
}

const NegativeLogLikelihoodLoss: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  requireFloat(ctx, x);
  if (x.shape.length < 2) fail(ctx, "input must have rank at least 2");
  return [
    nll(ctx, toFloat64(x), x.shape, x.dtype, input(ctx, inputs, 1), optInput(ctx, inputs, 2)).loss,
  ];
};

const SoftmaxCrossEntropyLoss: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  requireFloat(ctx, x);
  if (x.shape.length < 2) fail(ctx, "scores must have rank at least 2");
  const n = x.shape[0]!;
  const c = x.shape[1]!;
  const inner = prod(x.shape.slice(2));
  const v = toFloat64(x);
  const logp = scratch(Float64Array, v.length);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < inner; j++) {
      let max = -Infinity;
      for (let k = 0; k < c; k++) max = Math.max(max, v[(i * c + k) * inner + j]!);
      let sum = 0;
      for (let k = 0; k < c; k++) sum += Math.exp(v[(i * c + k) * inner + j]! - max);
      const ls = Math.log(sum);
      for (let k = 0; k < c; k++)
        logp[(i * c + k) * inner + j] = v[(i * c + k) * inner + j]! - max - ls;
    }
  const { loss } = nll(
    ctx,
    logp,
    x.shape,
    x.dtype,
    input(ctx, inputs, 1),
    optInput(ctx, inputs, 2),
  );
  return [loss, fromFloat64(x.dtype, [...x.shape], logp)];
};

// ---------------------------------------------------------------------------------------------
// Convolution and pooling

interface Window {
  outSpatial: number[];
  padBegin: number[];
  kernel: number[];
  strides: number[];
  dilations: number[];
}

function windowGeometry(
  ctx: KernelContext,
  inSpatial: number[],
  kernel: number[],
  ceil = false,
): Window {
  const k = inSpatial.length;
  const strides = attrInts(ctx.node, "strides") ?? new Array<number>(k).fill(1);
  const dilations = attrInts(ctx.node, "dilations") ?? new Array<number>(k).fill(1);
  const autoPad = stringAttr(ctx, "auto_pad");
  let pads = attrInts(ctx.node, "pads") ?? new Array<number>(2 * k).fill(0);
  if (
    kernel.length !== k ||
    strides.length !== k ||
    dilations.length !== k ||
    pads.length !== 2 * k
  )
    fail(ctx, `kernel_shape, strides, dilations and pads must match ${k} spatial dimensions`);
  const outSpatial: number[] = [];
  if (autoPad === "SAME_UPPER" || autoPad === "SAME_LOWER") {
    pads = new Array<number>(2 * k).fill(0);
    for (let i = 0; i < k; i++) {
      const out = Math.ceil(inSpatial[i]! / strides[i]!);
      const total = Math.max(
        0,
        (out - 1) * strides[i]! + (kernel[i]! - 1) * dilations[i]! + 1 - inSpatial[i]!,
      );
      const small = Math.floor(total / 2);
      pads[i] = autoPad === "SAME_UPPER" ? small : total - small;
      pads[i + k] = total - pads[i]!;
      outSpatial.push(out);
    }
  } else {
    if (autoPad === "VALID") pads = new Array<number>(2 * k).fill(0);
    else if (autoPad !== "NOTSET") fail(ctx, `auto_pad '${autoPad}' is not supported`);
    for (let i = 0; i < k; i++) {
      const span = inSpatial[i]! + pads[i]! + pads[i + k]! - (kernel[i]! - 1) * dilations[i]! - 1;
      let out = (ceil ? Math.ceil(span / strides[i]!) : Math.floor(span / strides[i]!)) + 1;
      // A window must start inside the input or its leading padding.
      if (ceil && (out - 1) * strides[i]! >= inSpatial[i]! + pads[i]!) out--;
      outSpatial.push(Math.max(0, out));
    }
  }
  return { outSpatial, padBegin: pads.slice(0, k), kernel, strides, dilations };
}

/**
 * For every (output position, kernel position) pair: the flat input spatial offset it reads,
 * or -1 where the window lies in padding.
 */
function windowTable(inSpatial: number[], w: Window): Int32Array {
  const nOut = prod(w.outSpatial);
  const nK = prod(w.kernel);
  const table = scratch(Int32Array, nOut * nK);
  const k = inSpatial.length;
  const inStr = strides(inSpatial);
  const oc = new Array<number>(k).fill(0);
  for (let o = 0; o < nOut; o++) {
    let rem = o;
    for (let i = k - 1; i >= 0; i--) {
      oc[i] = rem % w.outSpatial[i]!;
      rem = Math.floor(rem / w.outSpatial[i]!);
    }
    for (let q = 0; q < nK; q++) {
      let r2 = q;
      let off = 0;
      for (let i = k - 1; i >= 0; i--) {
        const kc = r2 % w.kernel[i]!;
        r2 = Math.floor(r2 / w.kernel[i]!);
        const pos = oc[i]! * w.strides[i]! - w.padBegin[i]! + kc * w.dilations[i]!;
        if (off < 0 || pos < 0 || pos >= inSpatial[i]!) off = -1;
        else off += pos * inStr[i]!;
      }
      table[o * nK + q] = off;
    }
  }
  return table;
}

const Conv: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const wT = input(ctx, inputs, 1);
  const bT = optInput(ctx, inputs, 2);
  requireFloat(ctx, x);
  if (x.shape.length < 3) fail(ctx, "input must have rank at least 3 (N, C, spatial...)");
  const [n, c] = x.shape as [number, number];
  const inSpatial = x.shape.slice(2);
  const [m, cg] = wT.shape as [number, number];
  const kernel = attrInts(ctx.node, "kernel_shape") ?? wT.shape.slice(2);
  const group = intAttr(ctx, "group");
  if (cg * group !== c)
    fail(ctx, `weights expect ${cg * group} input channels, the input has ${c}`);
  if (m % group !== 0) fail(ctx, `output channels ${m} are not divisible by group ${group}`);
  const w = windowGeometry(ctx, inSpatial, kernel);
  const table = windowTable(inSpatial, w);
  const nOut = prod(w.outSpatial);
  const nK = prod(kernel);
  const inSize = prod(inSpatial);
  const outShape = [n, m, ...w.outSpatial];
  checkedCount(ctx, outShape);
  const xv = toFloat64(x);
  const wv = toFloat64(wT);
  const bv = bT ? toFloat64(bT) : undefined;
  const out = scratch(Float64Array, prod(outShape));
  const mg = m / group;
  for (let b = 0; b < n; b++)
    for (let oc = 0; oc < m; oc++) {
      const g = Math.floor(oc / mg);
      const base = (b * m + oc) * nOut;
      for (let o = 0; o < nOut; o++) {
        let s = bv ? bv[oc]! : 0;
        for (let ic = 0; ic < cg; ic++) {
          const xBase = (b * c + g * cg + ic) * inSize;
          const wBase = (oc * cg + ic) * nK;
          for (let q = 0; q < nK; q++) {
            const off = table[o * nK + q]!;
            // A padded tap multiplies 0 by its weight: an Inf or NaN weight there gives NaN.
            s += (off >= 0 ? xv[xBase + off]! : 0) * wv[wBase + q]!;
          }
        }
        out[base + o] = s;
      }
    }
  return [fromFloat64(x.dtype, outShape, out)];
};

function pool(kind: "max" | "avg"): Kernel {
  return (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    if (x.shape.length < 3) fail(ctx, "input must have rank at least 3 (N, C, spatial...)");
    const kernel =
      attrInts(ctx.node, "kernel_shape") ?? fail(ctx, "attribute 'kernel_shape' is required");
    const inSpatial = x.shape.slice(2);
    const w = windowGeometry(
      ctx,
      inSpatial,
      kernel,
      intAttr(ctx, "ceil_mode", { without: 0 }) !== 0,
    );
    const table = windowTable(inSpatial, w);
    const includePad = intAttr(ctx, "count_include_pad", { without: 0 }) !== 0;
    const nOut = prod(w.outSpatial);
    const nK = prod(kernel);
    const inSize = prod(inSpatial);
    const planes = x.shape[0]! * x.shape[1]!;
    const outShape = [x.shape[0]!, x.shape[1]!, ...w.outSpatial];
    checkedCount(ctx, outShape);
    const xv = toFloat64(x);
    const out = scratch(Float64Array, prod(outShape));
    const wantIndices = kind === "max" && ctx.node.outputs.length > 1 && ctx.node.outputs[1] !== "";
    const columnMajor = intAttr(ctx, "storage_order", { without: 0 }) !== 0;
    const inStr = strides(inSpatial);
    const indices = wantIndices ? scratch(BigInt64Array, out.length) : undefined;
    // With count_include_pad, the divisor counts window positions inside the padded extent.
    const padEnd = (attrInts(ctx.node, "pads") ?? []).slice(inSpatial.length);
    for (let p = 0; p < planes; p++)
      for (let o = 0; o < nOut; o++) {
        let acc = kind === "max" ? -Infinity : 0;
        let count = 0;
        let at = -1;
        for (let q = 0; q < nK; q++) {
          const off = table[o * nK + q]!;
          if (off < 0) continue;
          const v = xv[p * inSize + off]!;
          count++;
          if (kind === "max") {
            // Any NaN in the window gives NaN (the first one's index), whatever its position.
            if (v > acc || at < 0 || (v !== v && acc === acc)) {
              acc = v;
              at = off;
            }
          } else acc += v;
        }
        if (kind === "avg") {
          let divisor = count;
          if (includePad) divisor = paddedCount(o, w, inSpatial, padEnd);
          acc = divisor ? acc / divisor : NaN;
        }
        out[p * nOut + o] = acc;
        if (indices) {
          let idx = at;
          if (columnMajor) {
            // Re-linearise the spatial position with the first spatial axis varying fastest.
            idx = 0;
            let mul = 1;
            for (let i = 0; i < inSpatial.length; i++) {
              idx += (Math.floor(at / inStr[i]!) % inSpatial[i]!) * mul;
              mul *= inSpatial[i]!;
            }
          }
          indices[p * nOut + o] = BigInt(p * inSize + idx);
        }
      }
    const outs: RTensor[] = [fromFloat64(x.dtype, outShape, out)];
    if (indices) outs.push({ dtype: DataType.INT64, shape: outShape, data: indices });
    return outs;
  };
}

/** Window positions of output `o` that fall inside the input plus its explicit padding. */
function paddedCount(o: number, w: Window, inSpatial: number[], padEnd: number[]): number {
  const k = inSpatial.length;
  let rem = o;
  let total = 1;
  for (let i = k - 1; i >= 0; i--) {
    const oc = rem % w.outSpatial[i]!;
    rem = Math.floor(rem / w.outSpatial[i]!);
    let cnt = 0;
    for (let kc = 0; kc < w.kernel[i]!; kc++) {
      const pos = oc * w.strides[i]! - w.padBegin[i]! + kc * w.dilations[i]!;
      if (pos >= -w.padBegin[i]! && pos < inSpatial[i]! + (padEnd[i] ?? 0)) cnt++;
    }
    total *= cnt;
  }
  return total;
}

function globalPool(kind: "max" | "avg"): Kernel {
  return (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    if (x.shape.length < 2) fail(ctx, "input must have rank at least 2");
    const inner = prod(x.shape.slice(2));
    const planes = x.shape[0]! * x.shape[1]!;
    const v = toFloat64(x);
    const out = scratch(Float64Array, planes);
    for (let p = 0; p < planes; p++) {
      let acc = kind === "max" ? -Infinity : 0;
      for (let i = 0; i < inner; i++) {
        const e = v[p * inner + i]!;
        acc = kind === "max" ? Math.max(acc, e) : acc + e;
      }
      out[p] = kind === "max" ? acc : acc / inner;
    }
    return [
      fromFloat64(x.dtype, [x.shape[0]!, x.shape[1]!, ...x.shape.slice(2).map(() => 1)], out),
    ];
  };
}

const MeanVarianceNormalization: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const axes = intsAttr(ctx, "axes").map((a) => normAxis(ctx, a, x.shape.length));
  const v = toFloat64(x);
  const st = strides(x.shape);
  const groupOf = (p: number) => {
    let g = 0;
    for (let k = 0; k < x.shape.length; k++)
      if (!axes.includes(k)) g = g * x.shape[k]! + (Math.floor(p / st[k]!) % x.shape[k]!);
    return g;
  };
  const groups = prod(x.shape.filter((_, k) => !axes.includes(k)));
  const count = v.length / Math.max(groups, 1);
  const mean = scratch(Float64Array, groups);
  const sq = scratch(Float64Array, groups);
  for (let p = 0; p < v.length; p++) {
    const g = groupOf(p);
    mean[g]! += v[p]!;
    sq[g]! += v[p]! * v[p]!;
  }
  for (let p = 0; p < v.length; p++) {
    const g = groupOf(p);
    const m = mean[g]! / count;
    const variance = sq[g]! / count - m * m;
    v[p] = (v[p]! - m) / (Math.sqrt(Math.max(variance, 0)) + 1e-9);
  }
  return [fromFloat64(x.dtype, [...x.shape], v)];
};

const LRN: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const size = attrInt(ctx.node, "size", 0);
  const alpha = floatAttr(ctx, "alpha");
  const beta = floatAttr(ctx, "beta");
  const bias = floatAttr(ctx, "bias");
  const c = x.shape[1]!;
  const inner = prod(x.shape.slice(2));
  const v = toFloat64(x);
  const out = scratch(Float64Array, v.length);
  const lo = Math.floor((size - 1) / 2);
  const hi = Math.ceil((size - 1) / 2);
  for (let p = 0; p < v.length; p++) {
    const ch = Math.floor(p / inner) % c;
    let s = 0;
    for (let k = Math.max(0, ch - lo); k <= Math.min(c - 1, ch + hi); k++) {
      const e = v[p + (k - ch) * inner]!;
      s += e * e;
    }
    out[p] = v[p]! / Math.pow(bias + (alpha / size) * s, beta);
  }
  return [fromFloat64(x.dtype, [...x.shape], out)];
};

const MaxUnpool: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const idx = input(ctx, inputs, 1);
  const shapeT = optInput(ctx, inputs, 2);
  const kernel =
    attrInts(ctx.node, "kernel_shape") ?? fail(ctx, "attribute 'kernel_shape' is required");
  const k = kernel.length;
  const st = attrInts(ctx.node, "strides") ?? new Array<number>(k).fill(1);
  const pads = attrInts(ctx.node, "pads") ?? new Array<number>(2 * k).fill(0);
  // Indices refer to the default unpooled shape; a larger output_shape pads at the end.
  const natural = [
    x.shape[0]!,
    x.shape[1]!,
    ...x.shape.slice(2).map((d, i) => (d - 1) * st[i]! + kernel[i]! - pads[i]! - pads[i + k]!),
  ];
  const shape = shapeT ? intValues(ctx, shapeT, "output_shape") : natural;
  if (shape.length !== natural.length || shape.some((d, i) => d < natural[i]!))
    fail(
      ctx,
      `output_shape [${shape.join(",")}] is smaller than the unpooled shape [${natural.join(",")}]`,
    );
  const out = alloc(ctx, x.dtype, shape);
  const iv = intValues(ctx, idx, "indices");
  const s = x.data as unknown as AnyStore;
  const d = out.data as unknown as AnyStore;
  const nst = strides(natural);
  const ost = strides(shape);
  const total = prod(natural);
  for (let i = 0; i < iv.length; i++) {
    const at = iv[i]!;
    if (at < 0 || at >= total)
      fail(ctx, `index ${at} is outside the unpooled tensor of ${total} elements`);
    let off = 0;
    for (let a = 0; a < natural.length; a++)
      off += (Math.floor(at / nst[a]!) % natural[a]!) * ost[a]!;
    d[off] = s[i];
  }
  return [out];
};

export const nnKernels: Record<string, Kernel> = {
  ...activations,
  Clip,
  Mod,
  BitShift,
  Softmax: softmaxLike("softmax"),
  LogSoftmax: softmaxLike("log"),
  Hardmax: softmaxLike("hard"),
  ArgMax: argExtreme(true),
  ArgMin: argExtreme(false),
  MatMul,
  Gemm,
  Trilu,
  Dropout,
  BatchNormalization,
  InstanceNormalization,
  LayerNormalization,
  NegativeLogLikelihoodLoss,
  SoftmaxCrossEntropyLoss,
  Conv,
  MaxPool: pool("max"),
  AveragePool: pool("avg"),
  GlobalMaxPool: globalPool("max"),
  GlobalAveragePool: globalPool("avg"),
  MaxUnpool,
  LRN,
  MeanVarianceNormalization,
};

// Kernels beyond the core set that common models and the ONNX test corpus use:
// parameterised activations, Clip, Mod, BitShift, Softmax/LogSoftmax/Hardmax, ArgMax/ArgMin,
// MatMul, Gemm, Trilu, Dropout (inference) and the losses. Convolution and pooling are in
// conv-pool.ts, the normalisations in normalization.ts.
// Floating-point work is done in float64 and rounded once to the output type.

import { attrInt, attrString } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import {
  allocStorage,
  fromFloat64,
  fromProductSums,
  isFloatType,
  isHalfType,
  toFloat64,
  scratch,
} from "../tensor.js";
import { chargeBytes } from "../budget.js";
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
  prod,
  requireFloat,
} from "./util.js";
import { hasInput, inputIndex, outputTypes, softmaxAlongAxis } from "../../schema/facts.js";
import { opVersion } from "./version.js";
import { floatAttr, intAttr, stringAttr } from "./attrs.js";
import { gemmFor, product, srcOf } from "./gemm-ops.js";
import { hardSigmoidWasm } from "./ew-wasm.js";

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

/**
 * HardSigmoid, max(0, min(1, alpha·x + beta)), in the element type's steps as onnxruntime (x86-64)
 * and ONNX's reference evaluator compute it: in float64 for double, else in float32 with alpha
 * and beta as float32, fl(fl(alpha·x) + beta), two roundings (float16 and bfloat16 then round
 * once more on store). A NaN passes, −0 stays. `swish`: times x (HardSwish), one more rounding.
 */
function hardSigmoidOf(
  alpha: number,
  beta: number,
  swish: boolean,
  f64: boolean,
): (x: number) => number {
  const [a, b] = f64 ? [alpha, beta] : [Math.fround(alpha), Math.fround(beta)];
  const r = f64 ? (v: number) => v : Math.fround;
  return (x) => {
    const v = r(r(a * x) + b);
    const h = v < 0 ? 0 : v > 1 ? 1 : v;
    return swish ? r(x * h) : h;
  };
}

function hardSigmoid(
  op: string,
  params: (ctx: KernelContext) => [number, number],
  swish = false,
): Kernel {
  return (ctx, inputs) => {
    const [a, b] = params(ctx);
    const f64 = input(ctx, inputs, 0).dtype === DataType.DOUBLE;
    const f = hardSigmoidOf(a, b, swish, f64);
    const f32 = (src: Float32Array, out: Float32Array) => {
      if (!hardSigmoidWasm(src, out, a, b, swish))
        for (let i = 0; i < src.length; i++) out[i] = f(src[i]!);
    };
    return unary(op, { float: f, f32 })(ctx, inputs);
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
  HardSigmoid: hardSigmoid("HardSigmoid", (ctx) => [
    floatAttr(ctx, "alpha"),
    floatAttr(ctx, "beta"),
  ]),
  // HardSwish: HardSigmoid with alpha = 1/6 in the element type (float32's 1/6, as the function
  // body's float attribute gives it; double's own for double) and beta = 0.5, times x.
  HardSwish: hardSigmoid("HardSwish", () => [1 / 6, 0.5], true),
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
    // float32 is read and written as it is: the same float64 operations, rounded once.
    const f32 = x.dtype === DataType.FLOAT;
    const v = f32 ? (x.data as Float32Array) : toFloat64(x);
    const out = f32
      ? (allocStorage(DataType.FLOAT, v.length) as Float32Array)
      : scratch(Float64Array, v.length);
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
    if (out instanceof Float32Array) return [{ dtype: x.dtype, shape: [...x.shape], data: out }];
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
  let shape = outShape;
  if (a.shape.length === 1) shape = shape.filter((_, i) => i !== shape.length - 2);
  if (b.shape.length === 1) shape = shape.slice(0, -1);
  const ar = gemmFor(a, b);
  if (ar) {
    const data = allocStorage(a.dtype, prod(outShape)) as Float32Array | Uint16Array;
    const [ad, bd] = [srcOf(a), srcOf(b)];
    const half = ad.half;
    if (prod(bBatch) === 1 && prod(aBatch) === nb) {
      // One B for every batch entry, A's rows consecutive: one product of nb·n rows (each
      // output's sum is the same, in the same order).
      product(ar, ad, 0, k, 1, bd, 0, m, 1, nb * n, m, k, { data, at: 0, half });
      return [{ dtype: a.dtype, shape, data }];
    }
    for (let p = 0; p < nb; p++)
      product(
        ar,
        ad,
        batchIndex(aBatch, p) * n * k,
        k,
        1,
        bd,
        batchIndex(bBatch, p) * k * m,
        m,
        1,
        n,
        m,
        k,
        { data, at: p * n * m, half },
      );
    return [{ dtype: a.dtype, shape, data }];
  }
  const av = toFloat64(a);
  const bv = toFloat64(b);
  const out = scratch(Float64Array, prod(outShape));
  const row = scratch(Float64Array, m);
  // float16 / bfloat16 sum in float32 (each product and each sum rounded to float32), as Conv.
  const f32 = isHalfType(a.dtype);
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
        if (f32)
          for (let j = 0; j < m; j++)
            row[j] = Math.fround(row[j]! + Math.fround(x * bv[bRow + j]!));
        else for (let j = 0; j < m; j++) row[j]! += x * bv[bRow + j]!;
      }
      out.set(row, oo + i * m);
    }
  }
  return [fromProductSums(a.dtype, shape, out)];
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
  const ar = gemmFor(a, b);
  let out: Float64Array;
  if (ar) {
    chargeBytes(m * n * 8, false, "a float64 product");
    out = product(
      ar,
      srcOf(a),
      0,
      ta ? 1 : k,
      ta ? m : 1,
      srcOf(b),
      0,
      tb ? 1 : n,
      tb ? k : 1,
      m,
      n,
      k,
    )!;
    for (let i = 0; i < out.length; i++) out[i] = alpha * out[i]!;
  } else {
    const av = toFloat64(a);
    const bv = toFloat64(b);
    out = scratch(Float64Array, m * n);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let t = 0; t < k; t++)
          s += av[ta ? t * m + i : i * k + t]! * bv[tb ? j * k + t : t * n + j]!;
        out[i * n + j] = alpha * s;
      }
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
  return [fromProductSums(a.dtype, [m, n], out)];
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
  NegativeLogLikelihoodLoss,
  SoftmaxCrossEntropyLoss,
};

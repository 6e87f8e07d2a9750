// Elementwise kernels: unary math, broadcasting binary arithmetic and comparisons, logic,
// Where, IsNaN/IsInf (Cast and CastLike are in cast.ts). One broadcasting loop serves every
// binary op; an op is a table entry with its scalar function per number domain.
//
// Number domains: float/double compute in JS numbers and store into their typed array (which
// rounds); float16/bfloat16 are decoded to float32, computed, rounded once to nearest even;
// integers up to 32 bits compute in numbers and wrap on store (modulo 2^bits); int64/uint64
// compute in BigInt and wrap on store into BigInt64Array/BigUint64Array.

import { BIG_INT_TYPES, FLOAT_TYPES, SMALL_INT_TYPES, scratch } from "../tensor.js";
import { attrInt } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { allocStorage, encodeHalf, isHalfType, toFloat32 } from "../tensor.js";
import type { Kernel, KernelContext, RTensor, RValue, Storage } from "../types.js";
import { broadcastIndex, broadcastShapes, checkedCount, fail, input } from "./util.js";
import { broadcastsMultidirectionally } from "../../schema/facts.js";
import { opVersion } from "./version.js";
import { intAttr } from "./attrs.js";
import { castTensor } from "./cast.js";
import { erf, erfFloat32 } from "./erf.js";
import { gemmEnabled } from "./wasm/gemm.js";
import {
  arithInPlace,
  arithRowsWasm,
  arithWasm,
  reluInPlace,
  erfWasm,
  narrowHalfWasm,
  reluWasm,
  widenHalfWasm,
} from "./ew-wasm.js";

type Num = (x: number) => number;
type Big = (x: bigint) => bigint;
type Num2 = (a: number, b: number) => number;
type Big2 = (a: bigint, b: bigint) => bigint;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Cmp = (a: any, b: any) => boolean;

type Domain = "float" | "int" | "big" | "bool" | "string";
export function domainOf(dtype: number): Domain | undefined {
  if (FLOAT_TYPES.has(dtype)) return "float";
  if (SMALL_INT_TYPES.has(dtype)) return "int";
  if (BIG_INT_TYPES.has(dtype)) return "big";
  if (dtype === DataType.BOOL) return "bool";
  if (dtype === DataType.STRING) return "string";
  return undefined;
}

/** The values to compute with: float16/bfloat16 decoded to float32, other storage as is. */
export function computeView(t: RTensor): Storage {
  if (!isHalfType(t.dtype)) return t.data;
  const n = t.data.length;
  const out = scratch(Float32Array, n);
  if (widenHalfWasm(t.data as Uint16Array, halfKind(t.dtype), out)) return out;
  return toFloat32(t);
}

export const halfKind = (dtype: number) => (dtype === DataType.FLOAT16 ? 1 : 2);

/** Output storage for computing: float32 for the half types (encoded afterwards). */
function computeStorage(dtype: number, n: number): Storage {
  return isHalfType(dtype) ? scratch(Float32Array, n) : allocStorage(dtype, n);
}

function finish(dtype: number, shape: number[], data: Storage): RTensor {
  if (isHalfType(dtype)) return { dtype, shape, data: narrowed(dtype, data as Float32Array) };
  return { dtype, shape, data };
}

/** float32 values rounded to float16 / bfloat16 bits (encodeHalf's). */
function narrowed(dtype: number, v: Float32Array): Uint16Array {
  const out = allocStorage(dtype, v.length) as Uint16Array;
  if (narrowHalfWasm(v, halfKind(dtype), out)) return out;
  return encodeHalf(dtype, v);
}

// ---------------------------------------------------------------------------------------------
// Unary

export interface UnarySpec {
  /**
   * A loop of its own for float32 (the shared loop's call of `float` cannot be inlined, being
   * the same call for every op): the same values as `float` gives, rounded the same way.
   */
  f32?: (src: Float32Array, out: Float32Array) => void;
  /** float32 computed over a donated input where it lies (false: it cannot be), as `f32` would. */
  inPlace?: (data: Float32Array) => boolean;
  float?: Num;
  int?: Num;
  big?: Big;
  bool?: Num;
}

export function unary(op: string, spec: UnarySpec): Kernel {
  return (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    const dom = domainOf(x.dtype);
    const f =
      dom === "float"
        ? spec.float
        : dom === "int"
          ? spec.int
          : dom === "bool"
            ? spec.bool
            : undefined;
    const n = x.data.length;
    if (dom === "big" && spec.big) {
      const src = x.data as BigInt64Array;
      const out = allocStorage(x.dtype, n) as BigInt64Array;
      const g = spec.big;
      for (let i = 0; i < n; i++) out[i] = g(src[i]!);
      return [{ dtype: x.dtype, shape: [...x.shape], data: out }];
    }
    if (!f) fail(ctx, `${op} does not accept ${dtypeName(x.dtype)} input`);
    if (spec.inPlace && x.dtype === DataType.FLOAT && ctx.donated?.(0)) {
      const data = x.data as Float32Array;
      if (spec.inPlace(data)) return [{ dtype: x.dtype, shape: [...x.shape], data }];
    }
    if (spec.f32 && x.dtype === DataType.FLOAT) {
      const out = allocStorage(x.dtype, n) as Float32Array;
      spec.f32(x.data as Float32Array, out);
      return [{ dtype: x.dtype, shape: [...x.shape], data: out }];
    }
    // (Off with the other fast paths, setGemmDisabled, so that tests compare the two.)
    if (isHalfType(x.dtype) && n >= HALF_TABLE_MIN && gemmEnabled()) {
      const table = halfTable(f, x.dtype);
      const src = x.data as Uint16Array;
      const out = allocStorage(x.dtype, n) as Uint16Array;
      for (let i = 0; i < n; i++) out[i] = table[src[i]!]!;
      return [{ dtype: x.dtype, shape: [...x.shape], data: out }];
    }
    return [unaryFloat(f, x)];
  };
}

/** The unary loop over numbers: float16/bfloat16 decoded to float32, computed, rounded back. */
function unaryFloat(f: Num, x: RTensor): RTensor {
  const n = x.data.length;
  const src = computeView(x) as Float64Array;
  const out = computeStorage(x.dtype, n) as Float64Array;
  for (let i = 0; i < n; i++) out[i] = f(src[i]!);
  return finish(x.dtype, [...x.shape], out);
}

/** float16/bfloat16 inputs of at least this many elements go through a table of all 2^16 values. */
const HALF_TABLE_MIN = 1 << 18;
const halfTables = new WeakMap<Num, Map<number, Uint16Array>>();

/**
 * f's results for every float16 / bfloat16 bit pattern, computed by the same loop (unaryFloat)
 * as any tensor of that type: a tensor's results are then its elements' entries.
 */
function halfTable(f: Num, dtype: number): Uint16Array {
  let byType = halfTables.get(f);
  if (!byType) halfTables.set(f, (byType = new Map()));
  let t = byType.get(dtype);
  if (!t) {
    const all = new Uint16Array(65536);
    for (let i = 0; i < 65536; i++) all[i] = i;
    t = unaryFloat(f, { dtype, shape: [65536], data: all }).data as Uint16Array;
    byType.set(dtype, t);
  }
  return t;
}

const absBig: Big = (x) => (x < 0n ? -x : x);
const signNum: Num = (x) => (x > 0 ? 1 : x < 0 ? -1 : x);

/** Round half to even. */
function roundEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Erf: float32 storage through `erfFloat32` (the same results as the series, faster). */
const erfKernel: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  if (x.dtype !== DataType.FLOAT) return generalErf(ctx, inputs);
  const out = allocStorage(x.dtype, x.data.length) as Float32Array;
  if (!erfWasm(x.data as Float32Array, out)) erfFloat32(x.data as Float32Array, out);
  return [{ dtype: x.dtype, shape: [...x.shape], data: out }];
};
const generalErf = unary("Erf", { float: erf });

export const unaryKernels: Record<string, Kernel> = {
  Abs: unary("Abs", { float: Math.abs, int: Math.abs, big: absBig }),
  Neg: unary("Neg", { float: (x) => -x, int: (x) => -x, big: (x) => -x }),
  Sqrt: unary("Sqrt", {
    f32: (src, out) => {
      for (let i = 0; i < src.length; i++) out[i] = Math.sqrt(src[i]!);
    },
    float: Math.sqrt,
  }),
  Exp: unary("Exp", {
    f32: (src, out) => {
      for (let i = 0; i < src.length; i++) out[i] = Math.exp(src[i]!);
    },
    float: Math.exp,
  }),
  Log: unary("Log", { float: Math.log }),
  Reciprocal: unary("Reciprocal", { float: (x) => 1 / x }),
  Floor: unary("Floor", { float: Math.floor }),
  Ceil: unary("Ceil", { float: Math.ceil }),
  Round: unary("Round", { float: roundEven }),
  Sign: unary("Sign", {
    float: signNum,
    int: signNum,
    big: (x) => (x > 0n ? 1n : x < 0n ? -1n : 0n),
  }),
  Relu: unary("Relu", {
    inPlace: reluInPlace,
    f32: (src, out) => {
      if (reluWasm(src, out)) return;
      for (let i = 0; i < src.length; i++) {
        const x = src[i]!;
        out[i] = x < 0 ? 0 : x;
      }
    },
    float: (x) => (x < 0 ? 0 : x),
    int: (x) => (x < 0 ? 0 : x),
    big: (x) => (x < 0n ? 0n : x),
  }),
  Sigmoid: unary("Sigmoid", {
    f32: (src, out) => {
      for (let i = 0; i < src.length; i++) {
        const x = src[i]!;
        out[i] = x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
      }
    },
    float: (x) => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x))),
  }),
  Tanh: unary("Tanh", {
    f32: (src, out) => {
      for (let i = 0; i < src.length; i++) out[i] = Math.tanh(src[i]!);
    },
    float: Math.tanh,
  }),
  Sin: unary("Sin", { float: Math.sin }),
  Cos: unary("Cos", { float: Math.cos }),
  Tan: unary("Tan", { float: Math.tan }),
  Asin: unary("Asin", { float: Math.asin }),
  Acos: unary("Acos", { float: Math.acos }),
  Atan: unary("Atan", { float: Math.atan }),
  Sinh: unary("Sinh", { float: Math.sinh }),
  Cosh: unary("Cosh", { float: Math.cosh }),
  Asinh: unary("Asinh", { float: Math.asinh }),
  Acosh: unary("Acosh", { float: Math.acosh }),
  Atanh: unary("Atanh", { float: Math.atanh }),
  Softsign: unary("Softsign", { float: (x) => x / (1 + Math.abs(x)) }),
  Softplus: unary("Softplus", {
    float: (x) => (x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x))),
  }),
  Erf: erfKernel,
};

// ---------------------------------------------------------------------------------------------
// Binary (broadcasting)

export interface BinarySpec {
  /** A monomorphic loop for float/double (and half-type compute buffers) when shapes allow. */
  fast?: FastOp;
  float?: Num2;
  int?: Num2;
  /** For int32/uint32 where the plain number result may lose precision (Mul). */
  int32?: Num2;
  big?: Big2;
  bool?: Num2;
}

/** Applies `f` elementwise over the broadcast of a and b into `out` (already sized). */
function broadcast2<T>(
  a: ArrayLike<T>,
  ia: Int32Array | null,
  b: ArrayLike<T>,
  ib: Int32Array | null,
  out: { [i: number]: unknown; length: number },
  f: (x: T, y: T) => unknown,
): void {
  const n = out.length;
  if (!ia && !ib) for (let i = 0; i < n; i++) out[i] = f(a[i]!, b[i]!);
  else if (!ia) for (let i = 0; i < n; i++) out[i] = f(a[i]!, b[ib![i]!]!);
  else if (!ib) for (let i = 0; i < n; i++) out[i] = f(a[ia[i]!]!, b[i]!);
  else for (let i = 0; i < n; i++) out[i] = f(a[ia[i]!]!, b[ib[i]!]!);
}

export function binaryCompute(
  ctx: KernelContext,
  op: string,
  spec: BinarySpec,
  a: RTensor,
  b: RTensor,
): RTensor {
  if (a.dtype !== b.dtype)
    fail(
      ctx,
      `${op} needs inputs of one type, got ${dtypeName(a.dtype)} and ${dtypeName(b.dtype)}`,
    );
  const dtype = a.dtype;
  const shape = broadcastShapes(ctx, [a.shape, b.shape]);
  const n = checkedCount(ctx, shape);
  const dom = domainOf(dtype);
  const needMaps = !(dom === "float" && spec.fast);
  const ia = needMaps ? broadcastIndex(a.shape, shape) : null;
  const ib = needMaps ? broadcastIndex(b.shape, shape) : null;
  if (dom === "big") {
    if (!spec.big) fail(ctx, `${op} does not accept ${dtypeName(dtype)} inputs`);
    const out = allocStorage(dtype, n) as BigInt64Array;
    broadcast2(a.data as BigInt64Array, ia, b.data as BigInt64Array, ib, out, spec.big);
    return { dtype, shape, data: out };
  }
  let f: Num2 | undefined;
  if (dom === "float") f = spec.float;
  else if (dom === "int")
    f =
      (dtype === DataType.INT32 || dtype === DataType.UINT32) && spec.int32 ? spec.int32 : spec.int;
  else if (dom === "bool") f = spec.bool;
  if (!f) fail(ctx, `${op} does not accept ${dtypeName(dtype)} inputs`);
  const sa = unitStep(a.shape, shape);
  const sb = unitStep(b.shape, shape);
  if (dom === "float" && spec.fast && dtype === DataType.FLOAT16 && sa >= 0 && sb >= 0) {
    // float16 bits straight through the arena (widened, computed, rounded there).
    const out16 = allocStorage(dtype, n) as Uint16Array;
    const [a16, b16] = [a.data as Uint16Array, b.data as Uint16Array];
    if (arithWasm(spec.fast, a16, sa, b16, sb, out16, 1)) return { dtype, shape, data: out16 };
  }
  const out = computeStorage(dtype, n) as Float64Array;
  const av = computeView(a) as Float64Array;
  const bv = computeView(b) as Float64Array;
  if (dom === "float" && spec.fast) {
    // float32 values (float16 widened, every NaN the same) on WebAssembly where shapes allow.
    const wasm = dtype === DataType.FLOAT || dtype === DataType.FLOAT16;
    if (sa >= 0 && sb >= 0) {
      const f32 = (x: Storage) => x as Float32Array;
      if (!(wasm && arithWasm(spec.fast, f32(av), sa, f32(bv), sb, f32(out))))
        fastFloat(spec.fast, av, sa, bv, sb, out);
    } else blockedFloat(spec.fast, av, a.shape, bv, b.shape, shape, out, wasm);
  } else broadcast2(av, ia, bv, ib, out, f);
  return finish(dtype, shape, out);
}

/**
 * The period of an operand's index along the output: its element count when it repeats along
 * the output's leading axes (the output's own shape, a single element, a bias over the last
 * axes), else -1.
 */
function unitStep(shape: readonly number[], out: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  if (n === 1) return 1;
  let lead = 0;
  while (lead < shape.length && shape[lead] === 1) lead++;
  const k = shape.length - lead;
  if (k > out.length) return -1;
  for (let i = 0; i < k; i++) if (shape[lead + i] !== out[out.length - k + i]) return -1;
  return n;
}

type FastOp = "add" | "sub" | "mul" | "div";

/**
 * Arithmetic over float arrays where each operand's index runs from 0 to its period and starts
 * again (full, one element, or repeated along leading axes): one small loop per operator, so the
 * engine compiles each without a call per element.
 */
function fastFloat(
  op: FastOp,
  a: Float64Array,
  sa: number,
  b: Float64Array,
  sb: number,
  out: Float64Array,
): void {
  const n = out.length;
  let j = 0;
  let k = 0;
  switch (op) {
    case "add":
      for (let i = 0; i < n; i++) {
        out[i] = a[j]! + b[k]!;
        if (++j === sa) j = 0;
        if (++k === sb) k = 0;
      }
      return;
    case "sub":
      for (let i = 0; i < n; i++) {
        out[i] = a[j]! - b[k]!;
        if (++j === sa) j = 0;
        if (++k === sb) k = 0;
      }
      return;
    case "mul":
      for (let i = 0; i < n; i++) {
        out[i] = a[j]! * b[k]!;
        if (++j === sa) j = 0;
        if (++k === sb) k = 0;
      }
      return;
    case "div":
      for (let i = 0; i < n; i++) {
        out[i] = a[j]! / b[k]!;
        if (++j === sa) j = 0;
        if (++k === sb) k = 0;
      }
      return;
  }
}

/**
 * Arithmetic over any broadcast of float arrays (a `[C,1,1]` scale on `[N,C,H,W]`, an outer
 * product): the output's axes are merged where both operands step alike, then rows of the last
 * merged axis run as one loop in which each operand steps by 1 or stays (0), so no per-element
 * index map is built. Each element is the same single operation as on every other path.
 */
function blockedFloat(
  op: FastOp,
  a: Float64Array,
  aShape: readonly number[],
  b: Float64Array,
  bShape: readonly number[],
  shape: readonly number[],
  out: Float64Array,
  f32 = false,
): void {
  if (out.length === 0) return;
  const dims: number[] = [];
  const sa: number[] = [];
  const sb: number[] = [];
  const strides = (s: readonly number[]): number[] => {
    const r = new Array<number>(shape.length).fill(0);
    let acc = 1;
    for (let i = s.length - 1; i >= 0; i--) {
      r[shape.length - s.length + i] = s[i] === 1 ? 0 : acc;
      acc *= s[i]!;
    }
    return r;
  };
  const as = strides(aShape);
  const bs = strides(bShape);
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i]!;
    if (d === 1) continue;
    const k = dims.length - 1;
    // Merge with the previous axis when both operands continue it contiguously (or both stay).
    if (k >= 0 && as[i]! * d === sa[k]! && bs[i]! * d === sb[k]!) {
      dims[k]! *= d;
      sa[k] = as[i]!;
      sb[k] = bs[i]!;
      continue;
    }
    dims.push(d);
    sa.push(as[i]!);
    sb.push(bs[i]!);
  }
  const last = dims.length - 1;
  if (last < 0) {
    fastFloat(op, a, 1, b, 1, out);
    return;
  }
  const len = dims[last]!;
  const da = sa[last]!;
  const db = sb[last]!;
  const counter = new Array<number>(last).fill(0);
  let ja = 0;
  let kb = 0;
  // Each row's first operand indices; long float32 rows go to WebAssembly (arithRowsWasm).
  const rows = out.length / len;
  const starts = f32 && len >= 4096 ? scratch(Int32Array, 2 * rows) : undefined;
  for (let o = 0, r = 0; o < out.length; o += len, r++) {
    if (starts) {
      starts[2 * r] = ja;
      starts[2 * r + 1] = kb;
    } else rowOp(op, a, ja, da, b, kb, db, out, o, len);
    for (let ax = last - 1; ax >= 0; ax--) {
      ja += sa[ax]!;
      kb += sb[ax]!;
      if (++counter[ax]! < dims[ax]!) break;
      ja -= sa[ax]! * dims[ax]!;
      kb -= sb[ax]! * dims[ax]!;
      counter[ax] = 0;
    }
  }
  if (!starts) return;
  const f = (x: Float64Array) => x as unknown as Float32Array;
  const at = (k: number) => (r: number) => starts[2 * r + k]!;
  if (!arithRowsWasm(op, f(a), at(0), da, f(b), at(1), db, f(out), len))
    for (let r = 0; r < rows; r++)
      rowOp(op, a, starts[2 * r]!, da, b, starts[2 * r + 1]!, db, out, r * len, len);
}

/** One row of `blockedFloat`: out[o + i] = a[ja + i·da] op b[kb + i·db]. */
function rowOp(
  op: FastOp,
  a: Float64Array,
  ja: number,
  da: number,
  b: Float64Array,
  kb: number,
  db: number,
  out: Float64Array,
  o: number,
  len: number,
): void {
  const end = o + len;
  switch (op) {
    case "add":
      for (let i = o; i < end; i++, ja += da, kb += db) out[i] = a[ja]! + b[kb]!;
      return;
    case "sub":
      for (let i = o; i < end; i++, ja += da, kb += db) out[i] = a[ja]! - b[kb]!;
      return;
    case "mul":
      for (let i = o; i < end; i++, ja += da, kb += db) out[i] = a[ja]! * b[kb]!;
      return;
    case "div":
      for (let i = o; i < end; i++, ja += da, kb += db) out[i] = a[ja]! / b[kb]!;
      return;
  }
}

function binary(op: string, spec: BinarySpec): Kernel {
  return (ctx, inputs) => {
    const a = input(ctx, inputs, 0);
    const b = legacyBroadcast(ctx, inputs);
    const inPlace = spec.fast && arithDonated(ctx, spec.fast, a, b, b === inputs[1]);
    return [inPlace || binaryCompute(ctx, op, spec, a, b)];
  };
}

/**
 * float32 arithmetic written over a donated operand as large as the result (ctx.donated), the
 * other one value or one per channel (a block of the result's axes followed by 1s): in the
 * operand's own memory, each element the same single float32 operation as on the other paths.
 * Undefined where that does not apply.
 */
function arithDonated(
  ctx: KernelContext,
  op: FastOp,
  a: RTensor,
  b: RTensor,
  bIsInput: boolean,
): RTensor | undefined {
  if (!ctx.donated || a.dtype !== DataType.FLOAT || b.dtype !== DataType.FLOAT) return undefined;
  const shape = broadcastShapes(ctx, [a.shape, b.shape]);
  const full = (t: RTensor) => t.data.length === shape.reduce((p, d) => p * d, 1);
  for (const [big, small, k, left] of [
    [a, b, 0, false],
    [b, a, 1, true],
  ] as [RTensor, RTensor, number, boolean][]) {
    if (!full(big) || big.shape.length !== shape.length || (k === 1 && !bIsInput)) continue;
    const inner = channelInner(small.shape, shape);
    if (inner === undefined || !ctx.donated(k)) continue;
    const data = big.data as Float32Array;
    if (arithInPlace(op, data, small.data as Float32Array, inner, left))
      return { dtype: DataType.FLOAT, shape, data };
  }
  return undefined;
}

/**
 * For an operand of one value, or one per index of a block of consecutive axes of the result
 * (its other axes 1): the result elements per value (the block's trailing axes' size); else
 * undefined.
 */
function channelInner(small: readonly number[], out: readonly number[]): number | undefined {
  const n = out.reduce((p, d) => p * d, 1);
  if (small.reduce((p, d) => p * d, 1) === 1) return n;
  const off = out.length - small.length;
  if (off < 0) return undefined;
  const dims = small.map((d, i) => [d, out[off + i]!] as const);
  const first = dims.findIndex(([d]) => d !== 1);
  let last = first;
  while (last + 1 < dims.length && dims[last + 1]![0] !== 1) last++;
  for (let i = 0; i < dims.length; i++) {
    const [d, o] = dims[i]!;
    if (i >= first && i <= last ? d !== o : d !== 1) return undefined;
  }
  return out.slice(off + last + 1).reduce((p, d) => p * d, 1);
}

/**
 * Input 1 of a binary op. Before multidirectional broadcasting, `broadcast=1` with `axis` aligned
 * B's dimensions with A's starting at axis (rather than at the end); B is reshaped to express that.
 */
function legacyBroadcast(ctx: KernelContext, inputs: (RValue | undefined)[]): RTensor {
  const b = input(ctx, inputs, 1);
  if (
    intAttr(ctx, "broadcast", { without: 0 }) === 0 ||
    broadcastsMultidirectionally(opVersion(ctx))
  )
    return b;
  const axisAttr = attrInt(ctx.node, "axis");
  if (axisAttr === undefined) return b;
  const a = input(ctx, inputs, 0);
  const r = a.shape.length;
  const axis = axisAttr < 0 ? axisAttr + r : axisAttr;
  const trailing = r - axis - b.shape.length;
  if (axis < 0 || trailing < 0)
    fail(ctx, `axis ${axisAttr} does not fit B's shape [${b.shape.join(",")}] into rank ${r}`);
  return { ...b, shape: [...b.shape, ...new Array<number>(trailing).fill(1)] };
}

/** Max/Min/Sum/Mean: any number of inputs (at least one), folded pairwise with broadcasting. */
function variadic(op: string, spec: BinarySpec, mean = false): Kernel {
  return (ctx, inputs) => {
    if (inputs.length === 0) fail(ctx, `${op} needs at least one input`);
    let acc = input(ctx, inputs, 0);
    for (let i = 1; i < inputs.length; i++)
      acc = binaryCompute(ctx, op, spec, acc, input(ctx, inputs, i));
    if (inputs.length === 1)
      acc = { dtype: acc.dtype, shape: [...acc.shape], data: acc.data.slice() as Storage };
    if (mean) {
      const k = inputs.length;
      acc = unary(op, { float: (x) => x / k })(ctx, [acc])[0] as RTensor;
    }
    return [acc];
  };
}

const maxNum: Num2 = (a, b) => (a > b || a !== a ? a : b);
const minNum: Num2 = (a, b) => (a < b || a !== a ? a : b);
const maxBig: Big2 = (a, b) => (a > b ? a : b);
const minBig: Big2 = (a, b) => (a < b ? a : b);

const truncDiv: Num2 = (a, b) => (b === 0 ? 0 : Math.trunc(a / b));
const bigDiv: Big2 = (a, b) => (b === 0n ? 0n : a / b);

function powNum(a: number, b: number): number {
  return Math.pow(a, b);
}

export const binaryKernels: Record<string, Kernel> = {
  Add: binary("Add", {
    fast: "add",
    float: (a, b) => a + b,
    int: (a, b) => a + b,
    big: (a, b) => a + b,
  }),
  Sub: binary("Sub", {
    fast: "sub",
    float: (a, b) => a - b,
    int: (a, b) => a - b,
    big: (a, b) => a - b,
  }),
  Mul: binary("Mul", {
    fast: "mul",
    float: (a, b) => a * b,
    int: (a, b) => a * b,
    int32: Math.imul,
    big: (a, b) => a * b,
  }),
  Div: binary("Div", { fast: "div", float: (a, b) => a / b, int: truncDiv, big: bigDiv }),
  Max: variadic("Max", { float: maxNum, int: maxNum, big: maxBig }),
  Min: variadic("Min", { float: minNum, int: minNum, big: minBig }),
  Sum: variadic("Sum", { float: (a, b) => a + b }),
  Mean: variadic("Mean", { float: (a, b) => a + b }, true),
  And: binary("And", { bool: (a, b) => a & b }),
  Or: binary("Or", { bool: (a, b) => a | b }),
  Xor: binary("Xor", { bool: (a, b) => a ^ b }),
};

// PRelu: before multidirectional broadcasting a 1-D slope of the channel count applies along axis 1.
binaryKernels.PRelu = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  let slope = input(ctx, inputs, 1);
  if (
    slope.shape.length === 1 &&
    x.shape.length >= 2 &&
    slope.shape[0] === x.shape[1] &&
    slope.shape[0] !== 1 &&
    !broadcastsMultidirectionally(opVersion(ctx))
  )
    slope = {
      ...slope,
      shape: [slope.shape[0]!, ...new Array<number>(x.shape.length - 2).fill(1)],
    };
  const spec: BinarySpec = {
    float: (v, s) => (v < 0 ? v * s : v),
    int: (v, s) => (v < 0 ? v * s : v),
  };
  return [binaryCompute(ctx, "PRelu", spec, x, slope)];
};

// Pow: the exponent may have another type than the base (version 12+).
binaryKernels.Pow = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  let y = input(ctx, inputs, 1);
  if (y.dtype !== x.dtype) y = castTensor(ctx, y, x.dtype);
  return [
    binaryCompute(
      ctx,
      "Pow",
      {
        float: powNum,
        int: (a, b) => Math.trunc(Math.pow(a, b)),
        big: (a, b) => (b < 0n ? 0n : a ** b),
      },
      x,
      y,
    ),
  ];
};

// ---------------------------------------------------------------------------------------------
// Comparisons → bool

function compare(op: string, f: Cmp, allowString = false): Kernel {
  return (ctx, inputs) => {
    const a = input(ctx, inputs, 0);
    const b = legacyBroadcast(ctx, inputs);
    if (a.dtype !== b.dtype)
      fail(
        ctx,
        `${op} needs inputs of one type, got ${dtypeName(a.dtype)} and ${dtypeName(b.dtype)}`,
      );
    if (a.dtype === DataType.STRING && !allowString)
      fail(ctx, `${op} does not accept string inputs`);
    const shape = broadcastShapes(ctx, [a.shape, b.shape]);
    const n = checkedCount(ctx, shape);
    const out = scratch(Uint8Array, n);
    const av = computeView(a) as ArrayLike<unknown>;
    const bv = computeView(b) as ArrayLike<unknown>;
    broadcast2(
      av,
      broadcastIndex(a.shape, shape),
      bv,
      broadcastIndex(b.shape, shape),
      out,
      (x, y) => (f(x, y) ? 1 : 0),
    );
    return [{ dtype: DataType.BOOL, shape, data: out }];
  };
}

export const compareKernels: Record<string, Kernel> = {
  Equal: compare("Equal", (a, b) => a === b, true),
  Less: compare("Less", (a, b) => a < b),
  Greater: compare("Greater", (a, b) => a > b),
  LessOrEqual: compare("LessOrEqual", (a, b) => a <= b),
  GreaterOrEqual: compare("GreaterOrEqual", (a, b) => a >= b),
};

// ---------------------------------------------------------------------------------------------
// Logic and float classification

const Not: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  if (x.dtype !== DataType.BOOL) fail(ctx, `Not needs a bool input, got ${dtypeName(x.dtype)}`);
  const src = x.data as Uint8Array;
  const out = scratch(Uint8Array, src.length);
  for (let i = 0; i < src.length; i++) out[i] = src[i] ? 0 : 1;
  return [{ dtype: DataType.BOOL, shape: [...x.shape], data: out }];
};

function classify(op: string, test: (ctx: KernelContext) => (x: number) => boolean): Kernel {
  return (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    if (!FLOAT_TYPES.has(x.dtype))
      fail(ctx, `${op} needs a floating-point input, got ${dtypeName(x.dtype)}`);
    const src = computeView(x) as Float64Array;
    const out = scratch(Uint8Array, src.length);
    const t = test(ctx);
    for (let i = 0; i < src.length; i++) out[i] = t(src[i]!) ? 1 : 0;
    return [{ dtype: DataType.BOOL, shape: [...x.shape], data: out }];
  };
}

const IsNaN = classify("IsNaN", () => (x) => x !== x);
const IsInf = classify("IsInf", (ctx) => {
  const neg = intAttr(ctx, "detect_negative") !== 0;
  const pos = intAttr(ctx, "detect_positive") !== 0;
  return (x) => (pos && x === Infinity) || (neg && x === -Infinity);
});

// ---------------------------------------------------------------------------------------------
// Where

const Where: Kernel = (ctx, inputs) => {
  const c = input(ctx, inputs, 0);
  const x = input(ctx, inputs, 1);
  const y = input(ctx, inputs, 2);
  if (c.dtype !== DataType.BOOL) fail(ctx, `condition must be bool, got ${dtypeName(c.dtype)}`);
  if (x.dtype !== y.dtype)
    fail(ctx, `X and Y must have one type, got ${dtypeName(x.dtype)} and ${dtypeName(y.dtype)}`);
  const shape = broadcastShapes(ctx, [c.shape, x.shape, y.shape]);
  const n = checkedCount(ctx, shape);
  const ic = broadcastIndex(c.shape, shape);
  const ix = broadcastIndex(x.shape, shape);
  const iy = broadcastIndex(y.shape, shape);
  const cd = c.data as Uint8Array;
  const xd = x.data as Float64Array;
  const yd = y.data as Float64Array;
  const out = allocStorage(x.dtype, n) as Float64Array;
  for (let i = 0; i < n; i++)
    out[i] = cd[ic ? ic[i]! : i] ? xd[ix ? ix[i]! : i]! : yd[iy ? iy[i]! : i]!;
  return [{ dtype: x.dtype, shape, data: out }];
};

export const elementwiseKernels: Record<string, Kernel> = {
  ...unaryKernels,
  ...binaryKernels,
  ...compareKernels,
  Not,
  IsNaN,
  IsInf,
  Where,
};

// The Reduce* family: ReduceSum, ReduceMean, ReduceProd, ReduceMax, ReduceMin, ReduceL1, ReduceL2,
// ReduceSumSquare, ReduceLogSum, ReduceLogSumExp, every version. Semantics: SEMANTICS.md
// ("Reduce family"). Float types accumulate in float64 and round once; integer Sum/L1/SumSquare/Prod
// wrap modulo 2^bits exactly (typed-array stores wrap; 64-bit types use BigInt).
//
// Layout: the input's dimensions are coalesced into alternating blocks of kept and reduced
// dimensions (size-1 dimensions dropped). The input is then walked in order, one contiguous
// innermost block at a time: a reduced innermost block folds into one accumulator, a kept one
// adds element-wise into a row of accumulators. float32 sum-like ops over a contiguous suffix or
// prefix go to WebAssembly SIMD (wasm/), with this TypeScript path as reference and fallback;
// large inputs there are read in place and shared with a helper thread (wasm/rows.ts).

import { FLOAT_TYPES, SMALL_INT_TYPES, scratch } from "../tensor.js";
import { chargeBytes } from "../budget.js";
import { OnnxError } from "../../errors.js";
import { attrInts, getAttr } from "../../ir/attributes.js";
import {
  dtypeName,
  float16Table,
  numberToBfloat16Bits,
  numberToFloat16Bits,
} from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { allocStorage } from "../tensor.js";
import type { Kernel, KernelContext, RTensor, RValue } from "../types.js";
import { reduceWasm } from "./wasm/loader.js";
import {
  ACC_BASE,
  CHUNK,
  WASM_BYTES,
  inPlace,
  reduceColumnsDirect,
  reduceRows,
} from "./wasm/rows.js";
import { hasInput } from "../../schema/facts.js";
import { opVersion } from "./version.js";
import { intAttr } from "./attrs.js";

type WasmPath = ReturnType<typeof reduceRows>;

export type ReduceOp =
  "Sum" | "Mean" | "Prod" | "Max" | "Min" | "L1" | "L2" | "SumSquare" | "LogSum" | "LogSumExp";

let wasmEnabled = true;
/** Turns the WebAssembly fast path on or off (tests compare both paths). */
export function setReduceWasmEnabled(on: boolean): void {
  wasmEnabled = on;
}

/** Inputs smaller than this stay on the TypeScript path (the copy-in setup is not worth it). */
const WASM_MIN_ELEMENTS = 4096;

interface Block {
  n: number;
  reduced: boolean;
}

interface Plan {
  outShape: number[];
  outCount: number;
  /** Number of input elements folded into each output (1 when nothing is reduced). */
  count: number;
  blocks: Block[];
}

function isTensor(v: RValue | undefined): v is RTensor {
  return v !== undefined && "dtype" in v;
}

/** Reads and checks the axes (attribute or input, by version); returns the output shape and the block layout. */
export function planReduce(
  ctx: Pick<KernelContext, "label" | "opset" | "node">,
  shape: readonly number[],
  axesInput: RTensor | undefined,
): Plan {
  const r = shape.length;
  let axes: number[] | undefined;
  let noop = false;
  let exact: ArrayLike<bigint | number> | undefined;
  if (hasInput(opVersion(ctx), "axes")) {
    if (axesInput) {
      const d = axesInput.data;
      if (!(d instanceof BigInt64Array) && !(d instanceof Int32Array))
        throw new OnnxError(
          "E_RUNTIME",
          `axes must be an int64 tensor, got ${dtypeName(axesInput.dtype)}`,
          ctx.label,
        );
      axes = Array.from(d as ArrayLike<bigint | number>, (v) => Number(v));
      exact = d as ArrayLike<bigint | number>;
    }
    noop = intAttr(ctx, "noop_with_empty_axes") !== 0;
  } else {
    axes = attrInts(ctx.node, "axes");
    exact = getAttr(ctx.node, "axes")?.value as bigint[] | undefined;
  }
  const keepdims = intAttr(ctx, "keepdims") !== 0;
  const reduced = new Array<boolean>(r).fill(false);
  if (axes === undefined || axes.length === 0) {
    if (!noop) reduced.fill(true);
  } else {
    for (const [i, a] of axes.entries()) {
      if (a < -r || a >= r)
        throw new OnnxError(
          "E_RUNTIME",
          `axis ${exact?.[i] ?? a} out of range for rank ${r}`,
          ctx.label,
        );
      reduced[a < 0 ? a + r : a] = true;
    }
  }
  const outShape: number[] = [];
  let count = 1;
  let outCount = 1;
  const blocks: Block[] = [];
  for (let i = 0; i < r; i++) {
    const n = shape[i]!;
    if (reduced[i]) {
      count *= n;
      if (keepdims) outShape.push(1);
    } else {
      outCount *= n;
      outShape.push(n);
    }
    if (n === 1) continue;
    const last = blocks[blocks.length - 1];
    if (last && last.reduced === reduced[i]) last.n *= n;
    else blocks.push({ n, reduced: reduced[i]! });
  }
  if (blocks.length === 0) blocks.push({ n: 1, reduced: true });
  return { outShape, outCount, count, blocks };
}

/**
 * Walks the input one innermost block at a time, in input order, calling `seg(inOff, outOff)` with
 * the block's input offset and its output offset (the accumulator it folds into, or the first of
 * the row it adds into).
 */
function forSegments(blocks: Block[], seg: (inOff: number, outOff: number) => void): void {
  const inner = blocks[blocks.length - 1]!;
  const outer = blocks.slice(0, -1);
  // Output stride of each outer block: product of the kept blocks after it (0 when reduced).
  const outStride = new Array<number>(outer.length).fill(0);
  let s = inner.reduced ? 1 : inner.n;
  for (let j = outer.length - 1; j >= 0; j--) {
    if (!outer[j]!.reduced) {
      outStride[j] = s;
      s *= outer[j]!.n;
    }
  }
  let total = 1;
  for (const b of outer) total *= b.n;
  const idx = new Array<number>(outer.length).fill(0);
  let outOff = 0;
  for (let k = 0, inOff = 0; k < total; k++, inOff += inner.n) {
    seg(inOff, outOff);
    for (let j = outer.length - 1; j >= 0; j--) {
      idx[j]!++;
      outOff += outStride[j]!;
      if (idx[j]! < outer[j]!.n) break;
      outOff -= outStride[j]! * outer[j]!.n;
      idx[j] = 0;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Floating point: float16, bfloat16, float, double. Accumulators are float64.

type Num = ArrayLike<number>;

function floatInit(op: ReduceOp): number {
  return op === "Prod" ? 1 : op === "Max" ? -Infinity : op === "Min" ? Infinity : 0;
}

/** Folds one input segment into the accumulators (float64). */
function foldFloat(
  op: ReduceOp,
  x: Num,
  acc: Float64Array,
  shift: Float64Array | undefined,
  inOff: number,
  outOff: number,
  n: number,
  reduceInner: boolean,
): void {
  const end = inOff + n;
  if (reduceInner) {
    let a = acc[outOff]!;
    switch (op) {
      case "Sum":
      case "Mean":
      case "LogSum":
        for (let i = inOff; i < end; i++) a += x[i]!;
        break;
      case "L1":
        for (let i = inOff; i < end; i++) a += Math.abs(x[i]!);
        break;
      case "L2":
      case "SumSquare":
        for (let i = inOff; i < end; i++) {
          const v = x[i]!;
          a += v * v;
        }
        break;
      case "Prod":
        for (let i = inOff; i < end; i++) a *= x[i]!;
        break;
      case "Max":
        for (let i = inOff; i < end; i++) {
          const v = x[i]!;
          if (v > a || v !== v) a = v;
          if (a !== a) break;
        }
        break;
      case "Min":
        for (let i = inOff; i < end; i++) {
          const v = x[i]!;
          if (v < a || v !== v) a = v;
          if (a !== a) break;
        }
        break;
      case "LogSumExp": {
        const m = shift![outOff]!;
        for (let i = inOff; i < end; i++) a += Math.exp(x[i]! - m);
        break;
      }
    }
    acc[outOff] = a;
    return;
  }
  const d = outOff - inOff;
  switch (op) {
    case "Sum":
    case "Mean":
    case "LogSum":
      for (let i = inOff; i < end; i++) acc[i + d] += x[i]!;
      break;
    case "L1":
      for (let i = inOff; i < end; i++) acc[i + d] += Math.abs(x[i]!);
      break;
    case "L2":
    case "SumSquare":
      for (let i = inOff; i < end; i++) {
        const v = x[i]!;
        acc[i + d] += v * v;
      }
      break;
    case "Prod":
      for (let i = inOff; i < end; i++) acc[i + d] *= x[i]!;
      break;
    case "Max":
      for (let i = inOff; i < end; i++) {
        const v = x[i]!;
        const a = acc[i + d]!;
        if (v > a || v !== v) acc[i + d] = a !== a ? a : v;
      }
      break;
    case "Min":
      for (let i = inOff; i < end; i++) {
        const v = x[i]!;
        const a = acc[i + d]!;
        if (v < a || v !== v) acc[i + d] = a !== a ? a : v;
      }
      break;
    case "LogSumExp":
      for (let i = inOff; i < end; i++) acc[i + d] += Math.exp(x[i]! - shift![i + d]!);
      break;
  }
}

function finishFloat(
  op: ReduceOp,
  acc: Float64Array,
  count: number,
  shift: Float64Array | undefined,
): void {
  const n = acc.length;
  switch (op) {
    case "Mean":
      for (let i = 0; i < n; i++) acc[i] = acc[i]! / count;
      break;
    case "LogSum":
      for (let i = 0; i < n; i++) acc[i] = Math.log(acc[i]!);
      break;
    case "L2":
      for (let i = 0; i < n; i++) acc[i] = Math.sqrt(acc[i]!);
      break;
    case "LogSumExp":
      for (let i = 0; i < n; i++) {
        const m = shift![i]!;
        // An infinite or NaN maximum is the answer (all -inf, some +inf, some NaN).
        acc[i] = Number.isFinite(m) ? m + Math.log(acc[i]!) : m;
      }
      break;
    default:
      break;
  }
}

/** The scalar reference path for float inputs given as float64-convertible values. */
export function reduceFloatScalar(op: ReduceOp, x: Num, plan: Plan): Float64Array {
  const inner = plan.blocks[plan.blocks.length - 1]!;
  let shift: Float64Array | undefined;
  if (op === "LogSumExp") {
    shift = scratch(Float64Array, plan.outCount).fill(-Infinity);
    const s = shift;
    if (x.length > 0)
      forSegments(plan.blocks, (i, o) =>
        foldFloat("Max", x, s, undefined, i, o, inner.n, inner.reduced),
      );
  }
  const acc = scratch(Float64Array, plan.outCount).fill(floatInit(op));
  if (x.length > 0)
    forSegments(plan.blocks, (i, o) => foldFloat(op, x, acc, shift, i, o, inner.n, inner.reduced));
  finishFloat(op, acc, plan.count, shift);
  return acc;
}

const WASM_MODE: Partial<Record<ReduceOp, 0 | 1 | 2>> = {
  Sum: 0,
  Mean: 0,
  LogSum: 0,
  L1: 1,
  L2: 2,
  SumSquare: 2,
};

let threadsEnabled = true;
let threadMin = 1 << 20;
let lastPath: WasmPath | undefined;
/**
 * Configures the helper thread of float32 WebAssembly reductions (wasm/rows.ts): on/off, and the
 * input size from which it is used (tests lower it to exercise the threaded paths on small inputs).
 */
export function setReduceThreads(on: boolean, minElements = 1 << 20): void {
  threadsEnabled = on;
  threadMin = minElements;
}
/**
 * Which way the last float32 WebAssembly reduction ran: "threads" (read in place, two threads),
 * "direct" (in place, one thread), "staged" (a plain input copied through a shared ring while the
 * helper thread reduces; row sums only) or "copy" (copied through the module's own memory, one
 * thread). See wasm/README.md. Tests and benchmarks check it.
 */
export function lastReduceWasmPath(): WasmPath | undefined {
  return lastPath;
}

/**
 * float32 sum-like reductions in WebAssembly SIMD. Handles the block patterns [R], [K, R], [R, K]
 * and [K, R, K]; returns undefined for others. The input is streamed through a cache-sized
 * window of WebAssembly memory.
 */
export function reduceFloat32Wasm(
  op: ReduceOp,
  x: Float32Array,
  plan: Plan,
): Float64Array | undefined {
  const mode = WASM_MODE[op];
  const w = reduceWasm();
  if (mode === undefined || !w) return undefined;
  const b = plan.blocks;
  let outerK = 1;
  let R: number;
  let K: number;
  let prefix: boolean;
  const pat = b.map((v) => (v.reduced ? "R" : "K")).join("");
  if (pat === "R") [R, K, prefix] = [b[0]!.n, 1, false];
  else if (pat === "KR") [K, R, prefix] = [b[0]!.n, b[1]!.n, false];
  else if (pat === "RK") [R, K, prefix] = [b[0]!.n, b[1]!.n, true];
  else if (pat === "KRK") [outerK, R, K, prefix] = [b[0]!.n, b[1]!.n, b[2]!.n, true];
  else return undefined;

  const out = scratch(Float64Array, plan.outCount);
  const owner = prefix ? inPlace(x) : undefined;
  if (!prefix) {
    // K rows of R contiguous values; one float64 sum per row (wasm/rows.ts): read in place when
    // the input has its own WebAssembly memory (large tensors from allocStorage), on two threads
    // when it is large too.
    lastPath = reduceRows(w, mode, x, K, R, out, threadsEnabled && x.length >= threadMin);
  } else if (owner) {
    // Column sums read in place (the input lives in a WebAssembly memory of its own), on two
    // threads when large.
    lastPath = reduceColumnsDirect(
      owner.api,
      owner.memory,
      owner.scratch,
      mode,
      x,
      outerK,
      R,
      K,
      out,
      threadsEnabled && x.length >= threadMin,
    );
  } else {
    lastPath = "copy";
    // outerK blocks, each R rows of K values summed column-wise, one column window at a time.
    // WebAssembly memory: [scratch: CHUNK float32][accumulators: up to CHUNK float64]. Results
    // are moved out per column window, so the module's memory stays at 1.5 MiB whatever the
    // tensor sizes (WebAssembly memory never shrinks).
    const scratch = 0;
    const accBase = ACC_BASE;
    w.reserve(WASM_BYTES);
    const heapF32 = new Float32Array(w.memory.buffer);
    const acc = new Float64Array(w.memory.buffer, accBase, CHUNK);
    const acc1 = w.acc[mode]!;
    const acc4 = w.acc4[mode]!;
    const W = Math.min(K, CHUNK >> 2); // four row pieces of the window fill the scratch
    for (let o = 0; o < outerK; o++) {
      const base = o * R * K;
      for (let c = 0; c < K; c += W) {
        const wn = Math.min(W, K - c);
        acc.fill(0, 0, wn);
        let r = 0;
        for (; r + 4 <= R; r += 4) {
          for (let j = 0; j < 4; j++) {
            const s = base + (r + j) * K + c;
            heapF32.set(x.subarray(s, s + wn), j * wn);
          }
          acc4(scratch, wn * 4, wn, accBase);
        }
        for (; r < R; r++) {
          const s = base + r * K + c;
          heapF32.set(x.subarray(s, s + wn), 0);
          acc1(scratch, wn, accBase);
        }
        out.set(acc.subarray(0, wn), o * K + c);
      }
    }
  }
  finishFloat(op, out, plan.count, undefined);
  return out;
}

function floatValues(t: RTensor): Num {
  if (t.dtype === DataType.FLOAT16) {
    const table = float16Table();
    const src = t.data as Uint16Array;
    const out = scratch(Float32Array, src.length);
    for (let i = 0; i < src.length; i++) out[i] = table[src[i]!]!;
    return out;
  }
  if (t.dtype === DataType.BFLOAT16) {
    const src = t.data as Uint16Array;
    const out = scratch(Uint32Array, src.length);
    for (let i = 0; i < src.length; i++) out[i] = src[i]! << 16;
    return new Float32Array(out.buffer);
  }
  return t.data as Float32Array | Float64Array;
}

function storeFloat(dtype: number, acc: Float64Array): RTensor["data"] {
  const n = acc.length;
  switch (dtype) {
    case DataType.FLOAT:
      return new Float32Array(acc);
    case DataType.DOUBLE:
      return acc;
    case DataType.FLOAT16: {
      const out = scratch(Uint16Array, n);
      for (let i = 0; i < n; i++) out[i] = numberToFloat16Bits(acc[i]!);
      return out;
    }
    default: {
      const out = scratch(Uint16Array, n);
      for (let i = 0; i < n; i++) out[i] = numberToBfloat16Bits(acc[i]!);
      return out;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Integers and bool.

const INT_RANGE: Record<number, [number, number]> = {
  [DataType.INT8]: [-128, 127],
  [DataType.UINT8]: [0, 255],
  [DataType.INT16]: [-32768, 32767],
  [DataType.UINT16]: [0, 65535],
  [DataType.INT32]: [-(2 ** 31), 2 ** 31 - 1],
  [DataType.UINT32]: [0, 2 ** 32 - 1],
  [DataType.BOOL]: [0, 1],
};

function noIntegerLog(ctx: KernelContext, sum: number | bigint): never {
  throw new OnnxError(
    "E_RUNTIME",
    `integer sum ${sum} has no logarithm (ReduceLogSum on an integer type needs a positive sum)`,
    ctx.label,
  );
}

/**
 * Folds every input element into its output slot: acc[o] = f(acc[o], x[i]). A reduced innermost
 * block folds a run into one slot (kept in a local while it runs); a kept one maps elementwise.
 */
function foldSegments<T>(
  plan: Plan,
  x: { readonly [i: number]: T; readonly length: number },
  acc: { [i: number]: T },
  f: (a: T, v: T) => T,
): void {
  if (x.length === 0) return;
  const inner = plan.blocks[plan.blocks.length - 1]!;
  forSegments(plan.blocks, (inOff, outOff) => {
    const end = inOff + inner.n;
    if (inner.reduced) {
      let a: T = acc[outOff]!;
      for (let i = inOff; i < end; i++) a = f(a, x[i]!);
      acc[outOff] = a;
    } else {
      for (let i = inOff, o = outOff; i < end; i++, o++) acc[o] = f(acc[o]!, x[i]!);
    }
  });
}

/** Max and Min of integers: each output starts at the type's bound (`lo`, `hi`), then folds. */
function extremum<T extends number | bigint, A extends { fill(v: T): unknown }>(
  op: "Max" | "Min",
  out: A,
  lo: T,
  hi: T,
  fold: (acc: A, f: (a: T, v: T) => T) => void,
): A {
  out.fill(op === "Max" ? lo : hi);
  fold(out, op === "Max" ? (a, v) => (v > a ? v : a) : (a, v) => (v < a ? v : a));
  return out;
}

/** 8/16/32-bit integers and bool: results land in a typed array of the type, which wraps on store. */
function reduceSmallInt(ctx: KernelContext, op: ReduceOp, t: RTensor, plan: Plan): RTensor["data"] {
  const x = t.data as Int32Array;
  const inner = plan.blocks[plan.blocks.length - 1]!;
  const out = allocStorage(t.dtype, plan.outCount) as Int32Array;
  const [lo, hi] = INT_RANGE[t.dtype]!;
  const empty = x.length === 0;
  const fold = (acc: { [i: number]: number }, f: (a: number, v: number) => number) =>
    foldSegments(plan, x, acc, f);
  if (op === "Max" || op === "Min") return extremum(op, out, lo, hi, fold);
  switch (op) {
    // Wrapped to 32 bits at every step (a long reduced run is held in a JS number before it is
    // stored); 2^bits divides 2^32, so the store's own wrap then gives the type's result.
    case "Sum":
      fold(out, (a, v) => (a + v) | 0);
      return out;
    case "L1":
      fold(out, (a, v) => (a + (v < 0 ? -v : v)) | 0);
      return out;
    case "SumSquare":
      fold(out, (a, v) => (a + Math.imul(v, v)) | 0);
      return out;
    case "Prod":
      out.fill(1);
      fold(out, (a, v) => Math.imul(a, v));
      return out;
    default:
      break;
  }
  // Ops computed in float64 from exact integer sums (exact below 2^53).
  const acc = scratch(Float64Array, plan.outCount);
  if (op === "LogSumExp") {
    const m = scratch(Float64Array, plan.outCount).fill(-Infinity);
    fold(m, (a, v) => (v > a ? v : a));
    const s = scratch(Float64Array, plan.outCount);
    if (!empty)
      forSegments(plan.blocks, (inOff, outOff) => {
        const end = inOff + inner.n;
        const step = inner.reduced ? 0 : 1; // a reduced segment folds into one output
        for (let i = inOff, o = outOff; i < end; i++, o += step) s[o] += Math.exp(x[i]! - m[o]!);
      });
    // Integer inputs are finite, so the maximum is -inf only for an empty set: the type's minimum.
    for (let i = 0; i < plan.outCount; i++)
      out[i] = Number.isFinite(m[i]!) ? Math.trunc(m[i]! + Math.log(s[i]!)) : lo;
    return out;
  }
  if (op === "L2") fold(acc, (a, v) => a + v * v);
  else fold(acc, (a, v) => a + v);
  for (let i = 0; i < plan.outCount; i++) {
    const a = acc[i]!;
    let v: number;
    if (op === "LogSum") {
      if (!(a > 0)) noIntegerLog(ctx, a);
      v = Math.log(a);
    } else if (op === "L2") v = Math.sqrt(a);
    else v = a / plan.count; // Mean
    out[i] = Number.isFinite(v) ? Math.trunc(v) : 0;
  }
  return out;
}

/** int64 / uint64: BigInt arithmetic; the output typed array wraps modulo 2^64 on store. */
function reduceBigInt(ctx: KernelContext, op: ReduceOp, t: RTensor, plan: Plan): RTensor["data"] {
  const x = t.data as BigInt64Array;
  const signed = t.dtype === DataType.INT64;
  const inner = plan.blocks[plan.blocks.length - 1]!;
  const out = allocStorage(t.dtype, plan.outCount) as BigInt64Array;
  const empty = x.length === 0;
  const fold = (acc: { [i: number]: bigint }, f: (a: bigint, v: bigint) => bigint) =>
    foldSegments(plan, x, acc, f);
  const lo = signed ? -(1n << 63n) : 0n;
  const hi = signed ? (1n << 63n) - 1n : (1n << 64n) - 1n;
  if (op === "Max" || op === "Min") return extremum(op, out, lo, hi, fold);
  switch (op) {
    case "Sum":
      fold(out, (a, v) => a + v);
      return out;
    case "L1":
      fold(out, (a, v) => a + (v < 0n ? -v : v));
      return out;
    case "SumSquare":
      fold(out, (a, v) => a + v * v);
      return out;
    case "Prod":
      out.fill(1n);
      fold(out, (a, v) => BigInt.asUintN(64, a * v)); // wrap as it goes: products grow fast
      return out;
    default:
      break;
  }
  // Exact (unwrapped) sums in plain BigInts; the float64 step comes last.
  chargeBytes(plan.outCount * 32, true, `${plan.outCount} bigint accumulators`);
  const acc = new Array<bigint>(plan.outCount).fill(0n);
  if (op === "LogSumExp") {
    chargeBytes(plan.outCount * 32, true, `${plan.outCount} bigint accumulators`);
    const m = new Array<bigint>(plan.outCount).fill(lo);
    fold(m, (a, v) => (v > a ? v : a));
    const s = scratch(Float64Array, plan.outCount);
    if (!empty)
      forSegments(plan.blocks, (inOff, outOff) => {
        const end = inOff + inner.n;
        const step = inner.reduced ? 0 : 1;
        for (let i = inOff, o = outOff; i < end; i++, o += step)
          s[o] += Math.exp(Number(x[i]! - m[o]!));
      });
    for (let i = 0; i < plan.outCount; i++)
      out[i] = empty ? lo : m[i]! + BigInt(Math.trunc(Math.log(s[i]!)));
    return out;
  }
  if (op === "L2") fold(acc, (a, v) => a + v * v);
  else fold(acc, (a, v) => a + v);
  for (let i = 0; i < plan.outCount; i++) {
    const a = acc[i]!;
    if (op === "Mean") {
      out[i] = plan.count === 0 ? 0n : a / BigInt(plan.count);
      continue;
    }
    if (op === "LogSum" && a <= 0n) noIntegerLog(ctx, a);
    const v = op === "LogSum" ? Math.log(Number(a)) : Math.sqrt(Number(a));
    out[i] = BigInt(Math.trunc(v));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

/** Computes a reduction; exported for benchmarks and tests that call it without a graph. */
export function runReduce(
  ctx: KernelContext,
  op: ReduceOp,
  x: RTensor,
  axes: RTensor | undefined,
): RTensor {
  const plan = planReduce(ctx, x.shape, axes);
  const dt = x.dtype;
  if (FLOAT_TYPES.has(dt)) {
    let acc: Float64Array | undefined;
    if (wasmEnabled && dt === DataType.FLOAT && x.data.length >= WASM_MIN_ELEMENTS)
      acc = reduceFloat32Wasm(op, x.data as Float32Array, plan);
    acc ??= reduceFloatScalar(op, floatValues(x), plan);
    return { dtype: dt, shape: plan.outShape, data: storeFloat(dt, acc) };
  }
  if (SMALL_INT_TYPES.has(dt) || (dt === DataType.BOOL && (op === "Max" || op === "Min")))
    return { dtype: dt, shape: plan.outShape, data: reduceSmallInt(ctx, op, x, plan) };
  if (dt === DataType.INT64 || dt === DataType.UINT64)
    return { dtype: dt, shape: plan.outShape, data: reduceBigInt(ctx, op, x, plan) };
  throw new OnnxError(
    "E_UNSUPPORTED",
    `Reduce${op} does not accept tensor(${dtypeName(dt)})`,
    ctx.label,
  );
}

function kernel(op: ReduceOp): Kernel {
  return (ctx, inputs) => {
    const x = inputs[0];
    if (!isTensor(x)) throw new OnnxError("E_RUNTIME", "input 'data' must be a tensor", ctx.label);
    const axes = inputs[1];
    if (axes !== undefined && !isTensor(axes))
      throw new OnnxError("E_RUNTIME", "input 'axes' must be a tensor", ctx.label);
    return [runReduce(ctx, op, x, axes)];
  };
}

export const reduceKernels: Record<string, Kernel> = {
  ReduceSum: kernel("Sum"),
  ReduceMean: kernel("Mean"),
  ReduceProd: kernel("Prod"),
  ReduceMax: kernel("Max"),
  ReduceMin: kernel("Min"),
  ReduceL1: kernel("L1"),
  ReduceL2: kernel("L2"),
  ReduceSumSquare: kernel("SumSquare"),
  ReduceLogSum: kernel("LogSum"),
  ReduceLogSumExp: kernel("LogSumExp"),
};

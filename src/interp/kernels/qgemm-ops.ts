// The integer matrix product of the quantized ops on WebAssembly SIMD (wasm/qgemm-template.mjs):
// 8-bit operands (int8 or uint8) minus their zero points (per row of A, per column of B), products
// summed in i32 with wrap-around — the exact sum reduced modulo 2^32, which is what the
// reference kernels (quant.ts: exact sums in float64, stored into an Int32Array) give, so the
// results are identical. Each output's sum is computed by one thread, in any order (integer
// addition is associative). ConvInteger, MatMulInteger, QLinearConv and QLinearMatMul use it;
// it is the core for onnxruntime's QGemm-like ops too: `qproduct` takes any strides, per-row
// and per-column zero points and an int32 bias per row.

import { DataType } from "../../ir/types.js";
import { allocStorage } from "../tensor.js";
import type { ConvPlan } from "./conv-pool.js";
import {
  QMR,
  QNR,
  gemmArena,
  gemmEnabled,
  isConstant,
  packedOperand,
  scratchAlloc,
  scratchRelease,
  stridedSpan,
  type Arena,
  type Strided,
} from "./wasm/gemm.js";
import { JOB, runPanels } from "./wasm/gemm-threads.js";
import { POSITIONS_BYTES, chunkColumns, paddedPlanes } from "./gemm-ops.js";

/** 8-bit integer values (int8 or uint8 storage). */
export type Int8Data = Int8Array | Uint8Array;

/**
 * Zero points: one for all (a number), or one per row of A / column of B. Any integer array
 * (int8, uint8, int32, ...) of values in [-255, 255].
 */
export type ZeroPoints = number | ArrayLike<number>;

/** Whether the integer product can take operands of these types (int8 / uint8) here. */
export function qgemmFor(...dtypes: number[]): Arena | undefined {
  if (!gemmEnabled()) return undefined;
  for (const d of dtypes) if (d !== DataType.INT8 && d !== DataType.UINT8) return undefined;
  return gemmArena();
}

const align8 = (n: number) => (n + 7) & ~7;
const pairs = (K: number) => (K + 1) >> 1;
/** Bytes of A packed in row blocks (M rounded up to QMR) and of B in panels (N to QNR). */
const packedQABytes = (M: number, K: number) => Math.ceil(M / QMR) * QMR * pairs(K) * 4;
const packedQBBytes = (K: number, N: number) => Math.ceil(N / QNR) * QNR * pairs(K) * 4;

/** Zero points in the arena as i32: the address and the step (0: one for all). */
function zeroPoints(ar: Arena, z: ZeroPoints, n: number): [number, number] {
  const one = typeof z === "number" || z.length === 1;
  const at = scratchAlloc(ar, one ? 4 : n * 4, "zero points");
  const v = new Int32Array(ar.memory.buffer, at, one ? 1 : n);
  if (typeof z === "number") v[0] = z;
  else for (let i = 0; i < v.length; i++) v[i] = z[i]!;
  return [at, one ? 0 : 4];
}

/** Copies 8-bit values src[off, off + n) into scratch (8 readable bytes past them). */
function stage8(ar: Arena, src: Int8Data, off: number, n: number): number {
  const at = scratchAlloc(ar, align8(n) + 8, "a copy of an operand");
  new Uint8Array(ar.memory.buffer, at, n).set(new Uint8Array(src.buffer, src.byteOffset + off, n));
  return at;
}

/**
 * An operand packed (qgemm.wat's ipack) for the run (a constant, with constant zero points) or in
 * this call's scratch: "a", A (M × K, element (i, t) at src[off + i*rs + t*cs]) in row blocks of
 * QMR; "b", B (K × N, element (t, j) at src[off + t*rs + j*cs]) in panels of QNR columns; each
 * minus its zero point (per row of A, per column of B).
 */
function qpacked(
  ar: Arena,
  which: "a" | "b",
  src: Int8Data,
  v: Strided,
  z: ZeroPoints,
  zConstant: boolean,
): number {
  const { off, rs, cs, rows, cols } = v;
  const bytes = which === "a" ? packedQABytes(rows, cols) : packedQBBytes(rows, cols);
  // From the operand staged in the arena.
  const fill = (at: number) => {
    const top = ar.top;
    const tmp = stage8(ar, src, off, stridedSpan(v));
    const signed = src instanceof Int8Array ? 1 : 0;
    if (which === "a") {
      const [zp, zs] = zeroPoints(ar, z, rows);
      ar.ex.ipack!(tmp, rs, cs, rows, cols, zp, zs, signed, at, QMR);
    } else {
      const [zp, zs] = zeroPoints(ar, z, cols);
      ar.ex.ipack!(tmp, cs, rs, cols, rows, zp, zs, signed, at, QNR);
    }
    ar.top = top;
  };
  const zt = typeof z === "number" ? String(z) : Array.from(z).join(",");
  const tag = `q${which}:${off}:${rs}:${cs}:${rows}:${cols}:${zt}`;
  return packedOperand(ar, src, isConstant(src) && zConstant, tag, bytes, fill);
}

/** M (rounded up to QMR) i32 starting values: the bias, or 0. */
function biasRows(ar: Arena, M: number, bias?: ArrayLike<number>, off = 0): number {
  const n = Math.ceil(M / QMR) * QMR;
  const at = scratchAlloc(ar, n * 4, "bias");
  const v = new Int32Array(ar.memory.buffer, at, n).fill(0);
  if (bias) for (let i = 0; i < M; i++) v[i] = bias[off + i]!;
  return at;
}

/** The integer product's job over packed A and B: C (M × N i32, row-major) at c. */
function igemm(
  ar: Arena,
  a: number,
  b: number,
  c: number,
  bias: number,
  M: number,
  N: number,
  K: number,
) {
  const KP = pairs(K);
  const args = [JOB.int, a, b, c, bias, M, N, KP, 0, QNR * 4, QNR * 4 * KP];
  runPanels(ar, args, Math.ceil(N / QNR), M * K * QNR);
}

/** An 8-bit operand of a product: its values, where (i, t) is, and its zero points. */
export interface QOperand {
  data: Int8Data;
  off: number;
  /** Strides of its rows and columns (A: i and t; B: t and j). */
  rs: number;
  cs: number;
  zero: ZeroPoints;
  /** Whether the zero points are the same for every run (an initializer's): packed once. */
  zeroConstant?: boolean;
}

/**
 * C (M × N, int32, row-major at out[at...]) = bias[i] (or 0) + Σ_t (A[i, t] − za[i]) ·
 * (B[t, j] − zb[j]), wrapping modulo 2^32.
 */
export function qproduct(
  ar: Arena,
  A: QOperand,
  B: QOperand,
  M: number,
  N: number,
  K: number,
  out: Int32Array,
  at: number,
  bias?: ArrayLike<number>,
): void {
  try {
    // Constants first: their packed forms go below the scratch.
    const pb0 = isConstant(B.data) && B.zeroConstant ? packB(ar, B, K, N) : -1;
    const pa = qpacked(
      ar,
      "a",
      A.data,
      { off: A.off, rs: A.rs, cs: A.cs, rows: M, cols: K },
      A.zero,
      !!A.zeroConstant,
    );
    const pb = pb0 >= 0 ? pb0 : packB(ar, B, K, N);
    const bi = biasRows(ar, M, bias);
    const res = scratchAlloc(ar, M * N * 4, "product result");
    igemm(ar, pa, pb, res, bi, M, N, K);
    out.set(new Int32Array(ar.memory.buffer, res, M * N), at);
  } finally {
    scratchRelease(ar);
  }
}

const packB = (ar: Arena, B: QOperand, K: number, N: number) =>
  qpacked(
    ar,
    "b",
    B.data,
    { off: B.off, rs: B.rs, cs: B.cs, rows: K, cols: N },
    B.zero,
    !!B.zeroConstant,
  );

/**
 * ConvInteger's sums (and QLinearConv's before requantization) on the integer product: per
 * (image, group), the packed weights (mg × cg·nK, minus their zero points per output channel)
 * times the columns of the input minus its zero point (padding reads the zero point, so 0), in
 * chunks of output positions whose columns the threads make. 2-D windows only (`p.win2d`).
 */
export function qconv(
  ar: Arena,
  x: Int8Data,
  xZero: number,
  w: Int8Data,
  wZero: ZeroPoints,
  wZeroConstant: boolean,
  p: ConvPlan,
  bias?: ArrayLike<number>,
): Int32Array {
  const { n, c, m, cg, group, mg, inSize, nOut, nK } = p;
  const [H, W, , , sh, sw, , , ph, pw, OW] = p.win2d!;
  const OH = p.OH!;
  const K = cg * nK;
  const KP = pairs(K);
  const out = allocStorage(DataType.INT32, n * m * nOut) as Int32Array;
  const cols = chunkColumns(nOut, KP * 4, mg, 4, QNR);
  const signed = x instanceof Int8Array ? 1 : 0;
  try {
    for (let gi = 0; gi < group; gi++) {
      const wz =
        typeof wZero === "number" || wZero.length === 1
          ? wZero
          : Array.from({ length: mg }, (_, i) => (wZero as ArrayLike<number>)[gi * mg + i]!);
      // The weights first (a constant's packed form goes below the scratch).
      scratchRelease(ar);
      const a = qpacked(
        ar,
        "a",
        w,
        { off: gi * mg * K, rs: K, cs: 1, rows: mg, cols: K },
        wz,
        wZeroConstant,
      );
      const bi = biasRows(ar, mg, bias, gi * mg);
      // The input's planes centred and padded with zeros (the zero point, centred), and a plane
      // of zeros after them for the missing tap of an odd K.
      const pp = paddedPlanes(ar, p.win2d!, OH, cg, nK, 2, 2 * KP);
      const { Hp, Wp, plane } = pp;
      const rq = scratchAlloc(ar, POSITIONS_BYTES, "positions");
      const colsAt = scratchAlloc(ar, packedQBBytes(K, cols), "convolution columns");
      const res = scratchAlloc(ar, mg * cols * 4, "convolution result");
      for (let b = 0; b < n; b++) {
        const x0 = (b * c + gi * cg) * inSize;
        const top = ar.top;
        const raw = stage8(ar, x, x0, cg * inSize);
        const xAt = scratchAlloc(ar, ((cg + 1) * plane + 8) * 2, "a centred input");
        ar.ex.centre!(raw, cg, H!, W!, xZero, signed, xAt, Hp, Wp, ph!, pw!);
        new Int16Array(ar.memory.buffer, xAt + 2 * cg * plane, plane + 8).fill(0);
        for (let j0 = 0; j0 < nOut; j0 += cols) {
          const nc = Math.min(cols, nOut - j0);
          const panels = Math.ceil(nc / QNR);
          const pstride = QNR * 4 * KP;
          runPanels(
            ar,
            [JOB.colsInt, xAt, colsAt, nc, pstride, j0, pp.taps, 2 * KP, Wp, sh!, sw!, OW!, rq],
            panels,
            K * QNR,
          );
          igemm(ar, a, colsAt, res, bi, mg, nc, K);
          const rv = new Int32Array(ar.memory.buffer, res, mg * nc);
          for (let r = 0; r < mg; r++)
            out.set(rv.subarray(r * nc, (r + 1) * nc), (b * m + gi * mg + r) * nOut + j0);
        }
        ar.top = top;
      }
    }
  } finally {
    scratchRelease(ar);
  }
  return out;
}

/** float32 values per window of DynamicQuantizeLinear's passes. */
const WINDOW = 1 << 14;

/**
 * DynamicQuantizeLinear of float32 values on WebAssembly SIMD (qgemm.wat's minmax and dql): the
 * least and greatest of 0 and the values (NaN ignored), then `quantize(min, max)`'s scale and
 * zero point (the reference's, computed in quant.ts), then each value as the reference
 * quantizes it (float32 quotient, rounded half to even, plus the zero point, clamped to [0, 255],
 * NaN to 0). Undefined (nothing done) where the platform does not allow it.
 */
export function dynamicQuantizeWasm(
  x: Float32Array,
  params: (min: number, max: number) => { scale: number; zero: number },
): { y: Uint8Array; scale: number; zero: number } | undefined {
  if (!gemmEnabled()) return undefined;
  const ar = gemmArena()!;
  const n = x.length;
  try {
    const xAt = scratchAlloc(ar, WINDOW * 4, "an operand window");
    const yAt = scratchAlloc(ar, WINDOW, "a result window");
    const mm = scratchAlloc(ar, 32, "least and greatest");
    const xv = new Float32Array(ar.memory.buffer, xAt, WINDOW);
    const lanes = new Float32Array(ar.memory.buffer, mm, 8).fill(0);
    for (let s = 0; s < n; s += WINDOW) {
      const len = Math.min(WINDOW, n - s);
      xv.set(x.subarray(s, s + len));
      xv.fill(0, len, (len + 3) & ~3); // 0 is among the values anyway
      ar.ex.minmax!(xAt, (len + 3) & ~3, mm);
    }
    let min = 0;
    let max = 0;
    for (let l = 0; l < 4; l++) {
      if (lanes[l]! < min) min = lanes[l]!;
      if (lanes[4 + l]! > max) max = lanes[4 + l]!;
    }
    const { scale, zero } = params(min, max);
    const y = allocStorage(DataType.UINT8, n) as Uint8Array;
    const yv = new Uint8Array(ar.memory.buffer, yAt, WINDOW);
    const div = Math.fround(scale === 0 ? 1 : scale);
    for (let s = 0; s < n; s += WINDOW) {
      const len = Math.min(WINDOW, n - s);
      xv.set(x.subarray(s, s + len));
      ar.ex.dql!(xAt, (len + 3) & ~3, yAt, div, zero);
      y.set(len === WINDOW ? yv : yv.subarray(0, len), s);
    }
    return { y, scale, zero };
  } finally {
    scratchRelease(ar);
  }
}

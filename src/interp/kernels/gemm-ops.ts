// float32 Conv, MatMul and Gemm on the WebAssembly matrix product (wasm/gemm.ts): the same sums
// as the TypeScript loops of conv-pool.ts and nn.ts — every product in float64, added in order of
// the summed index from the same start (the bias, or 0) — so the results are identical; only the
// order of the outputs computed differs. Constant weights are packed once per run.

import { DataType } from "../../ir/types.js";
import { allocStorage } from "../tensor.js";
import { flat2d, type Window2d } from "./pool2d.js";
import type { RTensor } from "../types.js";
import {
  MR,
  f32At,
  f64At,
  gemm,
  gemmArena,
  gemmEnabled,
  isConstant,
  pack,
  packedABytes,
  packedBBytes,
  packedConstant,
  panelsAt,
  scratchAlloc,
  scratchRelease,
  stage,
  type Arena,
} from "./wasm/gemm.js";
import { NR } from "./wasm/gemm.js";

/** Whether the WebAssembly product can take these float32 operands. */
export function gemmFor(...ts: (RTensor | undefined)[]): Arena | undefined {
  if (!gemmEnabled()) return undefined;
  for (const t of ts) if (t && t.dtype !== DataType.FLOAT) return undefined;
  return gemmArena();
}

/**
 * An operand's packed address (pack in wasm/gemm.ts): kept for the run when `data` is a
 * constant, else in this call's scratch.
 */
function packed(
  ar: Arena,
  which: "a" | "b",
  data: Float32Array,
  off: number,
  rs: number,
  cs: number,
  rows: number,
  cols: number,
): number {
  const bytes = which === "a" ? packedABytes(rows, cols) : packedBBytes(rows, cols);
  const fill = (at: number) => pack(ar, which, at, data, off, rs, cs, rows, cols);
  if (isConstant(data))
    return packedConstant(ar, data, `${which}:${off}:${rs}:${cs}:${rows}:${cols}`, bytes, fill);
  const at = scratchAlloc(ar, bytes, "packed operand");
  fill(at);
  return at;
}

function zeroBias(ar: Arena, M: number): number {
  const n = Math.ceil(M / MR) * MR;
  const at = scratchAlloc(ar, n * 8, "bias");
  f64At(ar, at, n).fill(0);
  return at;
}

export interface ConvGeometry {
  n: number;
  c: number;
  m: number;
  group: number;
  /** Input spatial size (product), output positions, kernel positions. */
  inSize: number;
  nOut: number;
  nK: number;
  /** For each (output position, kernel position): the input offset read, -1 in padding. */
  table: () => Int32Array;
  /** 2-D windows: [H, W, KH, KW, sh, sw, dh, dw, ph, pw, OW] (im2col in WebAssembly). */
  win2d?: number[];
}

/**
 * Conv as one product per (image, group): packed weights (mg × cg·nK) times the packed columns
 * (cg·nK × output positions), from the bias (or 0).
 */
export function convGemm(
  ar: Arena,
  x: RTensor,
  w: RTensor,
  b: RTensor | undefined,
  g: ConvGeometry,
  outShape: number[],
): RTensor {
  const { n, c, m, group, inSize, nOut, nK, table } = g;
  const xv = x.data as Float32Array;
  const wv = w.data as Float32Array;
  const cg = c / group;
  const mg = m / group;
  const K = cg * nK;
  const out = allocStorage(DataType.FLOAT, n * m * nOut) as Float32Array;
  try {
    for (let gi = 0; gi < group; gi++) {
      const a = packed(ar, "a", wv, gi * mg * K, K, 1, mg, K);
      const bias = zeroBias(ar, mg);
      if (b) f64At(ar, bias, mg).set((b.data as Float32Array).subarray(gi * mg, (gi + 1) * mg));
      const cols = scratchAlloc(ar, packedBBytes(K, nOut), "convolution columns");
      const res = scratchAlloc(ar, mg * nOut * 4, "convolution result");
      for (let bi = 0; bi < n; bi++) {
        const x0 = (bi * c + gi * cg) * inSize;
        if (g.win2d) {
          const tmp = stage(ar, xv, x0, cg * inSize);
          ar.ex.im2col!(tmp, cg, ...g.win2d, nOut, cols);
          ar.top = tmp;
        } else
          im2col(f32At(ar, cols, packedBBytes(K, nOut) / 4), xv, x0, inSize, cg, nK, nOut, table());
        gemm(ar, a, panelsAt(cols, K), res, bias, mg, nOut, K);
        out.set(f32At(ar, res, mg * nOut), (bi * m + gi * mg) * nOut);
      }
      scratchRelease(ar);
    }
  } finally {
    scratchRelease(ar);
  }
  return { dtype: DataType.FLOAT, shape: outShape, data: out };
}

/** The columns of a convolution in panels of NR output positions: row t = ic·nK + q. */
function im2col(
  dst: Float32Array,
  xv: Float32Array,
  x0: number,
  inSize: number,
  cg: number,
  nK: number,
  nOut: number,
  table: Int32Array,
): void {
  let d = 0;
  for (let j0 = 0; j0 < nOut; j0 += NR) {
    const cols = Math.min(NR, nOut - j0);
    for (let ic = 0; ic < cg; ic++) {
      const xb = x0 + ic * inSize;
      for (let q = 0; q < nK; q++) {
        for (let cc = 0; cc < cols; cc++) {
          const off = table[(j0 + cc) * nK + q]!;
          dst[d + cc] = off >= 0 ? xv[xb + off]! : 0;
        }
        for (let cc = cols; cc < NR; cc++) dst[d + cc] = 0;
        d += NR;
      }
    }
  }
}

/**
 * One matrix product of a batched MatMul or a Gemm: C (M × N) = A · B from 0, A's element (i, t)
 * at a[aOff + i*ars + t*acs], B's (t, j) at b[bOff + t*brs + j*bcs]. float32 results go to
 * `out32` at `at` (rounded once); float64 results (unrounded) are returned, or, with `out32` a
 * function, handed to it in place (the view is valid only during the call).
 */
export function product(
  ar: Arena,
  a: Float32Array,
  aOff: number,
  ars: number,
  acs: number,
  b: Float32Array,
  bOff: number,
  brs: number,
  bcs: number,
  M: number,
  N: number,
  K: number,
  out32?: { data: Float32Array; at: number } | ((res: Float64Array) => void),
): Float64Array | undefined {
  try {
    // Constants first: their packed forms go below the scratch.
    const pb0 = isConstant(b) ? packed(ar, "b", b, bOff, brs, bcs, K, N) : -1;
    const pa = packed(ar, "a", a, aOff, ars, acs, M, K);
    const pb = panelsAt(pb0 >= 0 ? pb0 : packed(ar, "b", b, bOff, brs, bcs, K, N), K);
    const bias = zeroBias(ar, M);
    const wide = !out32 || typeof out32 === "function";
    const res = scratchAlloc(ar, M * N * (wide ? 8 : 4), "product result");
    gemm(ar, pa, pb, res, bias, M, N, K, wide);
    if (typeof out32 === "function") {
      out32(f64At(ar, res, M * N));
      return undefined;
    }
    if (out32) {
      out32.data.set(f32At(ar, res, M * N), out32.at);
      return undefined;
    }
    return f64At(ar, res, M * N).slice();
  } finally {
    scratchRelease(ar);
  }
}

export interface DepthwiseGeometry extends Window2d {
  n: number;
  c: number;
  m: number;
}

/**
 * A 2-D convolution with one input channel per group (depthwise): each output is the bias (or 0)
 * plus its window's products in kernel order, as in the general loop, over a zero-padded float64
 * copy of the input plane (a padded tap adds 0 × w, as there); gemm.wat's dw2d computes two
 * outputs at a time.
 */
export function convDepthwise(
  x: RTensor,
  w: RTensor,
  b: RTensor | undefined,
  g: DepthwiseGeometry,
  outShape: number[],
): RTensor {
  const { n, c, m } = g;
  const [H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw] = flat2d(g);
  const PH = Math.max(H + ph, (OH - 1) * sh + (KH - 1) * dh + 1);
  const PW = Math.max(W + pw, (OW - 1) * sw + (KW - 1) * dw + 1);
  const xv = x.data as Float32Array;
  const wv = w.data as Float32Array;
  const bv = b?.data as Float32Array | undefined;
  const mg = m / c;
  const nK = KH * KW;
  const out = allocStorage(DataType.FLOAT, n * m * OH * OW) as Float32Array;
  const ar = gemmArena()!;
  try {
    const planeAt = scratchAlloc(ar, PH * PW * 8, "a padded plane");
    const wAt = scratchAlloc(ar, nK * 8, "weights");
    const offAt = scratchAlloc(ar, nK * 4, "offsets");
    const outAt = scratchAlloc(ar, OH * OW * 4, "a result plane");
    const offs = new Int32Array(ar.memory.buffer, offAt, nK);
    for (let i = 0; i < KH; i++)
      for (let j = 0; j < KW; j++) offs[i * KW + j] = i * dh * PW + j * dw;
    const plane = f64At(ar, planeAt, PH * PW);
    const wk = f64At(ar, wAt, nK);
    const res = f32At(ar, outAt, OH * OW);
    for (let bi = 0; bi < n; bi++)
      for (let ch = 0; ch < c; ch++) {
        plane.fill(0);
        const x0 = (bi * c + ch) * H * W;
        for (let r = 0; r < H; r++) {
          const d = (r + ph) * PW + pw;
          for (let q = 0; q < W; q++) plane[d + q] = xv[x0 + r * W + q]!;
        }
        for (let k = 0; k < mg; k++) {
          const oc = ch * mg + k;
          for (let q = 0; q < nK; q++) wk[q] = wv[oc * nK + q]!;
          ar.ex.dw2d!(planeAt, PW, wAt, offAt, nK, OH, OW, sh, sw, bv ? bv[oc]! : 0, outAt);
          out.set(res, (bi * m + oc) * OH * OW);
        }
      }
  } finally {
    scratchRelease(ar);
  }
  return { dtype: DataType.FLOAT, shape: outShape, data: out };
}

// float32, float16 and bfloat16 Conv, MatMul and Gemm on the WebAssembly matrix product
// (wasm/gemm.ts): the same sums as the TypeScript loops of conv-pool.ts and nn.ts, added in order
// of the summed index from the same start (the bias, or 0) and rounded once to the result's type,
// so the results are identical; only the order of the outputs computed differs. float32 (and
// Gemm's and ConvTranspose's half types) sum in float64, every product exact; float16 and bfloat16
// Conv and MatMul sum in float32 (wasm/gemm.ts's gemm32), each product and partial sum rounded to
// float32, as the loops do with Math.fround. float16 and bfloat16 operands are widened to float32
// (exact) as they are staged. Constant weights are packed once per run.

import { DataType } from "../../ir/types.js";
import { allocStorage, isHalfType, toFloat32, toFloat64 } from "../tensor.js";
import { flat2d, type Window2d } from "./pool2d.js";
import type { RTensor } from "../types.js";
import {
  MR,
  NR,
  f32At,
  f64At,
  gemm,
  gemm32,
  gemmArena,
  gemmEnabled,
  isConstant,
  packedA32Bytes,
  packedABytes,
  packedBBytes,
  packedOperand,
  panelsAt,
  scratchAlloc,
  scratchRelease,
  stage,
  stridedSpan,
  type Arena,
  type Src,
  type Strided,
} from "./wasm/gemm.js";
import { JOB, JOB_THREADS, runPanels } from "./wasm/gemm-threads.js";

/**
 * Whether the WebAssembly product can take these operands: float32, float16 or bfloat16, all of
 * one type (float16 and bfloat16 are widened to float32 exactly, and their sums rounded to
 * their type once, as the TypeScript loops round them).
 */
export function gemmFor(...ts: (RTensor | undefined)[]): Arena | undefined {
  if (!gemmEnabled()) return undefined;
  const dtype = ts[0]!.dtype;
  if (dtype !== DataType.FLOAT && !isHalfType(dtype)) return undefined;
  for (const t of ts) if (t && t.dtype !== dtype) return undefined;
  return gemmArena();
}

/** A tensor's values as the product reads them (float32, or float16 / bfloat16 bits). */
export function srcOf(t: RTensor): Src {
  const half = t.dtype === DataType.FLOAT16 ? 1 : t.dtype === DataType.BFLOAT16 ? 2 : 0;
  return { data: t.data as Float32Array | Uint16Array, half };
}

/**
 * An operand packed (wasm/gemm.ts's pack_a / pack_b): kept for the run when its storage is a
 * constant, else in this call's scratch.
 */
function packed(ar: Arena, which: "a" | "a32" | "b", src: Src, v: Strided): number {
  const { off, rs, cs, rows, cols } = v;
  const bytes =
    which === "a"
      ? packedABytes(rows, cols)
      : which === "a32"
        ? packedA32Bytes(rows, cols)
        : packedBBytes(rows, cols);
  // A in float64 row blocks of MR (rows past M are 0; a32: float32, for gemm32), B in float32
  // column panels of NR, from the operand staged in the arena.
  const fill = (at: number) => {
    const tmp = stage(ar, src, off, stridedSpan(v));
    if (which === "b") ar.ex.pack_b!(tmp, cs, rs, cols, rows, at);
    else ar.ex[which === "a" ? "pack_a" : "pack_a32"]!(tmp, rs, cs, rows, cols, at);
    ar.top = tmp;
  };
  const tag = `${which}:${off}:${rs}:${cs}:${rows}:${cols}`;
  return packedOperand(ar, src.data, isConstant(src.data), tag, bytes, fill);
}

/** A bias of M rows (rounded up to MR) of zeros: float64, or float32 (`f32`, for gemm32). */
function zeroBias(ar: Arena, M: number, f32 = false): number {
  const n = Math.ceil(M / MR) * MR;
  const at = scratchAlloc(ar, n * (f32 ? 4 : 8), "bias");
  (f32 ? f32At(ar, at, n) : f64At(ar, at, n)).fill(0);
  return at;
}

/** Where a product's rounded results go: float32, or float16 / bfloat16 bits (`half` 1 / 2). */
export interface Dest {
  data: Float32Array | Uint16Array;
  at: number;
  half: 0 | 1 | 2;
}

/** Copies n results at `res` (float32, or half-type bits the product rounded) to dst.data[at...]. */
function store(ar: Arena, res: number, n: number, dst: Dest, at: number): void {
  if (dst.half) (dst.data as Uint16Array).set(new Uint16Array(ar.memory.buffer, res, n), at);
  else (dst.data as Float32Array).set(f32At(ar, res, n), at);
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
  /** 2-D windows: the output rows. */
  OH?: number;
}

/** Bytes of a convolution's columns (B) made at a time: a chunk of output positions. */
const COLS_BYTES = 1 << 22;
/** Bytes of results of a chunk of output positions (copied out, or rounded to half, per chunk). */
const RES_BYTES = 1 << 23;

/**
 * Output positions per chunk of a convolution's product: B (`bpc` bytes a position) within
 * COLS_BYTES and the m results a position (`esz` bytes each) within RES_BYTES, a multiple of the
 * panel width `nr` (at least one panel).
 */
export function chunkColumns(nOut: number, bpc: number, m: number, esz: number, nr: number) {
  const cols = Math.min(COLS_BYTES / bpc, RES_BYTES / (m * esz));
  return Math.min(nOut, Math.max(nr, Math.floor(cols / nr) * nr));
}

/** A 2-D convolution's input planes padded with zeros to its windows' reach, and its taps. */
export interface PaddedPlanes {
  Hp: number;
  Wp: number;
  /** Values a plane. */
  plane: number;
  /** Per tap t = (ic·KH + kh)·KW + kw, its value's byte offset from a window's origin. */
  taps: number;
}

/**
 * The padded planes' geometry for 2-D windows (`win2d`, OH output rows) of `cg` input planes and
 * `nK` kernel positions, and the taps' offsets (elements of `esz` bytes) in scratch: `count` of
 * them, those past cg·nK reading the plane after the input's (the caller keeps it zero).
 */
export function paddedPlanes(
  ar: Arena,
  win2d: number[],
  OH: number,
  cg: number,
  nK: number,
  esz: number,
  count: number,
): PaddedPlanes {
  const [H, W, KH, KW, sh, sw, dh, dw, ph, pw, OW] = win2d as [number, ...number[]];
  const Hp = Math.max(H + ph!, (OH - 1) * sh! + (KH! - 1) * dh! + 1);
  const Wp = Math.max(W! + pw!, (OW! - 1) * sw! + (KW! - 1) * dw! + 1);
  const plane = Hp * Wp;
  const taps = scratchAlloc(ar, count * 4, "taps");
  const tv = new Int32Array(ar.memory.buffer, taps, count);
  const K = cg * nK;
  for (let t = 0; t < count; t++) {
    if (t >= K) {
      tv[t] = esz * cg * plane;
      continue;
    }
    const ic = Math.floor(t / nK);
    const q = t - ic * nK;
    const kh = Math.floor(q / KW!);
    tv[t] = esz * (ic * plane + kh * dh! * Wp + (q - kh * KW!) * dw!);
  }
  return { Hp, Wp, plane, taps };
}

/** Bytes of the windows' rows of positions, per thread of a job (im2col16/im2col32's rq). */
export const POSITIONS_BYTES = 64 * JOB_THREADS;

/**
 * Conv as one product per (image, group): packed weights (mg × cg·nK) times the packed columns
 * (cg·nK × output positions), from the bias (or 0), in chunks of output positions whose columns
 * the threads make (2-D windows: im2col in WebAssembly) and then multiply. float16 and bfloat16
 * sum in float32 (gemm32) and round once, as the TypeScript loop does.
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
  const xs = srcOf(x);
  const ws = srcOf(w);
  const bv = b && toFloat64(b);
  const cg = c / group;
  const mg = m / group;
  const K = cg * nK;
  const out = allocStorage(x.dtype, n * m * nOut) as Float32Array | Uint16Array;
  const dst: Dest = { data: out, at: 0, half: xs.half };
  // float16 / bfloat16: float32 sums (gemm32), rounded to the type per chunk.
  const esz = 4;
  const cols = chunkColumns(nOut, K * 4, mg, esz, NR);
  try {
    for (let gi = 0; gi < group; gi++) {
      const wv = { off: gi * mg * K, rs: K, cs: 1, rows: mg, cols: K };
      const a = packed(ar, xs.half ? "a32" : "a", ws, wv);
      const bias = zeroBias(ar, mg, xs.half !== 0);
      if (bv)
        (xs.half ? f32At(ar, bias, mg) : f64At(ar, bias, mg)).set(
          bv.subarray(gi * mg, (gi + 1) * mg),
        );
      const colsAt = scratchAlloc(ar, packedBBytes(K, cols), "convolution columns");
      const res = scratchAlloc(ar, mg * cols * esz, "convolution result");
      const res16 = xs.half ? scratchAlloc(ar, mg * cols * 2, "convolution result") : 0;
      const pp = g.win2d && paddedPlanes(ar, g.win2d, g.OH!, cg, nK, 4, K);
      const rq = scratchAlloc(ar, POSITIONS_BYTES, "positions");
      for (let bi = 0; bi < n; bi++) {
        const x0 = (bi * c + gi * cg) * inSize;
        const top = ar.top;
        let xAt = -1;
        if (pp) {
          // The image's planes as float32, padded.
          xAt = scratchAlloc(ar, (pp.plane * cg + 4) * 4, "a padded input");
          const staged = stage(ar, xs, x0, cg * inSize);
          const [H, W, , , , , , , ph, pw] = g.win2d!;
          ar.ex.pad32!(staged, cg, H!, W!, xAt, pp.Hp, pp.Wp, ph!, pw!);
          ar.top = staged;
        }
        const tab = pp ? undefined : table();
        for (let j0 = 0; j0 < nOut; j0 += cols) {
          const nc = Math.min(cols, nOut - j0);
          const panels = Math.ceil(nc / NR);
          if (pp) {
            const [, , , , sh, sw, , , , , OW] = g.win2d!;
            const args = [JOB.colsFloat, xAt, colsAt, nc, NR * 4 * K, j0, pp.taps, K, pp.Wp];
            runPanels(ar, [...args, sh!, sw!, OW!, rq], panels, K * NR);
          } else im2col(f32At(ar, colsAt, panels * NR * K), xs, x0, inSize, cg, nK, j0, nc, tab!);
          const half = xs.half ? { at: res16, half: xs.half } : undefined;
          if (half) gemm32(ar, a, panelsAt(colsAt, K), res, bias, mg, nc, K, half);
          else gemm(ar, a, panelsAt(colsAt, K), res, bias, mg, nc, K);
          const [at, rsz] = half ? [res16, 2] : [res, 4];
          for (let r = 0; r < mg; r++)
            store(ar, at + r * nc * rsz, nc, dst, (bi * m + gi * mg + r) * nOut + j0);
        }
        ar.top = top;
      }
      scratchRelease(ar);
    }
  } finally {
    scratchRelease(ar);
  }
  return { dtype: x.dtype, shape: outShape, data: out };
}

/**
 * The columns of a convolution in panels of NR output positions (j0 ≤ position < j0 + nc):
 * row t = ic·nK + q.
 */
function im2col(
  dst: Float32Array,
  xs: Src,
  x0: number,
  inSize: number,
  cg: number,
  nK: number,
  j0: number,
  nc: number,
  table: Int32Array,
): void {
  const xv = xs.half ? decodedHalf(xs) : (xs.data as Float32Array);
  let d = 0;
  for (let p0 = 0; p0 < nc; p0 += NR) {
    const cols = Math.min(NR, nc - p0);
    for (let ic = 0; ic < cg; ic++) {
      const xb = x0 + ic * inSize;
      for (let q = 0; q < nK; q++) {
        for (let cc = 0; cc < cols; cc++) {
          const off = table[(j0 + p0 + cc) * nK + q]!;
          dst[d + cc] = off >= 0 ? xv[xb + off]! : 0;
        }
        for (let cc = cols; cc < NR; cc++) dst[d + cc] = 0;
        d += NR;
      }
    }
  }
}

const decoded = new WeakMap<object, Float32Array>();
/** float16 / bfloat16 storage as float32 (toFloat32's values), made once per storage. */
function decodedHalf(xs: Src): Float32Array {
  let v = decoded.get(xs.data);
  if (!v) {
    const dtype = xs.half === 1 ? DataType.FLOAT16 : DataType.BFLOAT16;
    v = toFloat32({ dtype, shape: [xs.data.length], data: xs.data }) as Float32Array;
    decoded.set(xs.data, v);
  }
  return v;
}

/**
 * One matrix product of a batched MatMul or a Gemm: C (M × N) = A · B from 0, A's element (i, t)
 * at a[aOff + i*ars + t*acs], B's (t, j) at b[bOff + t*brs + j*bcs]. With `out`, the results
 * rounded once to its type (float32, float16, bfloat16) at out.data[out.at...], or, with `out` a
 * function, the float64 sums handed to it in place (the view is valid only during the call);
 * without, the float64 sums are returned.
 */
export function product(
  ar: Arena,
  a: Src,
  aOff: number,
  ars: number,
  acs: number,
  b: Src,
  bOff: number,
  brs: number,
  bcs: number,
  M: number,
  N: number,
  K: number,
  out?: Dest | ((res: Float64Array) => void),
): Float64Array | undefined {
  try {
    // Constants first: their packed forms go below the scratch.
    // Rounded float16 / bfloat16 results: float32 sums (gemm32); float64 sums otherwise.
    const h = out && typeof out !== "function" && out.half ? out.half : 0;
    const pb0 = isConstant(b.data)
      ? packed(ar, "b", b, { off: bOff, rs: brs, cs: bcs, rows: K, cols: N })
      : -1;
    const pa = packed(ar, h ? "a32" : "a", a, { off: aOff, rs: ars, cs: acs, rows: M, cols: K });
    const pb = panelsAt(
      pb0 >= 0 ? pb0 : packed(ar, "b", b, { off: bOff, rs: brs, cs: bcs, rows: K, cols: N }),
      K,
    );
    const bias = zeroBias(ar, M, h !== 0);
    if (h) {
      const res = scratchAlloc(ar, M * N * 4, "product result");
      const half = { at: scratchAlloc(ar, M * N * 2, "product result"), half: h };
      gemm32(ar, pa, pb, res, bias, M, N, K, half);
      store(ar, half.at, M * N, out as Dest, (out as Dest).at);
      return undefined;
    }
    const wide = !out || typeof out === "function";
    const res = scratchAlloc(ar, M * N * (wide ? 8 : 4), "product result");
    gemm(ar, pa, pb, res, bias, M, N, K, wide);
    if (typeof out === "function") {
      out(f64At(ar, res, M * N));
      return undefined;
    }
    if (out) {
      store(ar, res, M * N, out, out.at);
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

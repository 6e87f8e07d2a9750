// The float64-accumulating matrix product in WebAssembly (gemm.wat), its memory and its
// operands' packing. One memory (an arena) holds, from the bottom: the packed constant weights of
// the run in progress (packed once per run, on first use), then the scratch of the product being
// computed (packed activations, bias, the float32 result), released when it returns. The memory
// is shared where the platform allows, so that helper threads (gemm-threads.ts) compute some of
// the column panels in place.

import { activeBudget, chargeBytes } from "../../budget.js";
import {
  EWMEM_WASM_BASE64,
  GEMMMEM_WASM_BASE64,
  HGEMM_WASM_BASE64,
  QGEMM_WASM_BASE64,
} from "./wasm-bytes.js";
import { decodeBase64, unsharedMemory, type WasmApi } from "./loader.js";
import { JOB, runPanels } from "./gemm-threads.js";

/** Rows of a tile (A's block height) and columns (B's panel width), as in gemm-template.mjs. */
export const MR = 6;
export const NR = 4;
/** The integer product's tile (qgemm-template.mjs): QMR rows × QNR columns. */
export const QMR = 4;
export const QNR = 8;

/** gemm(a, b, c, bias, M, N, K, jb0, jb1, out64, ldb, pstride) of gemm.wat (gemm-template.mjs). */
export type GemmFn = (...args: number[]) => void;

interface Memory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}
interface MemoryCtor {
  Memory: new (d: { initial: number; maximum: number; shared?: boolean }) => Memory;
}

export interface Arena {
  memory: Memory;
  shared: boolean;
  /** The compiled modules (helper threads instantiate them over the same memory). */
  modules: object[];
  gemm: GemmFn;
  /**
   * pack_a / pack_b (src, s1, s2, n1, n2, dst), dw2d of gemm.wat; ew, erf32, hsig, h2f,
   * f2h of ewmem.wat; igemm, ipack, centre, im2col16, dql, minmax of qgemm.wat.
   */
  ex: Record<string, (...args: number[]) => void>;
  /** End of the packed constants; scratch starts here. */
  pinnedTop: number;
  /** End of the scratch in use. */
  top: number;
  /** The run the packed constants belong to. */
  run: object | undefined;
  packed: WeakMap<object, Map<string, number>>;
}

const constants = new WeakSet<object>();
/** Marks a storage as a constant of the run (an initializer): its packed form is kept. */
export function markConstant(data: object): void {
  constants.add(data);
}
export const isConstant = (data: object) => constants.has(data);

const PAGE = 65536;
const MAX_PAGES = 65536;
const BASE = 1024; // nothing at address 0

let arenaState: Arena | null | undefined;

function makeArena(shared: boolean): Arena | undefined {
  const wa = (globalThis as { WebAssembly?: WasmApi & MemoryCtor }).WebAssembly;
  if (!wa) return undefined;
  if (shared && typeof SharedArrayBuffer !== "function") return undefined;
  try {
    const memory = new wa.Memory({ initial: 16, maximum: MAX_PAGES, shared });
    // Both modules are shipped for a shared memory; the plain variants clear the shared bit.
    const load = (b64: string) => {
      const bytes = decodeBase64(b64);
      return new wa.Module(shared ? bytes : unsharedMemory(bytes));
    };
    const modules = [
      GEMMMEM_WASM_BASE64,
      EWMEM_WASM_BASE64,
      HGEMM_WASM_BASE64,
      QGEMM_WASM_BASE64,
    ].map(load);
    const ex = Object.assign(
      {},
      ...modules.map((m) => new wa.Instance(m, { env: { memory } }).exports),
    ) as Record<string, unknown>;
    return {
      memory,
      shared,
      modules,
      gemm: ex.gemm as GemmFn,
      ex: ex as Arena["ex"],
      pinnedTop: BASE,
      top: BASE,
      run: undefined,
      packed: new WeakMap(),
    };
  } catch {
    return undefined; // no SIMD, or no shared memory
  }
}

/** The arena, made on first use; undefined where WebAssembly SIMD is unavailable. */
export function gemmArena(): Arena | undefined {
  if (arenaState === undefined) arenaState = makeArena(true) ?? makeArena(false) ?? null;
  return arenaState ?? undefined;
}

let forceScalar = false;
/** Test hook: kernels use their TypeScript loops instead of gemm.wat. */
export function setGemmDisabled(off: boolean): void {
  forceScalar = off;
}
export function gemmEnabled(): boolean {
  return !forceScalar && gemmArena() !== undefined;
}

function ensure(ar: Arena, end: number): void {
  const have = ar.memory.buffer.byteLength;
  if (end > have) {
    const pages = Math.ceil((end - have) / PAGE);
    if (have / PAGE + pages > MAX_PAGES)
      throw new RangeError("array buffer allocation failed: over 4 GiB of packed operands");
    ar.memory.grow(pages);
  }
}

const align = (n: number) => (n + 15) & ~15;

/** Scratch of `bytes` above the packed constants, counted against the run's memory budget. */
export function scratchAlloc(ar: Arena, bytes: number, what: string): number {
  chargeBytes(bytes, false, what);
  const at = ar.top;
  ensure(ar, at + bytes);
  ar.top = align(at + bytes);
  return at;
}

/** Releases the scratch (after a product). */
export function scratchRelease(ar: Arena): void {
  ar.top = ar.pinnedTop;
}

/**
 * An operand as a rows × cols view of its storage: element (i, t) at off + i*rs + t*cs.
 */
export interface Strided {
  off: number;
  rs: number;
  cs: number;
  rows: number;
  cols: number;
}

/** Elements from a view's first to its last, inclusive. */
export function stridedSpan(v: Strided): number {
  return (v.rows - 1) * v.rs + (v.cols - 1) * v.cs + 1;
}

/**
 * An operand's packed form: kept for the run when `constant` (its storage `key`; `tag` says which
 * packing), else packed into this call's scratch.
 */
export function packedOperand(
  ar: Arena,
  key: object,
  constant: boolean,
  tag: string,
  bytes: number,
  fill: (at: number) => void,
): number {
  if (constant) return packedConstant(ar, key, tag, bytes, fill);
  const at = scratchAlloc(ar, bytes, "packed operand");
  fill(at);
  return at;
}

/**
 * The address of a constant's packed form (`key`: the constant's storage, `tag`: which packing),
 * packing it with `fill` on first use in this run. The bytes are held by the run until it ends.
 */
export function packedConstant(
  ar: Arena,
  key: object,
  tag: string,
  bytes: number,
  fill: (at: number) => void,
): number {
  const run = activeBudget() ?? ar; // outside a run: kept until the next run starts
  if (ar.run !== run) {
    ar.run = run;
    ar.packed = new WeakMap();
    ar.pinnedTop = ar.top = BASE;
  }
  let tags = ar.packed.get(key);
  const have = tags?.get(tag);
  if (have !== undefined) return have;
  if (ar.top !== ar.pinnedTop) throw new Error("a constant packed while scratch is in use");
  activeBudget()?.pin(bytes, "packed weights");
  // Scratch is only in use inside a product, so the pinned region may grow over it here.
  const at = ar.pinnedTop;
  ensure(ar, at + bytes);
  ar.pinnedTop = ar.top = align(at + bytes);
  fill(at);
  if (!tags) ar.packed.set(key, (tags = new Map()));
  tags.set(tag, at);
  return at;
}

export const f64At = (ar: Arena, at: number, n: number) =>
  new Float64Array(ar.memory.buffer, at, n);
export const f32At = (ar: Arena, at: number, n: number) =>
  new Float32Array(ar.memory.buffer, at, n);

/** Bytes of A packed in float64 row blocks (M rounded up to MR) and of B in float32 panels. */
export const packedABytes = (M: number, K: number) => Math.ceil(M / MR) * MR * K * 8;
/** Bytes of A packed in float32 row blocks (pack_a32, for gemm32). */
export const packedA32Bytes = (M: number, K: number) => Math.ceil(M / MR) * MR * K * 4;
export const packedBBytes = (K: number, N: number) => Math.ceil(N / NR) * NR * K * 4;

/**
 * Where gemm reads B (float32): its NR values of step t of panel jb at at + jb·pstride + t·ldb.
 * Packed panels (panelsAt); the kernel also reads a row-major B in place (ldb 4N, pstride 16,
 * 16 readable bytes past the last row), which measured slower for wide B (rows far apart).
 */
export interface BLayout {
  at: number;
  ldb: number;
  pstride: number;
}
export const panelsAt = (at: number, K: number): BLayout => ({
  at,
  ldb: NR * 4,
  pstride: NR * 4 * K,
});

/**
 * An operand's values: float32, or float16 / bfloat16 bits (`half` 1 / 2), which the product
 * widens to float32 (exactly) as it stages them.
 */
export interface Src {
  data: Float32Array | Uint16Array;
  half: 0 | 1 | 2;
}

/**
 * Copies src[off, off + n) into scratch as float32 (float16 and bfloat16 widened by ewmem.wat's
 * h2f); returns its address (release with `ar.top = at`).
 */
export function stage(ar: Arena, src: Src | Float32Array, off: number, n: number): number {
  const s = src instanceof Float32Array ? { data: src, half: 0 } : src;
  const n4 = (n + 3) & ~3;
  const at = scratchAlloc(ar, n4 * 4, "a copy of an operand");
  if (!s.half) {
    f32At(ar, at, n).set((s.data as Float32Array).subarray(off, off + n));
    return at;
  }
  // The bits in the upper half of the float32 window, widened downwards in place: h2f reads 8
  // bytes ahead of the 16 it writes.
  const bits = at + n4 * 2;
  new Uint16Array(ar.memory.buffer, bits, n).set((s.data as Uint16Array).subarray(off, off + n));
  ar.ex.h2f!(bits, at, n4, s.half - 1);
  return at;
}

/**
 * C (M × N at c, row-major: float32 rounded once, or float64 with `out64`) = bias (M float64 at
 * `bias`, M rounded up to MR) + packed A · B, each sum in order of the summed index, on this
 * thread and the helper threads (split by column panels).
 */
export function gemm(
  ar: Arena,
  a: number,
  b: BLayout,
  c: number,
  bias: number,
  M: number,
  N: number,
  K: number,
  out64 = false,
): void {
  const panels = Math.ceil(N / NR);
  const args = [JOB.float, a, b.at, c, bias, M, N, K, out64 ? 1 : 0, b.ldb, b.pstride];
  runPanels(ar, args, panels, M * K * NR);
}

/**
 * The product of float16 or bfloat16 operands (widened to float32 as they are staged): C = bias
 * (M float32 at `bias`, M rounded up to MR) + A (pack_a32) · B, each sum in float32 in order of the
 * summed index (hgemm.wat's gemm32: each product rounded to float32, as float32 multiplication
 * rounds it, then added), and rounded once to float16 / bfloat16 (`half` 1 / 2) into M × N at
 * `half.at`; `c` (M × N float32) holds the float32 sums. Threads as gemm's.
 */
export function gemm32(
  ar: Arena,
  a: number,
  b: BLayout,
  c: number,
  bias: number,
  M: number,
  N: number,
  K: number,
  half: { at: number; half: 1 | 2 },
): void {
  const panels = Math.ceil(N / NR);
  const args = [JOB.float, a, b.at, c, bias, M, N, K, 2, b.ldb, b.pstride, half.at, half.half + 1];
  runPanels(ar, args, panels, M * K * NR);
}

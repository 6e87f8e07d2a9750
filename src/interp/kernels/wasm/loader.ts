// Instantiates the WebAssembly modules (SIMD) once each, on first use. Each getter returns
// undefined where WebAssembly or its SIMD proposal is unavailable; callers then use their scalar
// TypeScript path.

import type { SharedWasmMemory } from "./memory.js";
import { LCSE_WASM_BASE64, REDUCEMEM_WASM_BASE64, REDUCE_WASM_BASE64 } from "./wasm-bytes.js";

// The project's TypeScript lib (ES2022, no DOM) has no WebAssembly declarations: the few used here.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
export interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

type SumFn = (p: number, n: number) => number;
type RowsFn = (p: number, rows: number, n: number, q: number) => void;
type AccFn = (p: number, n: number, q: number) => void;
type Acc4Fn = (p: number, stride: number, n: number, q: number) => void;

interface WithMemory {
  memory: WasmMemory;
  /** Grows the memory to at least `bytes`; views made before must be remade after. */
  reserve(bytes: number): void;
}

export interface ReduceWasm extends WithMemory {
  /** The compiled module (a helper thread instantiates it again, with its own memory). */
  module: object;
  /** Sum of t(x) over n float32 at byte address p, by mode (0: x, 1: |x|, 2: x²), in float64. */
  sum: [SumFn, SumFn, SumFn];
  /** out[r] += row sum, for `rows` rows of n float32 at p, float64 results at q. */
  rows: [RowsFn, RowsFn, RowsFn];
  /** acc[i] += t(x[i]) for n float32 at p into float64 at q. */
  acc: [AccFn, AccFn, AccFn];
  /** acc[i] += Σ_{r<4} t(x[p + r*stride + 4i]) for n columns: four rows into one accumulator row. */
  acc4: [Acc4Fn, Acc4Fn, Acc4Fn];
}

export interface LcseWasm extends WithMemory {
  /**
   * Four LogCumSumExp scans of n steps, one per lane: lane L reads float32 at p[L] + j*stepIn and
   * writes float64 at q[L] + j*stepOut (byte addresses/strides). The running state, 128 bytes at
   * `state` (per pair of lanes: max, scaled sum, NaN mask, +inf mask), is read and written back.
   */
  lcse4: (
    p0: number,
    p1: number,
    p2: number,
    p3: number,
    q0: number,
    q1: number,
    q2: number,
    q3: number,
    n: number,
    stepIn: number,
    stepOut: number,
    state: number,
  ) => void;
}

export function decodeBase64(s: string): Uint8Array {
  const B = (globalThis as { Buffer?: { from(s: string, enc: string): Uint8Array } }).Buffer;
  if (B) return new Uint8Array(B.from(s, "base64"));
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The import of a shared memory: "memory", kind 2 (memory), limits flags 3 (maximum, shared). */
const SHARED_IMPORT = [6, 109, 101, 109, 111, 114, 121, 2, 3];

/**
 * A module importing a shared "memory" made to import a plain one (the limits' shared bit
 * cleared): the other variant need not be shipped. assemble.mjs checks that this gives the bytes
 * the assembler gives for the plain import.
 */
export function unsharedMemory(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  const n = SHARED_IMPORT.length;
  for (let i = 0; i + n <= out.length; i++)
    if (SHARED_IMPORT.every((b, k) => out[i + k] === b)) {
      out[i + n - 1] = 1;
      return out;
    }
  throw new Error("no shared memory import to clear");
}

function instantiate(
  base64: string,
): (Record<string, unknown> & WithMemory & { module: object }) | undefined {
  try {
    const wa = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    if (!wa) return undefined;
    const module = new wa.Module(decodeBase64(base64));
    const ex = new wa.Instance(module, {}).exports;
    const memory = ex.memory as WasmMemory;
    return {
      ...ex,
      module,
      memory,
      reserve(bytes: number) {
        const have = memory.buffer.byteLength;
        if (bytes > have) memory.grow(Math.ceil((bytes - have) / 65536));
      },
    };
  } catch {
    return undefined; // no SIMD support: the module does not validate
  }
}

let reduceCached: ReduceWasm | null | undefined;
export function reduceWasm(): ReduceWasm | undefined {
  if (reduceCached === undefined) {
    const ex = instantiate(REDUCE_WASM_BASE64);
    reduceCached = ex
      ? {
          module: ex.module,
          memory: ex.memory,
          reserve: ex.reserve,
          sum: [ex.sum0 as SumFn, ex.sum1 as SumFn, ex.sum2 as SumFn],
          rows: [ex.rows0 as RowsFn, ex.rows1 as RowsFn, ex.rows2 as RowsFn],
          acc: [ex.acc0 as AccFn, ex.acc1 as AccFn, ex.acc2 as AccFn],
          acc4: [ex.acc4_0 as Acc4Fn, ex.acc4_1 as Acc4Fn, ex.acc4_2 as Acc4Fn],
        }
      : null;
  }
  return reduceCached ?? undefined;
}

/** ReduceWasm's functions over a tensor's own shared memory (byte addresses in that memory). */
export interface ReduceMemWasm {
  sum: [SumFn, SumFn, SumFn];
  rows: [RowsFn, RowsFn, RowsFn];
  acc: [AccFn, AccFn, AccFn];
  acc4: [Acc4Fn, Acc4Fn, Acc4Fn];
}

let memModule: object | null | undefined;
/** The compiled module behind reduceMemWasm (helper threads instantiate it themselves). */
export function reduceMemModule(): object | undefined {
  if (memModule === undefined) {
    try {
      const wa = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
      memModule = wa ? new wa.Module(decodeBase64(REDUCEMEM_WASM_BASE64)) : null;
    } catch {
      memModule = null; // no SIMD or no shared memory support
    }
  }
  return memModule ?? undefined;
}

const memInstances = new WeakMap<SharedWasmMemory, ReduceMemWasm>();
/** An instance of the row-sum module over `memory` (one per memory, made on first use). */
export function reduceMemWasm(memory: SharedWasmMemory): ReduceMemWasm | undefined {
  let api = memInstances.get(memory);
  if (api) return api;
  const module = reduceMemModule();
  const wa = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (!module || !wa) return undefined;
  const ex = new wa.Instance(module, { env: { memory } }).exports;
  api = {
    sum: [ex.sum0 as SumFn, ex.sum1 as SumFn, ex.sum2 as SumFn],
    rows: [ex.rows0 as RowsFn, ex.rows1 as RowsFn, ex.rows2 as RowsFn],
    acc: [ex.acc0 as AccFn, ex.acc1 as AccFn, ex.acc2 as AccFn],
    acc4: [ex.acc4_0 as Acc4Fn, ex.acc4_1 as Acc4Fn, ex.acc4_2 as Acc4Fn],
  };
  memInstances.set(memory, api);
  return api;
}

let lcseCached: LcseWasm | null | undefined;
export function lcseWasm(): LcseWasm | undefined {
  if (lcseCached === undefined) {
    const ex = instantiate(LCSE_WASM_BASE64);
    lcseCached = ex
      ? { memory: ex.memory, reserve: ex.reserve, lcse4: ex.lcse4 as LcseWasm["lcse4"] }
      : null;
  }
  return lcseCached ?? undefined;
}

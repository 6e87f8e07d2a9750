// Instantiates the reduction WebAssembly module (SIMD) once, on first use. Returns undefined where
// WebAssembly or its SIMD proposal is unavailable; callers then use their scalar TypeScript path.

import { REDUCE_WASM_BASE64 } from "./reduce-wasm.js";

// The project's TypeScript lib (ES2022, no DOM) has no WebAssembly declarations: the few used here.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

type SumFn = (p: number, n: number) => number;
type RowsFn = (p: number, rows: number, n: number, q: number) => void;
type AccFn = (p: number, n: number, q: number) => void;
type Acc4Fn = (p: number, stride: number, n: number, q: number) => void;

export interface ReduceWasm {
  memory: WasmMemory;
  /** Sum of t(x) over n float32 at byte address p, by mode (0: x, 1: |x|, 2: x²), in float64. */
  sum: [SumFn, SumFn, SumFn];
  /** out[r] += row sum, for `rows` rows of n float32 at p, float64 results at q. */
  rows: [RowsFn, RowsFn, RowsFn];
  /** acc[i] += t(x[i]) for n float32 at p into float64 at q. */
  acc: [AccFn, AccFn, AccFn];
  /** acc[i] += Σ_{r<4} t(x[p + r*stride + 4i]) for n columns: four rows into one accumulator row. */
  acc4: [Acc4Fn, Acc4Fn, Acc4Fn];
  /** Grows the memory to at least `bytes`; views made before must be remade after. */
  reserve(bytes: number): void;
}

let cached: ReduceWasm | null | undefined;

function decodeBase64(s: string): Uint8Array {
  const B = (globalThis as { Buffer?: { from(s: string, enc: string): Uint8Array } }).Buffer;
  if (B) return new Uint8Array(B.from(s, "base64"));
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function reduceWasm(): ReduceWasm | undefined {
  if (cached !== undefined) return cached ?? undefined;
  try {
    const wa = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    if (!wa) throw new Error("no WebAssembly");
    const mod = new wa.Module(decodeBase64(REDUCE_WASM_BASE64));
    const ex = new wa.Instance(mod, {}).exports;
    const memory = ex.memory as WasmMemory;
    const f = <T>(name: string) => ex[name] as T;
    cached = {
      memory,
      sum: [f<SumFn>("sum0"), f<SumFn>("sum1"), f<SumFn>("sum2")],
      rows: [f<RowsFn>("rows0"), f<RowsFn>("rows1"), f<RowsFn>("rows2")],
      acc: [f<AccFn>("acc0"), f<AccFn>("acc1"), f<AccFn>("acc2")],
      acc4: [f<Acc4Fn>("acc4_0"), f<Acc4Fn>("acc4_1"), f<Acc4Fn>("acc4_2")],
      reserve(bytes: number) {
        const have = memory.buffer.byteLength;
        if (bytes > have) memory.grow(Math.ceil((bytes - have) / 65536));
      },
    };
  } catch {
    cached = null;
  }
  return cached ?? undefined;
}

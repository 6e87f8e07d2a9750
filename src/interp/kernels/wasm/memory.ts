// Large float32 tensors live in a shared WebAssembly.Memory of their own (allocStorage in
// ../../tensor.ts), so that WebAssembly kernels read them in place, on this thread or a helper
// thread, instead of copying them into a module's memory first (copying 40 MB costs about as
// much as summing it). The storage is still a plain Float32Array, over the memory's
// SharedArrayBuffer; a WeakMap finds the memory again from the buffer.

/** Bytes at the end of each such memory kept for kernels (per-thread result rows), never in a view. */
export const SCRATCH_BYTES = 65536;
const PAGE = 65536;

export interface SharedWasmMemory {
  readonly buffer: SharedArrayBuffer;
}
interface MemoryCtor {
  Memory: new (d: { initial: number; maximum: number; shared: boolean }) => SharedWasmMemory;
}

const owners = new WeakMap<object, SharedWasmMemory>();

/**
 * A zeroed SharedArrayBuffer of at least `bytes` + SCRATCH_BYTES, backed by a shared WebAssembly
 * memory; undefined where shared WebAssembly memory is unavailable or the size is over 4 GiB.
 */
export function allocWasmBacked(bytes: number): SharedArrayBuffer | undefined {
  const wa = (globalThis as unknown as { WebAssembly?: MemoryCtor }).WebAssembly;
  if (!wa || typeof SharedArrayBuffer !== "function") return undefined;
  const pages = Math.ceil((bytes + SCRATCH_BYTES) / PAGE);
  if (pages > 65536) return undefined;
  try {
    const memory = new wa.Memory({ initial: pages, maximum: pages, shared: true });
    owners.set(memory.buffer, memory);
    return memory.buffer;
  } catch {
    return undefined;
  }
}

/** The WebAssembly memory behind a buffer from allocWasmBacked, and its scratch's byte address. */
export function wasmMemoryOf(
  buf: ArrayBufferLike,
): { memory: SharedWasmMemory; scratch: number } | undefined {
  const memory = owners.get(buf);
  return memory && { memory, scratch: memory.buffer.byteLength - SCRATCH_BYTES };
}

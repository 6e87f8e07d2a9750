// The memory budget of a run: one limit in bytes for everything the run holds (values in scope,
// Loop and Scan accumulators, sequences, what the running kernels have allocated so far), checked
// before each allocation, so that a model asking for too much ends with an error naming the node
// instead of the process being killed. Values on the JavaScript heap (string tensors) also count
// against a cap derived from V8's heap limit, which is lower than the machine's memory.
//
// Runs are synchronous, so the budget of the run in progress is a module-level value that
// allocStorage (tensor.ts), the one place tensors are allocated, consults.

import { heapStatistics } from "./heap.node.js";
import { OnnxError } from "../errors.js";
import type { RValue, Storage } from "./types.js";

/** Estimated heap bytes of one string element: the array slot plus a string header. */
const STRING_SLOT_BYTES = 32;

/** The bytes a storage holds (strings: an estimate of their heap size). */
export function storageByteSize(data: Storage): number {
  if (!Array.isArray(data)) return data.byteLength;
  let n = 0;
  for (const s of data) n += STRING_SLOT_BYTES + (s?.length ?? 0) * 2;
  return n;
}

/** A byte count for messages: "8464000000 bytes (7.9 GiB)". */
export function formatBytes(n: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let u = -1;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u < 0 ? `${n} bytes` : `${n} bytes (${v.toFixed(1)} ${units[u]})`;
}

/**
 * Bytes the run may place on the JavaScript heap: half of what is left below V8's heap limit
 * when the run starts (the other half is for the garbage collector, the IR and everything else).
 */
export function heapAllowance(): number {
  const h = heapStatistics();
  return Math.max(0, Math.floor((h.limit - h.used) / 2));
}

export class MemoryBudget {
  /** Bytes of distinct storages held by values in scope. */
  private live = 0;
  private liveHeap = 0;
  /** Storage → how many scope entries hold it (views share one storage). */
  private readonly holders = new Map<Storage, { count: number; bytes: number }>();
  /** Shared buffer → how many scope entries hold a storage over it (any view). */
  private readonly sharedHolders = new Map<ArrayBufferLike, number>();
  /** Bytes allocated by the kernels running now (outermost first), not yet in a scope. */
  private transient = 0;
  private transientHeap = 0;
  /** Bytes held until the run ends: constant weights packed for the kernels (kernels/wasm/gemm.ts). */
  private pinned = 0;

  constructor(
    /** Bytes the run may hold in all. */
    readonly limit: number,
    /** Bytes the run may hold on the JavaScript heap. */
    readonly heapLimit: number = heapAllowance(),
    /** How the message names the limit (what sets it). */
    readonly limitName = "--max-memory",
  ) {}

  /** Bytes in use now. */
  get used(): number {
    return this.live + this.transient + this.pinned;
  }

  /** Counts `bytes` held until the run ends (packed weights); throws when over the limit. */
  pin(bytes: number, what?: string): void {
    this.charge(bytes, false, what);
    this.transient -= bytes;
    this.pinned += bytes;
  }

  /** Counts `bytes` about to be allocated (`heap`: on the JavaScript heap); throws when over. */
  charge(bytes: number, heap = false, what?: string): void {
    if (!(bytes > 0)) return;
    const used = this.used;
    const forWhat = what ? ` for ${what}` : "";
    if (used + bytes > this.limit)
      throw new OnnxError(
        "E_RUNTIME",
        `needs ${formatBytes(bytes)}${forWhat} with ${formatBytes(used)} already held, over the memory budget of ${formatBytes(this.limit)} (${this.limitName})`,
      );
    if (heap) {
      const usedHeap = this.liveHeap + this.transientHeap;
      if (usedHeap + bytes > this.heapLimit)
        throw new OnnxError(
          "E_RUNTIME",
          `needs ${formatBytes(bytes)} of JavaScript heap${forWhat} with ${formatBytes(usedHeap)} already held, over the heap budget of ${formatBytes(this.heapLimit)} (half of what V8's heap limit leaves; node --max-old-space-size raises it)`,
        );
      this.transientHeap += bytes;
    }
    this.transient += bytes;
  }

  /** Counts a value's storage once more (a value bound in a scope, or kept by a kernel). */
  hold(v: RValue): void {
    if ("dtype" in v) this.holdStorage(v.data);
    else if (v.kind === "sequence") for (const t of v.items) this.holdStorage(t.data);
  }

  /** Undoes one hold. */
  release(v: RValue): void {
    if ("dtype" in v) this.releaseStorage(v.data);
    else if (v.kind === "sequence") for (const t of v.items) this.releaseStorage(t.data);
  }

  /** Whether exactly one scope entry holds a storage over d's (shared) buffer. */
  soleHolder(d: Storage): boolean {
    return !Array.isArray(d) && this.sharedHolders.get(d.buffer) === 1;
  }

  private holdStorage(d: Storage): void {
    if (!Array.isArray(d) && isShared(d.buffer))
      this.sharedHolders.set(d.buffer, (this.sharedHolders.get(d.buffer) ?? 0) + 1);
    const h = this.holders.get(d);
    if (h) {
      h.count++;
      return;
    }
    // The size is taken once, so a release subtracts exactly what the hold added.
    const bytes = storageByteSize(d);
    this.holders.set(d, { count: 1, bytes });
    this.live += bytes;
    if (Array.isArray(d)) this.liveHeap += bytes;
  }

  private releaseStorage(d: Storage): void {
    const h = this.holders.get(d);
    if (!h) return;
    if (!Array.isArray(d) && isShared(d.buffer)) {
      const left = (this.sharedHolders.get(d.buffer) ?? 1) - 1;
      if (left > 0) this.sharedHolders.set(d.buffer, left);
      else this.sharedHolders.delete(d.buffer);
    }
    if (--h.count > 0) return;
    this.holders.delete(d);
    this.live -= h.bytes;
    if (Array.isArray(d)) this.liveHeap -= h.bytes;
  }

  /** Marks the start of a kernel: what it allocates counts until `leave`. */
  enter(): [number, number] {
    return [this.transient, this.transientHeap];
  }

  /** Ends a kernel: its allocations are now outputs (held by the scope) or garbage. */
  leave(mark: [number, number]): void {
    this.transient = mark[0];
    this.transientHeap = mark[1];
  }
}

const isShared = (b: ArrayBufferLike) =>
  typeof SharedArrayBuffer === "function" && b instanceof SharedArrayBuffer;

let active: MemoryBudget | undefined;

/** The budget of the run in progress, if any. */
export function activeBudget(): MemoryBudget | undefined {
  return active;
}

/** Runs `fn` with `budget` as the active one (restoring the previous one after). */
export function withBudget<T>(budget: MemoryBudget, fn: () => T): T {
  const prev = active;
  active = budget;
  try {
    return fn();
  } finally {
    active = prev;
  }
}

/** Counts an allocation against the active budget, if there is one. */
export function chargeBytes(bytes: number, heap = false, what?: string): void {
  active?.charge(bytes, heap, what);
}

/** Counts a value kept by a kernel across body runs (a Loop's scan outputs, say). */
export function chargeValue(v: RValue, what?: string): void {
  if (!active) return;
  if ("dtype" in v) active.charge(storageByteSize(v.data), Array.isArray(v.data), what);
  else if (v.kind === "sequence")
    for (const t of v.items) active.charge(storageByteSize(t.data), Array.isArray(t.data), what);
}

// Seeded pseudo-random numbers and tensors: the same seed gives the same values on every machine,
// so a random input, a fuzz case or a generated model can be named by its seed and reproduced.

import { DataType } from "../ir/types.js";
import { fromFloat64, scratch } from "./tensor.js";
import type { RTensor } from "./types.js";

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Uniform integer in [lo, hi]. */
  range(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  /** True with probability p. */
  chance(p: number): boolean;
}

/** mulberry32: small, fast, and good enough for test data (not for anything secret). */
export function seededRandom(seed: number): Random {
  let s = seed | 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    range: (lo, hi) => lo + int(hi - lo + 1),
    pick: (items) => items[int(items.length)]!,
    chance: (p) => next() < p,
  };
}

/** Mixes a seed and an index into a new seed (so case i of a run with seed S is reproducible alone). */
export function deriveSeed(seed: number, index: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (index + 0x7f4a7c15), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

const FLOATS = new Set<number>([
  DataType.FLOAT,
  DataType.DOUBLE,
  DataType.FLOAT16,
  DataType.BFLOAT16,
]);

/**
 * A tensor of the given element type and shape with values drawn from `rng`: floats uniform in
 * [lo, hi), integers rounded from the same range (clamped to the type by fromFloat64), bools at
 * random. Strings and other non-numeric types are not supported.
 */
export function randomTensor(
  dtype: number,
  shape: number[],
  rng: Random,
  lo = -3,
  hi = 3,
): RTensor {
  const n = shape.reduce((p, d) => p * d, 1);
  // Counted against the budget in force, as a kernel's working array is.
  const v = scratch(Float64Array, n);
  if (dtype === DataType.BOOL) for (let i = 0; i < n; i++) v[i] = rng.int(2);
  else if (FLOATS.has(dtype)) for (let i = 0; i < n; i++) v[i] = lo + (hi - lo) * rng.next();
  else for (let i = 0; i < n; i++) v[i] = Math.round(lo + (hi - lo) * rng.next());
  return fromFloat64(dtype, shape, v);
}

// Dimensions computed from one symbol: min(floor((S + a) / m), cap), with S a symbol of the model
// (`sequence`, `H`), a an integer, m ≥ 1 and cap a number or none. The form covers what torch
// exports compute on symbolic sizes: a window of stride 2 (`ceil(H/2)`), a slice clamped to a
// buffer (`min(sequence,512)`), an offset (`sequence+1`); it is closed under adding a number,
// dividing by a positive number (floor), and min with a number, so chains of these stay in it. A
// dimension is still a string (ir/types' Dim): an expression is written in one canonical
// spelling, so equal expressions are equal strings, and a string this process made is known by
// a table (a model's own symbol is never read as an expression, whatever its spelling). Anything
// outside the form is unknown (null), as before.

import type { Dim } from "../ir/types.js";

export interface DimExpr {
  sym: string;
  a: number;
  m: number;
  /** Infinity when there is none. */
  cap: number;
}

/** Expressions made by this process, by their spelling; bounded (past it, no new expressions). */
const made = new Map<string, DimExpr>();
const MAX_MADE = 100_000;
/** Bounds on the numbers in an expression (past them, unknown). */
const MAX_DIV = 1 << 20;
const MAX_OFFSET = 2 ** 40;

/** The expression a dimension stands for: a plain symbol is S itself; null when not a symbol. */
export function exprOf(d: Dim): DimExpr | null {
  if (typeof d !== "string" || d === "") return null;
  return made.get(d) ?? { sym: d, a: 0, m: 1, cap: Infinity };
}

const isPlain = (e: DimExpr) => e.a === 0 && e.m === 1 && e.cap === Infinity;

function offsetText(sym: string, off: number): string {
  return off === 0 ? sym : off > 0 ? `${sym}+${off}` : `${sym}-${-off}`;
}

function spell(e: DimExpr): string {
  let inner: string;
  if (e.m === 1) inner = offsetText(e.sym, e.a);
  else {
    // floor((S+a)/m) = ceil((S+a-m+1)/m): the spelling with the smaller offset (floor on a tie).
    const c = e.a - (e.m - 1);
    const [fn, off] = Math.abs(c) < Math.abs(e.a) ? ["ceil", c] : ["floor", e.a];
    const body = off === 0 ? e.sym : `(${offsetText(e.sym, off)})`;
    inner = `${fn}(${body}/${e.m})`;
  }
  return e.cap === Infinity ? inner : `min(${inner},${e.cap})`;
}

/** The dimension for an expression: its symbol when plain, else its spelling (null past the bounds). */
function make(e: DimExpr): Dim {
  if (isPlain(e)) return e.sym;
  const capped = e.cap !== Infinity;
  if (e.m > MAX_DIV || Math.abs(e.a) > MAX_OFFSET || (capped && Math.abs(e.cap) > MAX_OFFSET))
    return null;
  if (!Number.isSafeInteger(e.a) || (capped && !Number.isSafeInteger(e.cap))) return null;
  const s = spell(e);
  if (!made.has(s)) {
    if (made.size >= MAX_MADE) return null;
    made.set(s, e);
  }
  return s;
}

/** `d + k` (d a symbol or an expression). */
export function dimAdd(d: Dim, k: number): Dim {
  const e = exprOf(d);
  if (!e) return typeof d === "number" ? d + k : null;
  if (k === 0) return d;
  return make({ ...e, a: e.a + k * e.m, cap: e.cap + k });
}

/** `floor(d / s)` for s ≥ 1. */
export function dimFloorDiv(d: Dim, s: number): Dim {
  if (typeof d === "number") return Math.floor(d / s);
  const e = exprOf(d);
  if (!e || !Number.isSafeInteger(s) || s < 1) return null;
  if (s === 1) return d;
  return make({ ...e, m: e.m * s, cap: e.cap === Infinity ? Infinity : Math.floor(e.cap / s) });
}

/** `min(d, c)`. */
export function dimMin(d: Dim, c: number): Dim {
  if (typeof d === "number") return Math.min(d, c);
  const e = exprOf(d);
  if (!e) return null;
  if (c >= e.cap) return d;
  return make({ ...e, cap: c });
}

/** Whether a dimension is never negative (a number ≥ 0, a symbol, an expression of a size). */
export function nonNegative(d: Dim): boolean {
  if (typeof d === "number") return d >= 0;
  const e = exprOf(d);
  return e !== null && e.a >= 0 && e.cap >= 0;
}

/**
 * The broadcast of two different symbolic dimensions where one is provably the other: x and
 * min(x, c) with c ≥ 1. A valid model has them equal or one of them 1; min(x, c) = 1 < x needs
 * c = 1, and x = 1 gives min(x, c) = 1: either way the result is x. Null otherwise.
 */
export function broadcastSymbols(a: string, b: string): Dim {
  const x = exprOf(a)!;
  const y = exprOf(b)!;
  const capped = (p: DimExpr, q: DimExpr) =>
    p.cap >= 1 && q.cap === Infinity && p.sym === q.sym && p.a === q.a && p.m === q.m;
  if (capped(x, y)) return b;
  if (capped(y, x)) return a;
  return null;
}

/** The value of a dimension given sizes of symbols; undefined when its symbol is not bound. */
export function evalDim(d: Dim, sizes: ReadonlyMap<string, number>): number | undefined {
  if (typeof d === "number") return d;
  const e = exprOf(d);
  if (!e) return undefined;
  const s = sizes.get(e.sym);
  if (s === undefined) return undefined;
  return Math.min(Math.floor((s + e.a) / e.m), e.cap);
}

/** Whether the dimension is an expression this process made (not a plain symbol). */
export const isExpr = (d: Dim): boolean => typeof d === "string" && made.has(d);

// Arithmetic on shape values known in part (data propagation): 1-D integer values whose entries
// are numbers, symbols (a dimension's name or an expression of one, dim-expr.ts: a size, so never
// negative) or unknown (null). A result entry is a number only when it follows from what is
// known; otherwise the symbol or expression when the operation keeps one that is still a size
// (x·1, x+2, x/2, min(x, 512)), else unknown — never a guess.

import type { Dim } from "../ir/types.js";
import { dimAdd, dimFloorDiv, dimMin, nonNegative } from "./dim-expr.js";

export type SymOp = "Add" | "Sub" | "Mul" | "Div" | "Equal" | "Max" | "Min";

/** One entry of an elementwise operation on partly known values. */
function entry(op: SymOp, x: Dim, y: Dim): Dim {
  if (typeof x === "number" && typeof y === "number") {
    switch (op) {
      case "Add":
        return x + y;
      case "Sub":
        return x - y;
      case "Mul":
        return x * y;
      case "Div":
        return y === 0 ? null : Math.trunc(x / y);
      case "Equal":
        return x === y ? 1 : 0;
      case "Max":
        return Math.max(x, y);
      case "Min":
        return Math.min(x, y);
    }
  }
  switch (op) {
    case "Add":
      // A size plus a number ≥ 0 is a size (dim-expr.ts); one that may be negative is not kept.
      if (typeof x === "string" && typeof y === "number") return y >= 0 ? dimAdd(x, y) : sub(x, -y);
      if (typeof y === "string" && typeof x === "number") return x >= 0 ? dimAdd(y, x) : sub(y, -x);
      return null;
    case "Sub":
      return typeof x === "string" && typeof y === "number" ? sub(x, y) : null;
    case "Mul":
      return y === 1 ? x : x === 1 ? y : x === 0 || y === 0 ? 0 : null;
    case "Div":
      // Integer division truncates; of a size by a positive number, that is floor.
      return typeof x === "string" && typeof y === "number" && y > 0 ? dimFloorDiv(x, y) : null;
    case "Equal":
      // A symbol is a size: equal to itself, never to a negative number.
      if (typeof x === "string" && x === y) return 1;
      if (
        (typeof x === "string" && typeof y === "number" && y < 0) ||
        (typeof y === "string" && typeof x === "number" && x < 0)
      )
        return 0;
      return null;
    case "Max":
      if (x === y) return x;
      // Sizes are at least 0; anything is at least a negative number.
      if (typeof x === "string" && typeof y === "number" && y <= 0) return x;
      if (typeof y === "string" && typeof x === "number" && x <= 0) return y;
      return null;
    case "Min":
      if (x === y) return x;
      // min(size, c) is a size for c ≥ 0, and c itself for c < 0.
      if (typeof x === "string" && typeof y === "number") return y < 0 ? y : dimMin(x, y);
      if (typeof y === "string" && typeof x === "number") return x < 0 ? x : dimMin(y, x);
      return null;
  }
  return null;
}

/** A size less k (k ≥ 0), kept only where provably still a size. */
function sub(x: string, k: number): Dim {
  const d = dimAdd(x, -k);
  return nonNegative(d) ? d : null;
}

/** Elementwise on two values (one of them may have a single entry); undefined when the sizes clash. */
export function symBinary(op: SymOp, a: Dim[], b: Dim[]): Dim[] | undefined {
  if (a.length !== b.length && a.length !== 1 && b.length !== 1) return undefined;
  const n = Math.max(a.length, b.length);
  const out: Dim[] = [];
  for (let i = 0; i < n; i++)
    out.push(entry(op, a[a.length === 1 ? 0 : i] ?? null, b[b.length === 1 ? 0 : i] ?? null));
  return out;
}

/** Where(cond, x, y) on partly known values: the entry chosen where cond is known, or where x and y agree. */
export function symWhere(cond: Dim[], x: Dim[], y: Dim[]): Dim[] | undefined {
  const n = Math.max(cond.length, x.length, y.length);
  for (const v of [cond, x, y]) if (v.length !== n && v.length !== 1) return undefined;
  const at = (v: Dim[], i: number) => v[v.length === 1 ? 0 : i] ?? null;
  const out: Dim[] = [];
  for (let i = 0; i < n; i++) {
    const c = at(cond, i);
    const a = at(x, i);
    const b = at(y, i);
    out.push(c === null || typeof c === "string" ? (a === b ? a : null) : c !== 0 ? a : b);
  }
  return out;
}

/** Whether every entry is a number. */
export const allKnown = (v: Dim[]): v is number[] => v.every((d) => typeof d === "number");

/** Whether any entry is known (a number or a symbol). */
export const anyKnown = (v: Dim[]): boolean => v.some((d) => d !== null);

/**
 * The product of dimensions as far as it is known: a number, the one symbol left when the others
 * are 1, or null.
 */
export function symProduct(dims: Dim[]): Dim {
  let n = 1;
  let sym: Dim | undefined;
  for (const d of dims) {
    if (typeof d === "number") n *= d;
    else if (d === null || sym !== undefined) return null;
    else sym = d;
  }
  if (sym === undefined) return n;
  return n === 1 ? sym : n === 0 ? 0 : null;
}

/**
 * `total / rest` for Reshape's -1 when both are products of numbers and symbols: the symbols of
 * `rest` cancelled against those of `total`; a number, a single symbol, or null.
 */
export function symQuotient(total: Dim[], rest: Dim[]): Dim {
  const syms = new Map<string, number>();
  let num = 1;
  for (const d of total) {
    if (d === null) return null;
    if (typeof d === "number") num *= d;
    else syms.set(d, (syms.get(d) ?? 0) + 1);
  }
  let den = 1;
  for (const d of rest) {
    if (d === null) return null;
    if (typeof d === "number") den *= d;
    else {
      const k = syms.get(d);
      if (!k) return null;
      if (k === 1) syms.delete(d);
      else syms.set(d, k - 1);
    }
  }
  if (den === 0 || num % den !== 0) return null;
  const q = num / den;
  if (syms.size === 0) return q;
  const [only] = [...syms];
  return syms.size === 1 && only![1] === 1 && q === 1 ? only![0] : null;
}

// Reading attributes with defaults.

import type { Attribute, Node } from "./types.js";

export function getAttr(node: { attributes: Attribute[] }, name: string): Attribute | undefined {
  return node.attributes.find((a) => a.name === name);
}

/** An INT attribute as a number (beyond 2^53 it saturates to ±Infinity-safe limits). */
export function attrInt(node: Node, name: string, dflt: number): number;
export function attrInt(node: Node, name: string): number | undefined;
export function attrInt(node: Node, name: string, dflt?: number): number | undefined {
  const a = getAttr(node, name);
  if (!a || a.type !== "INT" || a.value === undefined) return dflt;
  return clampToNumber(a.value);
}

export function attrInts(node: Node, name: string): number[] | undefined {
  const a = getAttr(node, name);
  if (!a || a.type !== "INTS" || a.value === undefined) return undefined;
  return a.value.map(clampToNumber);
}

export function attrFloat(node: Node, name: string, dflt: number): number {
  const a = getAttr(node, name);
  if (!a || a.type !== "FLOAT" || a.value === undefined) return dflt;
  return a.value;
}

export function attrString(node: Node, name: string, dflt: string): string {
  const a = getAttr(node, name);
  if (!a || a.type !== "STRING" || a.value === undefined) return dflt;
  return a.value;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

/** An int64 as a number, saturating to ±Number.MAX_SAFE_INTEGER beyond 2^53. */
export function clampToNumber(v: bigint): number {
  if (v > MAX_SAFE) return Number.MAX_SAFE_INTEGER;
  if (v < MIN_SAFE) return Number.MIN_SAFE_INTEGER;
  return Number(v);
}

/**
 * An int64 as a message quotes it. clampToNumber leaves a value beyond 2^53 at ±MAX_SAFE_INTEGER,
 * so there `exact` (the model's own value, where the caller has it) is printed: a message never
 * names a number the model does not hold. Elsewhere `n` is printed (it may be computed from it).
 */
export function int64Text(n: number, exact?: bigint | number): string {
  const saturated = n === Number.MAX_SAFE_INTEGER || n === Number.MIN_SAFE_INTEGER;
  return saturated && exact !== undefined ? String(exact) : String(n);
}

/** A list of int64s as "a,b,c" by int64Text, `exact` holding the model's values index for index. */
export function int64sText(ns: readonly number[], exact?: ArrayLike<bigint | number>): string {
  return ns.map((n, i) => int64Text(n, exact?.[i])).join(",");
}

/** The INT attribute `name` of `node` as a message quotes `n`, the number attrInt gave for it. */
export function attrIntText(node: { attributes: Attribute[] }, name: string, n: number): string {
  const a = getAttr(node, name);
  const v = a?.type === "INT" && a.value !== undefined ? a.value : undefined;
  return int64Text(n, v !== undefined && clampToNumber(v) === n ? v : undefined);
}

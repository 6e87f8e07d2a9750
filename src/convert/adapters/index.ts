// The adapter table: one row per (domain, op, from, to), gathered from the family files that
// families.ts lists. Every row is made by `row` (kit.ts), so every one is type-checked.

import type { AdapterRow } from "../adapter.js";
import { normaliseDomain } from "../../schema/registry.js";
import * as families from "./families.js";

export const ADAPTER_ROWS: readonly AdapterRow[] = Object.values(families).flat();

export function stepKey(domain: string, op: string, from: number, to: number): string {
  return `${normaliseDomain(domain)}\u0000${op}\u0000${from}\u0000${to}`;
}

let table: Map<string, AdapterRow> | undefined;

/** The rows by step; two rows for one step are a programming error, reported at first use. */
export function adapterTable(): Map<string, AdapterRow> {
  if (table) return table;
  const t = new Map<string, AdapterRow>();
  for (const r of ADAPTER_ROWS) {
    const k = stepKey(r.domain, r.op, r.from, r.to);
    if (t.has(k)) throw new Error(`two adapter rows for ${r.op} ${r.from} -> ${r.to}`);
    t.set(k, r);
  }
  table = t;
  return t;
}

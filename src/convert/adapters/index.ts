// The adapter table: one row per (domain, op, from, to), gathered from the family files.
// A new family adds its file and one spread line below.

import type { AdapterRow } from "../adapter.js";
import { normaliseDomain } from "../../schema/registry.js";
import { legacyRows } from "./legacy.js";
import { reduceRows } from "./reduce.js";
import { CLIP_ROWS } from "./clip.js";
import { PAD_ROWS } from "./pad.js";
import { SLICE_ROWS, TOPK_ROWS } from "./slice.js";
import { SOFTMAX_ROWS } from "./softmax.js";
import { SPLIT_ROWS } from "./split.js";
import { SQUEEZE_ROWS } from "./squeeze.js";

export const ADAPTER_ROWS: readonly AdapterRow[] = [
  ...reduceRows,
  ...legacyRows,
  ...SOFTMAX_ROWS,
  ...SPLIT_ROWS,
  ...SQUEEZE_ROWS,
  ...CLIP_ROWS,
  ...PAD_ROWS,
  ...SLICE_ROWS,
  ...TOPK_ROWS,
];

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

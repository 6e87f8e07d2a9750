// The adapter table: one row per (domain, op, from, to), gathered from the family files.
// A new family adds its file and one spread line below.

import type { AdapterRow } from "../adapter.js";
import { normaliseDomain } from "../../schema/registry.js";
import { legacyRows } from "./legacy.js";
import { reduceRows } from "./reduce.js";
import { ARGMAX_ROWS } from "./argmax.js";
import { BATCHNORM_ROWS } from "./batchnorm.js";
import { BROADCAST_ROWS } from "./broadcast.js";
import { CLIP_ROWS } from "./clip.js";
import { DROPOUT_ROWS } from "./dropout.js";
import { RESIZE_ROWS } from "./resize.js";
import { WIDEN_ROWS } from "./widen.js";
import { MISC_ROWS } from "./misc.js";
import { GATHERND_ROWS } from "./gathernd.js";
import { SCAN_ROWS } from "./scan.js";
import { GROUPNORM_ROWS } from "./groupnorm.js";
import { typeChecked } from "./build.js";
import { PAD_ROWS } from "./pad.js";
import { SLICE_ROWS, TOPK_ROWS } from "./slice.js";
import { SOFTMAX_ROWS } from "./softmax.js";
import { SPLIT_ROWS } from "./split.js";
import { SQUEEZE_ROWS } from "./squeeze.js";

export const ADAPTER_ROWS: readonly AdapterRow[] = [
  ...reduceRows,
  ...legacyRows,
  ...typeChecked([
    ...SOFTMAX_ROWS,
    ...SPLIT_ROWS,
    ...SQUEEZE_ROWS,
    ...CLIP_ROWS,
    ...PAD_ROWS,
    ...SLICE_ROWS,
    ...TOPK_ROWS,
    ...RESIZE_ROWS,
    ...ARGMAX_ROWS,
    ...DROPOUT_ROWS,
    ...BATCHNORM_ROWS,
    ...MISC_ROWS,
    ...GROUPNORM_ROWS,
    ...BROADCAST_ROWS,
    ...GATHERND_ROWS,
  ]),
  // These handle the types the older version lacks themselves (Scan: its inputs shift by one
  // between 8 and 9, and V allows every tensor type in both).
  ...WIDEN_ROWS,
  ...SCAN_ROWS,
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

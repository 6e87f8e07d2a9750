// String and text-feature ops: StringNormalizer, TfIdfVectorizer.

import { attrInt, attrInts, attrString, getAttr } from "../../ir/attributes.js";
import { DataType } from "../../ir/types.js";
import { fromFloat64, scratch } from "../tensor.js";
import type { Kernel } from "../types.js";
import { fail, input } from "./util.js";
import { intAttr, stringAttr } from "./attrs.js";

const StringNormalizer: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  if (x.dtype !== DataType.STRING) fail(ctx, "input must be a string tensor");
  const action = stringAttr(ctx, "case_change_action");
  const sensitive = intAttr(ctx, "is_case_sensitive") !== 0;
  const stop = new Set((getAttr(ctx.node, "stopwords")?.value as string[] | undefined) ?? []);
  const stopLower = new Set([...stop].map((s) => s.toLowerCase()));
  const isStop = (s: string) => (sensitive ? stop.has(s) : stopLower.has(s.toLowerCase()));
  const change = (s: string) =>
    action === "LOWER" ? s.toLowerCase() : action === "UPPER" ? s.toUpperCase() : s;
  const strs = x.data as string[];
  const kept = strs.filter((s) => !isStop(s)).map(change);
  if (kept.length === 0) kept.push("");
  const shape = x.shape.length === 2 ? [1, kept.length] : [kept.length];
  return [{ dtype: DataType.STRING, shape, data: kept }];
};

// ---------------------------------------------------------------------------------------------
// TfIdfVectorizer: n-gram counts (with skips) against a pool, weighted by mode.

const TfIdfVectorizer: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const minN = attrInt(ctx.node, "min_gram_length", 1);
  const maxN = attrInt(ctx.node, "max_gram_length", 1);
  const maxSkip = attrInt(ctx.node, "max_skip_count", 0);
  const mode = attrString(ctx.node, "mode", "TF");
  const counts =
    attrInts(ctx.node, "ngram_counts") ?? fail(ctx, "attribute 'ngram_counts' is required");
  const indexes =
    attrInts(ctx.node, "ngram_indexes") ?? fail(ctx, "attribute 'ngram_indexes' is required");
  const poolInts = ctx.node.attributes.find((a) => a.name === "pool_int64s");
  const poolStrs = ctx.node.attributes.find((a) => a.name === "pool_strings");
  const weightsA = ctx.node.attributes.find((a) => a.name === "weights");
  const pool: string[] =
    poolStrs && poolStrs.type === "STRINGS" && poolStrs.value
      ? poolStrs.value
      : poolInts && poolInts.type === "INTS" && poolInts.value
        ? poolInts.value.map(String)
        : fail(ctx, "one of pool_int64s and pool_strings is required");
  const weights =
    weightsA && weightsA.type === "FLOATS" && weightsA.value ? weightsA.value : undefined;
  // n-gram (tokens joined) → output index
  const lookup = new Map<string, number>();
  let k = 0;
  for (let g = 0; g < counts.length; g++) {
    const n = g + 1;
    const start = counts[g]!;
    const end = g + 1 < counts.length ? counts[g + 1]! : pool.length;
    for (let p = start; p + n <= end; p += n)
      lookup.set(`${n}:${pool.slice(p, p + n).join("\u0000")}`, indexes[k++]!);
  }
  const width = indexes.reduce((w, i) => Math.max(w, i), -1) + 1;
  const rows = x.shape.length === 2 ? x.shape[0]! : 1;
  const cols = x.shape.length === 2 ? x.shape[1]! : (x.shape[0] ?? 0);
  const tokens = Array.from(x.data as ArrayLike<unknown>, (v) => String(v));
  const out = scratch(Float64Array, rows * width);
  for (let r = 0; r < rows; r++) {
    const row = tokens.slice(r * cols, (r + 1) * cols);
    for (let n = minN; n <= maxN; n++)
      for (let s = 0; s <= (n === 1 ? 0 : maxSkip); s++)
        for (let start = 0; start + (n - 1) * (s + 1) < row.length; start++) {
          const gram: string[] = [];
          for (let t = 0; t < n; t++) gram.push(row[start + t * (s + 1)]!);
          const idx = lookup.get(`${n}:${gram.join("\u0000")}`);
          if (idx !== undefined) out[r * width + idx]! += 1;
        }
  }
  for (let i = 0; i < out.length; i++) {
    const w = weights ? (weights[i % width] ?? 1) : 1;
    if (mode === "IDF") out[i] = out[i]! > 0 ? w : 0;
    else if (mode === "TFIDF") out[i] = out[i]! * w;
  }
  return [fromFloat64(DataType.FLOAT, x.shape.length === 2 ? [rows, width] : [width], out)];
};

export const stringKernels: Record<string, Kernel> = { StringNormalizer, TfIdfVectorizer };

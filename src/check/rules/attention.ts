// Attention-family ops with shape rules: Attention-23/24/25, LinearAttention-27,
// RotaryEmbedding-23 and CausalConvWithState-27. Dimensions the inputs do not fix stay unknown.

import type { Dim } from "../../ir/types.js";
import { formatShape } from "../types.js";
import {
  attrIntOf,
  elemOf,
  opName,
  out,
  present,
  sameAsInput,
  shapeOf,
  type Rule,
  type RuleCtx,
} from "./common.js";

const mul = (a: Dim | undefined, b: Dim | undefined): Dim =>
  typeof a === "number" && typeof b === "number" ? a * b : null;
const add = (a: Dim | undefined, b: Dim | undefined): Dim =>
  typeof a === "number" && typeof b === "number" ? a + b : null;
/** a / n when a is known and n divides it; unknown otherwise. */
const div = (a: Dim | undefined, n: number | undefined | null): Dim =>
  typeof a === "number" && typeof n === "number" && n > 0 && a % n === 0 ? a / n : null;
const dim = (d: Dim | undefined): Dim => (d === undefined ? null : d);

function wanted(c: RuleCtx, i: number): boolean {
  return (c.node.outputs[i] ?? "") !== "";
}

/** Y (B, Hq, Sq, Dv) or (B, Sq, Hq·Dv); present_key/value (B, Hkv, P + Skv, D/Dv); qk (B, Hq, Sq, P + Skv). */
const attention: Rule = (c) => {
  const q = shapeOf(c, 0);
  const k = shapeOf(c, 1);
  const v = shapeOf(c, 2);
  const t1 = elemOf(c, 0);
  const t2 = elemOf(c, 2);
  if (!q || !k || !v) {
    out(c, 0, t1);
    for (const [i, e] of [
      [1, t1],
      [2, t2],
      [3, t1],
    ] as const)
      if (wanted(c, i)) out(c, i, e);
    return;
  }
  if ((q.length !== 3 && q.length !== 4) || k.length !== q.length || v.length !== q.length) {
    c.error(
      "rank",
      `${opName(c)}: Q, K and V must all be 3-D or all 4-D, got ${formatShape(q)}, ${formatShape(k)}, ${formatShape(v)}`,
    );
    return;
  }
  const b = dim(q[0]);
  let hq: Dim, hkv: Dim, sq: Dim, skv: Dim, d: Dim, dv: Dim;
  if (q.length === 4) {
    [hq, sq, d] = [dim(q[1]), dim(q[2]), dim(q[3])];
    [hkv, skv] = [dim(k[1]), dim(k[2])];
    dv = dim(v[3]);
  } else {
    const qh = attrIntOf(c, "q_num_heads");
    const kvh = attrIntOf(c, "kv_num_heads");
    hq = typeof qh === "number" ? qh : null;
    hkv = typeof kvh === "number" ? kvh : null;
    [sq, skv] = [dim(q[1]), dim(k[1])];
    d = div(q[2], hq);
    dv = div(v[2], hkv);
  }
  const past = present(c, 4) ? shapeOf(c, 4)?.[2] : 0;
  const total = add(past, skv);
  out(c, 0, t1, q.length === 4 ? [b, hq, sq, dv] : [b, sq, mul(hq, dv)]);
  if (wanted(c, 1)) out(c, 1, t1, [b, hkv, total, d]);
  if (wanted(c, 2)) out(c, 2, t2, [b, hkv, total, dv]);
  if (wanted(c, 3)) out(c, 3, t1, [b, hq, sq, total]);
};

/** output (B, T, Hq·d_v); present_state (B, Hkv, d_k, d_v) of past_state's type, else the query's. */
const linearAttention: Rule = (c) => {
  const q = shapeOf(c, 0);
  const v = shapeOf(c, 2);
  const hq = attrIntOf(c, "q_num_heads");
  const hkv = attrIntOf(c, "kv_num_heads");
  const t = elemOf(c, 0);
  const s = present(c, 3) ? elemOf(c, 3) || t : t;
  if (!q || !v || q.length !== 3 || v.length !== 3) {
    out(c, 0, t);
    out(c, 1, s);
    return;
  }
  const dk = div(q[2], hq);
  const dv = div(v[2], hkv);
  out(c, 0, t, [dim(q[0]), dim(q[1]), typeof hq === "number" ? mul(hq, dv) : null]);
  out(c, 1, s, [dim(q[0]), typeof hkv === "number" ? hkv : null, dk, dv]);
};

/** output has input's shape; present_state is (B, C, k − 1). */
const causalConvWithState: Rule = (c) => {
  sameAsInput(c);
  const x = shapeOf(c, 0);
  const w = shapeOf(c, 1);
  const k = w?.length === 3 ? w[2] : undefined;
  const km1 = typeof k === "number" ? k - 1 : null;
  out(c, 1, elemOf(c, 0), x?.length === 3 ? [dim(x[0]), dim(x[1]), km1] : undefined);
};

export const attentionRules: Readonly<Record<string, Rule>> = {
  Attention: attention,
  LinearAttention: linearAttention,
  RotaryEmbedding: sameAsInput,
  CausalConvWithState: causalConvWithState,
};

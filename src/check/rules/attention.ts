// Attention-family ops with shape rules: Attention-23/24/25, LinearAttention-27,
// RotaryEmbedding-23 and CausalConvWithState-27. Dimensions the inputs do not fix stay unknown.

import type { Dim } from "../../ir/types.js";
import { formatShape } from "../types.js";
import * as R from "./common.js";

const mul = (a: Dim | undefined, b: Dim | undefined): Dim =>
  typeof a === "number" && typeof b === "number" ? a * b : null;
const add = (a: Dim | undefined, b: Dim | undefined): Dim =>
  typeof a === "number" && typeof b === "number" ? a + b : null;
/** a / n when a is known and n divides it; unknown otherwise. */
const div = (a: Dim | undefined, n: number | undefined | null): Dim =>
  typeof a === "number" && typeof n === "number" && n > 0 && a % n === 0 ? a / n : null;
const dim = (d: Dim | undefined): Dim => (d === undefined ? null : d);

function wanted(c: R.RuleCtx, i: number): boolean {
  return (c.node.outputs[i] ?? "") !== "";
}

/** Y (B, Hq, Sq, Dv) or (B, Sq, Hq·Dv); present_key/value (B, Hkv, P + Skv, D/Dv); qk (B, Hq, Sq, P + Skv). */
const attention: R.Rule = (c) => {
  const q = R.shapeOf(c, 0);
  const k = R.shapeOf(c, 1);
  const v = R.shapeOf(c, 2);
  const t1 = R.elemOf(c, 0);
  const t2 = R.elemOf(c, 2);
  if (!q || !k || !v) {
    R.out(c, 0, t1);
    for (const [i, e] of [
      [1, t1],
      [2, t2],
      [3, t1],
    ] as const)
      if (wanted(c, i)) R.out(c, i, e);
    return;
  }
  if ((q.length !== 3 && q.length !== 4) || k.length !== q.length || v.length !== q.length) {
    c.error(
      "rank",
      `${R.opName(c)}: Q, K and V must all be 3-D or all 4-D, got ${formatShape(q)}, ${formatShape(k)}, ${formatShape(v)}`,
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
    const qh = R.attrIntOf(c, "q_num_heads");
    const kvh = R.attrIntOf(c, "kv_num_heads");
    hq = typeof qh === "number" ? qh : null;
    hkv = typeof kvh === "number" ? kvh : null;
    [sq, skv] = [dim(q[1]), dim(k[1])];
    d = div(q[2], hq);
    dv = div(v[2], hkv);
  }
  const past = R.present(c, 4) ? R.shapeOf(c, 4)?.[2] : 0;
  const total = add(past, skv);
  R.out(c, 0, t1, q.length === 4 ? [b, hq, sq, dv] : [b, sq, mul(hq, dv)]);
  if (wanted(c, 1)) R.out(c, 1, t1, [b, hkv, total, d]);
  if (wanted(c, 2)) R.out(c, 2, t2, [b, hkv, total, dv]);
  if (wanted(c, 3)) R.out(c, 3, t1, [b, hq, sq, total]);
};

/** output (B, T, Hq·d_v); present_state (B, Hkv, d_k, d_v) of past_state's type, else the query's. */
const linearAttention: R.Rule = (c) => {
  const q = R.shapeOf(c, 0);
  const v = R.shapeOf(c, 2);
  const hq = R.attrIntOf(c, "q_num_heads");
  const hkv = R.attrIntOf(c, "kv_num_heads");
  const t = R.elemOf(c, 0);
  const s = R.present(c, 3) ? R.elemOf(c, 3) || t : t;
  if (!q || !v || q.length !== 3 || v.length !== 3) {
    R.out(c, 0, t);
    R.out(c, 1, s);
    return;
  }
  const dk = div(q[2], hq);
  const dv = div(v[2], hkv);
  R.out(c, 0, t, [dim(q[0]), dim(q[1]), typeof hq === "number" ? mul(hq, dv) : null]);
  R.out(c, 1, s, [dim(q[0]), typeof hkv === "number" ? hkv : null, dk, dv]);
};

/** output has input's shape; present_state is (B, C, k − 1). */
const causalConvWithState: R.Rule = (c) => {
  R.sameAsInput(c);
  const x = R.shapeOf(c, 0);
  const w = R.shapeOf(c, 1);
  const k = w?.length === 3 ? w[2] : undefined;
  const km1 = typeof k === "number" ? k - 1 : null;
  R.out(c, 1, R.elemOf(c, 0), x?.length === 3 ? [dim(x[0]), dim(x[1]), km1] : undefined);
};

export const attentionRules: Readonly<Record<string, R.Rule>> = {
  Attention: attention,
  LinearAttention: linearAttention,
  RotaryEmbedding: R.sameAsInput,
  CausalConvWithState: causalConvWithState,
};

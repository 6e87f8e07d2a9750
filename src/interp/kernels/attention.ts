// Attention-family ops that the spec defines as functions: Attention-23/24/25,
// RotaryEmbedding-23 and LinearAttention-27. Everything is computed in float64 from the decoded
// inputs and each output is rounded once to its element type (`softmax_precision` and the
// float32 state of LinearAttention only set a lower bound on the precision).

import { attrInt, getAttr } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { hasAttribute, hasInput, hasMeaning } from "../../schema/facts.js";
import { fromFloat64, isFloatType, toFloat64, scratch } from "../tensor.js";
import type { Kernel, KernelContext, RTensor, RValue } from "../types.js";
import { checkedCount, fail, floatInput, input, intValues, optInput, strides } from "./util.js";
import { opVersion } from "./version.js";
import { floatAttr, intAttr, stringAttr } from "./attrs.js";

const shapeText = (s: readonly number[]) => `[${s.join(",")}]`;

function wanted(ctx: KernelContext, i: number): boolean {
  return (ctx.node.outputs[i] ?? "") !== "";
}

function optFloatInput(
  ctx: KernelContext,
  inputs: (RValue | undefined)[],
  i: number,
  what: string,
): RTensor | undefined {
  return optInput(ctx, inputs, i) === undefined ? undefined : floatInput(ctx, inputs, i, what);
}

/** A positive integer attribute that must be given. */
function headsAttr(ctx: KernelContext, name: string): number {
  const v = attrInt(ctx.node, name);
  if (v === undefined) fail(ctx, `the attribute ${name} is required`);
  if (v <= 0) fail(ctx, `${name} must be positive, got ${v}`);
  return v;
}

/** Swaps the two middle axes of a (b, x, y, d) array: (b, y, x, d). */
function swapMiddle(v: Float64Array, b: number, x: number, y: number, d: number): Float64Array {
  const out = scratch(Float64Array, v.length);
  for (let i = 0; i < b; i++)
    for (let j = 0; j < x; j++)
      for (let h = 0; h < y; h++)
        for (let k = 0; k < d; k++)
          out[((i * y + h) * x + j) * d + k] = v[((i * x + j) * y + h) * d + k]!;
  return out;
}

/** (B, S, H·D) packed → float64 values laid out as (B, H, S, D). */
function unpackHeads(
  ctx: KernelContext,
  t: RTensor,
  heads: number,
  what: string,
): { v: Float64Array; d: number } {
  const [b, s, hd] = t.shape as [number, number, number];
  if (hd % heads !== 0)
    fail(ctx, `${what} hidden size ${hd} is not a multiple of the number of heads ${heads}`);
  const d = hd / heads;
  return { v: swapMiddle(toFloat64(t), b, s, heads, d), d };
}

/** Concatenates (B, H, P, D) and (B, H, S, D) along the sequence axis. */
function concatSeq(
  past: Float64Array,
  cur: Float64Array,
  bh: number,
  p: number,
  s: number,
  d: number,
): Float64Array {
  const out = scratch(Float64Array, bh * (p + s) * d);
  for (let i = 0; i < bh; i++) {
    out.set(past.subarray(i * p * d, (i + 1) * p * d), i * (p + s) * d);
    out.set(cur.subarray(i * s * d, (i + 1) * s * d), i * (p + s) * d + p * d);
  }
  return out;
}

/**
 * Attention: softmax(Q·Kᵀ·scale [softcapped] + bias)·V over (batch, head) pairs, with grouped
 * KV heads (query head h reads KV head ⌊h / (Hq/Hkv)⌋), an internal KV cache (past_key,
 * past_value) or an external one (nonpad_kv_seqlen, version 24), and sliding windows (version
 * 25). The bias adds the mask (boolean: 0 or −inf; numeric: its value; positions past the mask's
 * last dimension: −inf), the causal frontier j ≤ i + offset, the window and the padding of
 * nonpad_kv_seqlen. A row whose bias is −inf everywhere gives zeros (Y and mode-3 output).
 */
const Attention: Kernel = (ctx, inputs) => {
  const q = floatInput(ctx, inputs, 0, "Q");
  const k = floatInput(ctx, inputs, 1, "K");
  const v = floatInput(ctx, inputs, 2, "V");
  if (k.dtype !== q.dtype)
    fail(ctx, `Q and K must have one type, got ${dtypeName(q.dtype)} and ${dtypeName(k.dtype)}`);
  const mask = optInput(ctx, inputs, 3);
  const pastK = optFloatInput(ctx, inputs, 4, "past_key");
  const pastV = optFloatInput(ctx, inputs, 5, "past_value");
  const version = opVersion(ctx);
  const nonpadT = optInput(ctx, inputs, 6);
  if (nonpadT && !hasInput(version, "nonpad_kv_seqlen"))
    fail(ctx, `Attention-${version.since} has no input nonpad_kv_seqlen (version 24 added it)`);
  if ((pastK === undefined) !== (pastV === undefined))
    fail(ctx, "past_key and past_value must be given together");
  if (wanted(ctx, 1) !== wanted(ctx, 2))
    fail(ctx, "present_key and present_value must be requested together");
  if (nonpadT && (pastK || wanted(ctx, 1)))
    fail(ctx, "nonpad_kv_seqlen cannot be combined with past_key/past_value or present outputs");
  const r = q.shape.length;
  if ((r !== 3 && r !== 4) || k.shape.length !== r || v.shape.length !== r)
    fail(
      ctx,
      `Q, K and V must all be 3-D or all 4-D, got ${shapeText(q.shape)}, ${shapeText(k.shape)}, ${shapeText(v.shape)}`,
    );
  const b = q.shape[0]!;
  if (k.shape[0] !== b || v.shape[0] !== b)
    fail(
      ctx,
      `Q, K and V must have one batch size, got ${q.shape[0]}, ${k.shape[0]}, ${v.shape[0]}`,
    );

  // Everything below works on (B, H, S, D) float64 layouts.
  let hq: number, hkv: number, sq: number, skv: number, dqk: number, dv: number;
  let qv: Float64Array, kv: Float64Array, vv: Float64Array;
  if (r === 3) {
    hq = headsAttr(ctx, "q_num_heads");
    hkv = headsAttr(ctx, "kv_num_heads");
    sq = q.shape[1]!;
    skv = k.shape[1]!;
    if (v.shape[1] !== skv)
      fail(ctx, `K and V must have one sequence length, got ${skv} and ${v.shape[1]}`);
    const uq = unpackHeads(ctx, q, hq, "Q");
    const uk = unpackHeads(ctx, k, hkv, "K");
    const uv = unpackHeads(ctx, v, hkv, "V");
    if (uq.d !== uk.d)
      fail(ctx, `Q and K head sizes differ (${uq.d} and ${uk.d}) for the given numbers of heads`);
    [qv, kv, vv, dqk, dv] = [uq.v, uk.v, uv.v, uq.d, uv.d];
  } else {
    if (
      hasMeaning(version, "heads-for-3d-only") &&
      (getAttr(ctx.node, "q_num_heads") || getAttr(ctx.node, "kv_num_heads"))
    )
      fail(ctx, "q_num_heads and kv_num_heads must not be given for 4-D inputs");
    [, hq, sq, dqk] = q.shape as [number, number, number, number];
    [, hkv, skv] = k.shape as [number, number, number, number];
    dv = v.shape[3]!;
    if (k.shape[3] !== dqk)
      fail(ctx, `Q and K head sizes differ: ${shapeText(q.shape)} and ${shapeText(k.shape)}`);
    if (v.shape[1] !== hkv || v.shape[2] !== skv)
      fail(
        ctx,
        `V ${shapeText(v.shape)} must have K's number of heads and sequence length ${shapeText(k.shape)}`,
      );
    [qv, kv, vv] = [toFloat64(q), toFloat64(k), toFloat64(v)];
  }
  if (hq % hkv !== 0)
    fail(ctx, `the number of query heads ${hq} is not a multiple of the number of KV heads ${hkv}`);
  const group = hq / hkv;

  // KV cache.
  let past = 0;
  if (pastK && pastV) {
    if (pastK.dtype !== q.dtype || pastV.dtype !== v.dtype)
      fail(ctx, "past_key must have Q's type and past_value V's type");
    past = pastK.shape[2] ?? -1;
    const wantK = [b, hkv, past, dqk];
    const wantV = [b, hkv, past, dv];
    if (pastK.shape.length !== 4 || pastK.shape.some((d, i) => d !== wantK[i]))
      fail(ctx, `past_key must have shape ${shapeText(wantK)}, got ${shapeText(pastK.shape)}`);
    if (pastV.shape.length !== 4 || pastV.shape.some((d, i) => d !== wantV[i]))
      fail(ctx, `past_value must have shape ${shapeText(wantV)}, got ${shapeText(pastV.shape)}`);
    kv = concatSeq(toFloat64(pastK), kv, b * hkv, past, skv, dqk);
    vv = concatSeq(toFloat64(pastV), vv, b * hkv, past, skv, dv);
  }
  const total = past + skv;

  let nonpad: number[] | undefined;
  if (nonpadT) {
    if (nonpadT.dtype !== DataType.INT64)
      fail(ctx, `nonpad_kv_seqlen must be int64, got ${dtypeName(nonpadT.dtype)}`);
    nonpad = intValues(ctx, nonpadT, "nonpad_kv_seqlen");
    if (nonpadT.shape.length !== 1 || nonpad.length !== b)
      fail(ctx, `nonpad_kv_seqlen must have shape [${b}], got ${shapeText(nonpadT.shape)}`);
  }

  // Attributes.
  const scaleAttr = getAttr(ctx.node, "scale");
  const scale = scaleAttr ? floatAttr(ctx, "scale") : 1 / Math.sqrt(dqk);
  const causal = intAttr(ctx, "is_causal") !== 0;
  const softcap = floatAttr(ctx, "softcap");
  const mode = intAttr(ctx, "qk_matmul_output_mode");
  if (mode < 0 || mode > 3) fail(ctx, `qk_matmul_output_mode must be 0, 1, 2 or 3, got ${mode}`);
  const precision = attrInt(ctx.node, "softmax_precision");
  if (precision !== undefined && !isFloatType(precision))
    fail(ctx, `softmax_precision must be 1, 10, 11 or 16, got ${precision}`);
  // The window attributes exist from version 25 on; before, a stray one is not applied.
  const windows = hasAttribute(version, "left_window_size");
  const left = windows ? intAttr(ctx, "left_window_size") : -1;
  const right = windows ? intAttr(ctx, "right_window_size") : -1;
  if (left < -1 || right < -1)
    fail(
      ctx,
      `left_window_size and right_window_size must be -1 or more, got ${left} and ${right}`,
    );

  // The mask, broadcast right-aligned onto (B, Hq, Sq, ≤ total).
  let maskVals: Float64Array | undefined;
  let maskBool = false;
  let maskLast = 0;
  let maskStr: number[] = [];
  if (mask) {
    if (Array.isArray(mask.data)) fail(ctx, "attn_mask must be boolean or numeric");
    const ms = mask.shape;
    if (ms.length === 0 || ms.length > 4)
      fail(ctx, `attn_mask must have rank 1 to 4, got shape ${shapeText(ms)}`);
    maskLast = ms[ms.length - 1]!;
    if (maskLast > total)
      fail(
        ctx,
        `attn_mask's last dimension ${maskLast} is longer than the total sequence length ${total}`,
      );
    const target = [b, hq, sq];
    const full = [...new Array<number>(4 - ms.length).fill(1), ...ms];
    const st = strides(full);
    maskStr = [0, 1, 2].map((i) => {
      if (full[i] !== 1 && full[i] !== target[i])
        fail(
          ctx,
          `attn_mask ${shapeText(ms)} cannot be broadcast to (batch, q_num_heads, q_sequence_length, total) = ${shapeText([b, hq, sq, total])}`,
        );
      return full[i] === 1 ? 0 : st[i]!;
    });
    maskBool = mask.dtype === DataType.BOOL;
    maskVals = toFloat64(mask);
  }

  const outY = scratch(Float64Array, checkedCount(ctx, [b, hq, sq, dv]));
  const wantQk = wanted(ctx, 3);
  const outQk = wantQk ? scratch(Float64Array, checkedCount(ctx, [b, hq, sq, total])) : undefined;
  const bias = scratch(Float64Array, total);
  const logits = scratch(Float64Array, total);
  const probs = scratch(Float64Array, total);
  for (let bi = 0; bi < b; bi++) {
    // The offset of the query block: the cached keys before it.
    const offset = pastK ? past : nonpad ? nonpad[bi]! - sq : 0;
    for (let h = 0; h < hq; h++) {
      const kh = Math.floor(h / group);
      const kBase = (bi * hkv + kh) * total;
      for (let i = 0; i < sq; i++) {
        // Additive bias of this row.
        let open = false; // some key is not masked out
        for (let j = 0; j < total; j++) {
          let x = 0;
          if (maskVals) {
            if (j >= maskLast) x = -Infinity;
            else {
              const m = maskVals[bi * maskStr[0]! + h * maskStr[1]! + i * maskStr[2]! + j]!;
              x = maskBool ? (m !== 0 ? 0 : -Infinity) : m;
            }
          }
          const pos = i + offset;
          if (causal && j > pos) x = -Infinity;
          if (left >= 0 && pos - j > left) x = -Infinity;
          if (right >= 0 && j - pos > right) x = -Infinity;
          if (nonpad && j >= nonpad[bi]!) x = -Infinity;
          bias[j] = x;
          if (x !== -Infinity) open = true;
        }
        const qBase = ((bi * hq + h) * sq + i) * dqk;
        const rowAt = ((bi * hq + h) * sq + i) * total;
        let max = -Infinity;
        for (let j = 0; j < total; j++) {
          let dot = 0;
          const kRow = (kBase + j) * dqk;
          for (let d = 0; d < dqk; d++) dot += qv[qBase + d]! * kv[kRow + d]!;
          let x = dot * scale;
          if (outQk && mode === 0) outQk[rowAt + j] = x;
          if (softcap !== 0) x = softcap * Math.tanh(x / softcap);
          if (outQk && mode === 1) outQk[rowAt + j] = x;
          x += bias[j]!;
          if (outQk && mode === 2) outQk[rowAt + j] = x;
          logits[j] = x;
          if (x > max) max = x;
        }
        if (!open || max === -Infinity) probs.fill(0);
        else {
          let sum = 0;
          for (let j = 0; j < total; j++) {
            const e = Math.exp(logits[j]! - max);
            probs[j] = e;
            sum += e;
          }
          for (let j = 0; j < total; j++) probs[j] = probs[j]! / sum;
        }
        if (outQk && mode === 3) outQk.set(probs, rowAt);
        const yBase = ((bi * hq + h) * sq + i) * dv;
        for (let j = 0; j < total; j++) {
          const p = probs[j]!;
          const vRow = (kBase + j) * dv;
          for (let d = 0; d < dv; d++) outY[yBase + d] = outY[yBase + d]! + p * vv[vRow + d]!;
        }
      }
    }
  }

  const y =
    r === 3
      ? fromFloat64(q.dtype, [b, sq, hq * dv], swapMiddle(outY, b, hq, sq, dv))
      : fromFloat64(q.dtype, [b, hq, sq, dv], outY);
  const outs: RTensor[] = [y];
  if (wanted(ctx, 1)) {
    outs.push(fromFloat64(q.dtype, [b, hkv, total, dqk], kv));
    outs.push(fromFloat64(v.dtype, [b, hkv, total, dv], vv));
  } else outs.push(y, y); // not requested: placeholders the executor does not bind
  if (outQk) outs.push(fromFloat64(q.dtype, [b, hq, sq, total], outQk));
  return outs;
};

/**
 * RotaryEmbedding: rotates the first rotary_embedding_dim values of each head (all of them by
 * default) by the angles whose cosines and sines the caches hold, for position
 * position_ids[b, s] (or the caches' own (b, s) entry without position_ids). Pairs are the two
 * halves of the rotated part, or neighbours with interleaved = 1:
 * (x1, x2) → (x1·cos − x2·sin, x1·sin + x2·cos).
 */
const RotaryEmbedding: Kernel = (ctx, inputs) => {
  const x = floatInput(ctx, inputs, 0, "X");
  const cosT = floatInput(ctx, inputs, 1, "cos_cache");
  const sinT = floatInput(ctx, inputs, 2, "sin_cache");
  const posT = optInput(ctx, inputs, 3);
  for (const t of [cosT, sinT])
    if (t.dtype !== x.dtype)
      fail(
        ctx,
        `cos_cache and sin_cache must have X's type ${dtypeName(x.dtype)}, got ${dtypeName(t.dtype)}`,
      );
  const r = x.shape.length;
  if (r !== 3 && r !== 4) fail(ctx, `X must be 3-D or 4-D, got ${shapeText(x.shape)}`);
  const interleaved = intAttr(ctx, "interleaved") !== 0;
  const b = x.shape[0]!;
  let heads: number, seq: number, head: number;
  // Element (b, s, h, d) lives at b·sB + s·sS + h·sH + d in X's own layout.
  let sB: number, sS: number, sH: number;
  if (r === 4) {
    [, heads, seq, head] = x.shape as [number, number, number, number];
    [sB, sH, sS] = [heads * seq * head, seq * head, head];
  } else {
    const n = attrInt(ctx.node, "num_heads");
    if (n === undefined || n <= 0) fail(ctx, "num_heads must be given (positive) for a 3-D input");
    heads = n;
    seq = x.shape[1]!;
    const hidden = x.shape[2]!;
    if (hidden % heads !== 0)
      fail(ctx, `hidden size ${hidden} is not a multiple of num_heads ${heads}`);
    head = hidden / heads;
    [sB, sS, sH] = [seq * hidden, hidden, head];
  }
  const rdAttr = intAttr(ctx, "rotary_embedding_dim");
  const rd = rdAttr === 0 ? head : rdAttr;
  if (rd < 0 || rd > head || rd % 2 !== 0)
    fail(ctx, `rotary_embedding_dim ${rd} must be even and at most the head size ${head}`);
  const half = rd / 2;
  for (const [t, name] of [
    [cosT, "cos_cache"],
    [sinT, "sin_cache"],
  ] as const)
    if (t.shape[t.shape.length - 1] !== half)
      fail(
        ctx,
        `${name}'s last dimension must be rotary_embedding_dim / 2 = ${half}, got ${shapeText(t.shape)}`,
      );
  if (cosT.shape.length !== sinT.shape.length || cosT.shape.some((d, i) => d !== sinT.shape[i]))
    fail(
      ctx,
      `cos_cache ${shapeText(cosT.shape)} and sin_cache ${shapeText(sinT.shape)} differ in shape`,
    );
  // rowOf(b, s): the cache row (times half) holding the angles of token (b, s).
  let rowOf: (bi: number, s: number) => number;
  if (posT) {
    if (posT.dtype !== DataType.INT64)
      fail(ctx, `position_ids must be int64, got ${dtypeName(posT.dtype)}`);
    if (posT.shape.length !== 2 || posT.shape[0] !== b || posT.shape[1] !== seq)
      fail(ctx, `position_ids must have shape [${b},${seq}], got ${shapeText(posT.shape)}`);
    if (cosT.shape.length !== 2)
      fail(
        ctx,
        `with position_ids the caches must be 2-D (max_position, ${half}), got ${shapeText(cosT.shape)}`,
      );
    const maxPos = cosT.shape[0]!;
    const pos = intValues(ctx, posT, "position_ids").map((p) => {
      if (p < -maxPos || p >= maxPos)
        fail(ctx, `position id ${p} is out of range for caches of ${maxPos} positions`);
      return p < 0 ? p + maxPos : p;
    });
    rowOf = (bi, s) => pos[bi * seq + s]! * half;
  } else {
    const cs = cosT.shape;
    if (cs.length !== 3 || (cs[0] !== b && cs[0] !== 1) || (cs[1] !== seq && cs[1] !== 1))
      fail(
        ctx,
        `without position_ids the caches must have shape [${b},${seq},${half}], got ${shapeText(cs)}`,
      );
    const [cb, csq] = [cs[0] === 1 ? 0 : 1, cs[1] === 1 ? 0 : 1];
    rowOf = (bi, s) => (bi * cb * cs[1]! + s * csq) * half;
  }
  const xv = toFloat64(x);
  const cv = toFloat64(cosT);
  const sv = toFloat64(sinT);
  const out = Float64Array.from(xv);
  for (let bi = 0; bi < b; bi++)
    for (let s = 0; s < seq; s++) {
      const row = rowOf(bi, s);
      for (let h = 0; h < heads; h++) {
        const base = bi * sB + s * sS + h * sH;
        for (let j = 0; j < half; j++) {
          const i1 = base + (interleaved ? 2 * j : j);
          const i2 = base + (interleaved ? 2 * j + 1 : j + half);
          const c = cv[row + j]!;
          const sn = sv[row + j]!;
          const x1 = xv[i1]!;
          const x2 = xv[i2]!;
          out[i1] = c * x1 - sn * x2;
          out[i2] = sn * x1 + c * x2;
        }
      }
    }
  return [fromFloat64(x.dtype, [...x.shape], out)];
};

const UPDATE_RULES = new Set(["linear", "gated", "delta", "gated_delta"]);

/**
 * LinearAttention: per (batch, KV head) a state S of (d_k, d_v), run token by token:
 * gated rules first decay S by exp(g_t) (per key dimension or per head), delta rules replace v_t
 * by β_t·(v_t − Sᵀk_t), then S += k_t ⊗ v_t, and each query head reads o_t = scale·q_tᵀS of its
 * KV head (query head h uses KV head ⌊h / (Hq/Hkv)⌋). Inputs are packed (B, T, H·D); the output
 * is (B, T, Hq·d_v) of the query's type; present_state has past_state's type (the query's without it).
 */
const LinearAttention: Kernel = (ctx, inputs) => {
  const q = floatInput(ctx, inputs, 0, "query");
  const k = floatInput(ctx, inputs, 1, "key");
  const v = floatInput(ctx, inputs, 2, "value");
  const pastT = optFloatInput(ctx, inputs, 3, "past_state");
  const decayT = optFloatInput(ctx, inputs, 4, "decay");
  const betaT = optFloatInput(ctx, inputs, 5, "beta");
  for (const [t, name] of [
    [k, "key"],
    [v, "value"],
    [decayT, "decay"],
    [betaT, "beta"],
  ] as const)
    if (t && t.dtype !== q.dtype)
      fail(ctx, `${name} must have query's type ${dtypeName(q.dtype)}, got ${dtypeName(t.dtype)}`);
  const rule = stringAttr(ctx, "update_rule");
  if (!UPDATE_RULES.has(rule))
    fail(ctx, `update_rule must be 'linear', 'gated', 'delta' or 'gated_delta', got '${rule}'`);
  const hq = headsAttr(ctx, "q_num_heads");
  const hkv = headsAttr(ctx, "kv_num_heads");
  if (hq % hkv !== 0) fail(ctx, `q_num_heads ${hq} must be a multiple of kv_num_heads ${hkv}`);
  const gated = rule === "gated" || rule === "gated_delta";
  const delta = rule === "delta" || rule === "gated_delta";
  if (gated !== (decayT !== undefined))
    fail(ctx, `update_rule '${rule}' ${gated ? "requires" : "forbids"} the decay input`);
  if (delta !== (betaT !== undefined))
    fail(ctx, `update_rule '${rule}' ${delta ? "requires" : "forbids"} the beta input`);
  for (const [t, name] of [
    [q, "query"],
    [k, "key"],
    [v, "value"],
  ] as const)
    if (t.shape.length !== 3)
      fail(ctx, `${name} must be 3-D (B, T, H·D), got ${shapeText(t.shape)}`);
  const [b, steps] = q.shape as [number, number];
  for (const [t, name] of [
    [k, "key"],
    [v, "value"],
  ] as const)
    if (t.shape[0] !== b || t.shape[1] !== steps)
      fail(
        ctx,
        `${name} ${shapeText(t.shape)} must share query's batch and length ${shapeText(q.shape)}`,
      );
  if (q.shape[2]! % hq !== 0)
    fail(ctx, `query's last dimension ${q.shape[2]} is not a multiple of q_num_heads ${hq}`);
  const dk = q.shape[2]! / hq;
  if (k.shape[2] !== hkv * dk)
    fail(ctx, `key's last dimension must be kv_num_heads·d_k = ${hkv * dk}, got ${k.shape[2]}`);
  if (v.shape[2]! % hkv !== 0)
    fail(ctx, `value's last dimension ${v.shape[2]} is not a multiple of kv_num_heads ${hkv}`);
  const dv = v.shape[2]! / hkv;
  let decayPerKey = false;
  if (decayT) {
    const last = decayT.shape[2];
    if (decayT.shape.length !== 3 || decayT.shape[0] !== b || decayT.shape[1] !== steps)
      fail(
        ctx,
        `decay must have shape [${b},${steps},${hkv}] or [${b},${steps},${hkv * dk}], got ${shapeText(decayT.shape)}`,
      );
    if (last === hkv * dk) decayPerKey = true;
    else if (last !== hkv)
      fail(
        ctx,
        `decay's last dimension must be kv_num_heads (${hkv}) or kv_num_heads·d_k (${hkv * dk}), got ${last}`,
      );
  }
  let betaPerHead = false;
  if (betaT) {
    const last = betaT.shape[2];
    if (
      betaT.shape.length !== 3 ||
      betaT.shape[0] !== b ||
      betaT.shape[1] !== steps ||
      (last !== hkv && last !== 1)
    )
      fail(
        ctx,
        `beta must have shape [${b},${steps},${hkv}] or [${b},${steps},1], got ${shapeText(betaT.shape)}`,
      );
    betaPerHead = last === hkv;
  }
  const stateShape = [b, hkv, dk, dv];
  if (pastT && (pastT.shape.length !== 4 || pastT.shape.some((d, i) => d !== stateShape[i])))
    fail(ctx, `past_state must have shape ${shapeText(stateShape)}, got ${shapeText(pastT.shape)}`);
  const scaleAttr = floatAttr(ctx, "scale");
  const scale = scaleAttr !== 0 ? scaleAttr : 1 / Math.sqrt(dk);
  checkedCount(ctx, [b, steps, hq * dv]);

  const qv = toFloat64(q);
  const kv = toFloat64(k);
  const vv = toFloat64(v);
  const gv = decayT ? toFloat64(decayT) : undefined;
  const bv = betaT ? toFloat64(betaT) : undefined;
  const state = pastT ? toFloat64(pastT) : scratch(Float64Array, b * hkv * dk * dv);
  const out = scratch(Float64Array, b * steps * hq * dv);
  const group = hq / hkv;
  const w = scratch(Float64Array, dv);
  for (let bi = 0; bi < b; bi++)
    for (let t = 0; t < steps; t++)
      for (let h = 0; h < hkv; h++) {
        const sBase = (bi * hkv + h) * dk * dv;
        const kBase = ((bi * steps + t) * hkv + h) * dk;
        const vBase = ((bi * steps + t) * hkv + h) * dv;
        if (gv) {
          const gBase = decayPerKey ? kBase : (bi * steps + t) * hkv + h;
          for (let i = 0; i < dk; i++) {
            const f = Math.exp(gv[decayPerKey ? gBase + i : gBase]!);
            for (let j = 0; j < dv; j++) state[sBase + i * dv + j] = state[sBase + i * dv + j]! * f;
          }
        }
        for (let j = 0; j < dv; j++) w[j] = vv[vBase + j]!;
        if (bv) {
          const beta = bv[betaPerHead ? (bi * steps + t) * hkv + h : bi * steps + t]!;
          for (let j = 0; j < dv; j++) {
            let retrieved = 0;
            for (let i = 0; i < dk; i++) retrieved += state[sBase + i * dv + j]! * kv[kBase + i]!;
            w[j] = beta * (w[j]! - retrieved);
          }
        }
        for (let i = 0; i < dk; i++) {
          const ki = kv[kBase + i]!;
          for (let j = 0; j < dv; j++)
            state[sBase + i * dv + j] = state[sBase + i * dv + j]! + ki * w[j]!;
        }
        for (let g = 0; g < group; g++) {
          const qh = h * group + g;
          const qBase = ((bi * steps + t) * hq + qh) * dk;
          const oBase = ((bi * steps + t) * hq + qh) * dv;
          for (let j = 0; j < dv; j++) {
            let acc = 0;
            for (let i = 0; i < dk; i++) acc += qv[qBase + i]! * state[sBase + i * dv + j]!;
            out[oBase + j] = scale * acc;
          }
        }
      }
  return [
    fromFloat64(q.dtype, [b, steps, hq * dv], out),
    fromFloat64(pastT ? pastT.dtype : q.dtype, stateShape, state),
  ];
};

export const attentionKernels: Record<string, Kernel> = {
  Attention,
  RotaryEmbedding,
  LinearAttention,
};

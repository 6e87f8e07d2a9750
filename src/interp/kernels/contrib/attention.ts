// onnxruntime's attention operators (com.microsoft): Attention, MultiHeadAttention,
// GroupQueryAttention and RotaryEmbedding, in float64, each output rounded once to its type.
//
// Masks as onnxruntime's CPU kernels apply them: a raw key mask (0 = masked) or key lengths add
// `mask_filter_value` (-10000) to the masked scores; causal masks (unidirectional, and
// GroupQueryAttention always) and keys past a row's length are left out. The input forms
// onnxruntime's tools write are supported (Attention: packed weights, 1-D/2-D/3-D/4-D masks, past;
// MultiHeadAttention: separate, packed QKV or KV, 4-D key/value, past; GroupQueryAttention: packed
// or separate QKV, past, rotary); others are refused with the reason.

import { GQA_UNSUPPORTED_INPUTS } from "../../../schema/limits.js";
import { fromFloat64, toFloat64, scratch } from "../../tensor.js";
import type { Kernel, KernelContext, RTensor } from "../../types.js";
import { floatAttr, intAttr } from "../attrs.js";
import { fail, floatInput, input, optInput, optInputs } from "../util.js";

/** Heads of one tensor: values [B, N, L, H] in float64. */
interface Heads {
  v: Float64Array;
  B: number;
  N: number;
  L: number;
  H: number;
}

/**
 * [B, L, N*H] (row-major) → heads [B, N, L, H]: head n of row (b, l) read from
 * `(b * L + l) * stride + offset + n * headStride` on.
 */
function splitHeads(
  x: Float64Array,
  B: number,
  L: number,
  N: number,
  H: number,
  stride = N * H,
  offset = 0,
  headStride = H,
): Heads {
  const v = scratch(Float64Array, B * N * L * H);
  for (let b = 0; b < B; b++)
    for (let l = 0; l < L; l++)
      for (let n = 0; n < N; n++)
        for (let h = 0; h < H; h++)
          v[((b * N + n) * L + l) * H + h] = x[(b * L + l) * stride + offset + n * headStride + h]!;
  return { v, B, N, L, H };
}

/**
 * Part j of m packed in [B, L, N, m, H] (onnxruntime's packed QKV and KV) as heads [B, N, L, H],
 * plus the bias entries from `biasAt` on ([N, H]) when given (0 added without: -0 becomes 0).
 */
function packedPart(
  x: Float64Array,
  B: number,
  L: number,
  N: number,
  H: number,
  m: number,
  j: number,
  bias: Float64Array | undefined,
  biasAt: number,
): Heads {
  const heads = splitHeads(x, B, L, N, H, N * m * H, j * H, m * H);
  const v = heads.v;
  for (let i = 0; i < v.length; i++) {
    const n = Math.floor(i / (L * H)) % N;
    v[i] = v[i]! + (bias ? bias[biasAt + n * H + (i % H)]! : 0);
  }
  return heads;
}

/** Heads [B, N, L, H] concatenated after `past` [B, N, P, H] along L. */
function concatPast(past: Heads | undefined, x: Heads): Heads {
  if (!past || past.L === 0) return x;
  const { B, N, H } = x;
  const L = past.L + x.L;
  const v = scratch(Float64Array, B * N * L * H);
  for (let b = 0; b < B; b++)
    for (let n = 0; n < N; n++) {
      v.set(
        past.v.subarray((b * N + n) * past.L * H, (b * N + n + 1) * past.L * H),
        (b * N + n) * L * H,
      );
      v.set(
        x.v.subarray((b * N + n) * x.L * H, (b * N + n + 1) * x.L * H),
        ((b * N + n) * L + past.L) * H,
      );
    }
  return { v, B, N, L, H };
}

function heads4(t: RTensor): Heads {
  const [B, N, L, H] = t.shape as [number, number, number, number];
  return { v: toFloat64(t), B, N, L, H };
}

/** What masks one score: the value added (0: kept), or -Infinity (left out). */
type Mask = (b: number, n: number, s: number, t: number) => number;

/**
 * softmax(scale · q kᵀ (softcapped) + mask) v for every query head; query head n reads key/value
 * head floor(n / (Nq / Nkv)). Returns [B, S, Nq * Hv]. A row with every key left out gives 0.
 */
function attend(
  q: Heads,
  k: Heads,
  v: Heads,
  scale: number,
  mask: Mask,
  softcap = 0,
  probs?: Float64Array,
): Float64Array {
  const { B, N, L: S, H } = q;
  const T = k.L;
  const Hv = v.H;
  const group = N / k.N;
  const out = scratch(Float64Array, B * S * N * Hv);
  const w = scratch(Float64Array, T);
  for (let b = 0; b < B; b++)
    for (let n = 0; n < N; n++) {
      const kn = Math.floor(n / group);
      for (let s = 0; s < S; s++) {
        let max = -Infinity;
        const qo = ((b * N + n) * S + s) * H;
        for (let t = 0; t < T; t++) {
          const m = mask(b, n, s, t);
          if (m === -Infinity) {
            w[t] = -Infinity;
            continue;
          }
          const ko = ((b * k.N + kn) * T + t) * H;
          let d = 0;
          for (let h = 0; h < H; h++) d += q.v[qo + h]! * k.v[ko + h]!;
          d *= scale;
          if (softcap > 0) d = softcap * Math.tanh(d / softcap);
          w[t] = d + m;
          if (w[t]! > max) max = w[t]!;
        }
        let sum = 0;
        for (let t = 0; t < T; t++) {
          w[t] = max === -Infinity ? 0 : Math.exp(w[t]! - max);
          sum += w[t]!;
        }
        const oo = ((b * S + s) * N + n) * Hv;
        for (let t = 0; t < T; t++) {
          const p = sum > 0 ? w[t]! / sum : 0;
          if (probs) probs[((b * N + n) * S + s) * T + t] = p;
          if (p === 0) continue;
          const vo = ((b * v.N + kn) * T + t) * Hv;
          for (let h = 0; h < Hv; h++) out[oo + h] += p * v.v[vo + h]!;
        }
      }
    }
  return out;
}

/** Heads [B, N, L, H] as a tensor of `dtype` of shape [B, N, L, H]. */
function headsTensor(x: Heads, dtype: number): RTensor {
  return fromFloat64(dtype, [x.B, x.N, x.L, x.H], x.v);
}

/**
 * A key mask of onnxruntime's forms for B rows, S queries and T keys (P of them past): [B] key
 * lengths (right padding), [2B] end and start positions (left padding), raw [B, T], [B, S, T]
 * or [B, 1, M, M] masks (0 = masked). Masked scores get `filter` added.
 */
function keyMask(
  ctx: KernelContext,
  m: RTensor | undefined,
  B: number,
  S: number,
  T: number,
  filter: number,
): Mask {
  if (!m) return () => 0;
  const mv = toFloat64(m);
  const sh = m.shape;
  if (sh.length === 1 && sh[0] === B) return (b, _n, _s, t) => (t < mv[b]! ? 0 : filter);
  if (sh.length === 1 && sh[0] === 2 * B)
    return (b, _n, _s, t) => (t < mv[b]! && t >= mv[B + b]! ? 0 : filter);
  if (sh.length === 2 && sh[0] === B && sh[1] === T)
    return (b, _n, _s, t) => (mv[b * T + t] !== 0 ? 0 : filter);
  if (sh.length === 3 && sh[0] === B && sh[1] === S && sh[2] === T)
    return (b, _n, s, t) => (mv[(b * S + s) * T + t] !== 0 ? 0 : filter);
  if (sh.length === 4 && sh[0] === B && sh[1] === 1) {
    const M = sh[2]!;
    const P = T - S;
    return (b, _n, s, t) => (mv[(b * M + P + s) * sh[3]! + t] !== 0 ? 0 : filter);
  }
  return fail(
    ctx,
    `a mask of shape [${sh.join(",")}] is not supported (batch ${B}, ${S} queries, ${T} keys)`,
  );
}

/** An additive attention bias [B or 1, N or 1, S, T]. */
function biasMask(
  ctx: KernelContext,
  t: RTensor | undefined,
  B: number,
  N: number,
  S: number,
  T: number,
): Mask {
  if (!t) return () => 0;
  const v = toFloat64(t);
  const [b0, n0, s0, t0] = t.shape as [number, number, number, number];
  if (
    t.shape.length !== 4 ||
    (b0 !== 1 && b0 !== B) ||
    (n0 !== 1 && n0 !== N) ||
    s0 !== S ||
    t0 !== T
  )
    fail(
      ctx,
      `attention_bias must be [${B} or 1, ${N} or 1, ${S}, ${T}], got [${t.shape.join(",")}]`,
    );
  return (b, n, s, k) => v[(((b0 === 1 ? 0 : b) * n0 + (n0 === 1 ? 0 : n)) * S + s) * T + k]!;
}

const both =
  (...masks: Mask[]): Mask =>
  (b, n, s, t) => {
    let m = 0;
    for (const f of masks) {
      const x = f(b, n, s, t);
      if (x === -Infinity) return x;
      m += x;
    }
    return m;
  };

/** Causal: query s (absolute position offset + s) sees keys t <= offset + s. */
const causal =
  (offset: (b: number) => number): Mask =>
  (b, _n, s, t) =>
    t <= offset(b) + s ? 0 : -Infinity;

function scaleOf(ctx: KernelContext, head: number): number {
  const s = floatAttr(ctx, "scale", { without: 0 });
  return s !== 0 ? s : 1 / Math.sqrt(head);
}

/** Attention (com.microsoft): input · weights + bias split into Q, K, V, heads, past, masks. */
const Attention: Kernel = (ctx, inputs) => {
  const x = floatInput(ctx, inputs, 0, "input");
  const w = input(ctx, inputs, 1);
  const [bias, maskT, pastT, biasT] = optInputs(ctx, inputs, 2, 4);
  if (optInput(ctx, inputs, 6) || intAttr(ctx, "past_present_share_buffer") === 1)
    fail(ctx, "past_present_share_buffer is not supported");
  if (intAttr(ctx, "do_rotary") === 1) fail(ctx, "do_rotary = 1 is not supported");
  const N = intAttr(ctx, "num_heads");
  if (x.shape.length !== 3) fail(ctx, "input must be [batch, sequence, hidden]");
  const [B, S, D] = x.shape as [number, number, number];
  const sizesAttr = ctx.node.attributes.find((a) => a.name === "qkv_hidden_sizes");
  const total = w.shape[1]!;
  const sizes =
    sizesAttr && sizesAttr.type === "INTS" && sizesAttr.value
      ? sizesAttr.value.map(Number)
      : [total / 3, total / 3, total / 3];
  const [Dq, Dk, Dv] = sizes as [number, number, number];
  if (Dq + Dk + Dv !== total || w.shape[0] !== D)
    fail(ctx, "weights do not fit input and qkv_hidden_sizes");
  const xv = toFloat64(x);
  const wv = toFloat64(w);
  const bv = bias ? toFloat64(bias) : undefined;
  const proj = scratch(Float64Array, B * S * total);
  for (let r = 0; r < B * S; r++)
    for (let c = 0; c < total; c++) {
      let s = bv ? bv[c]! : 0;
      for (let d = 0; d < D; d++) s += xv[r * D + d]! * wv[d * total + c]!;
      proj[r * total + c] = s;
    }
  const q = splitHeads(proj, B, S, N, Dq / N, total, 0);
  let k = splitHeads(proj, B, S, N, Dk / N, total, Dq);
  let v = splitHeads(proj, B, S, N, Dv / N, total, Dq + Dk);
  let P = 0;
  if (pastT) {
    const [two, pb, pn, pl, ph] = pastT.shape as number[];
    if (two !== 2 || pb !== B || pn !== N || ph !== Dk / N)
      fail(ctx, `past must be [2, ${B}, ${N}, past, ${Dk / N}]`);
    const pv = toFloat64(pastT);
    const half = B * N * pl! * ph!;
    P = pl!;
    k = concatPast({ v: pv.subarray(0, half), B, N, L: P, H: ph! }, k);
    v = concatPast({ v: pv.subarray(half), B, N, L: P, H: ph! }, v);
  }
  const T = P + S;
  const filter = floatAttr(ctx, "mask_filter_value");
  const masks = [keyMask(ctx, maskT, B, S, T, filter), biasMask(ctx, biasT, B, N, S, T)];
  if (intAttr(ctx, "unidirectional") === 1) masks.push(causal(() => P));
  const out = attend(q, k, v, scaleOf(ctx, Dq / N), both(...masks));
  const present = scratch(Float64Array, 2 * k.v.length);
  present.set(k.v);
  present.set(v.v, k.v.length);
  return [
    fromFloat64(x.dtype, [B, S, Dv], out),
    fromFloat64(x.dtype, [2, B, N, T, Dk / N], present),
  ];
};

/**
 * MultiHeadAttention: query [B, S, D] (or packed QKV [B, S, N, 3, H]), key/value [B, L, D] (or
 * packed KV [B, L, N, 2, H], or 4-D [B, N, L, H] already in heads), bias [3D] added to the 3-D
 * ones, past_key/past_value, key_padding_mask, attention_bias, unidirectional.
 */
const MultiHeadAttention: Kernel = (ctx, inputs) => {
  const query = floatInput(ctx, inputs, 0, "query");
  const [key, value, bias, padT, biasT, pastK, pastV] = optInputs(ctx, inputs, 1, 7);
  if (optInput(ctx, inputs, 8) || optInput(ctx, inputs, 9))
    fail(
      ctx,
      "past_sequence_length and cache_indirection (buffer sharing, beam search) are not supported",
    );
  const N = intAttr(ctx, "num_heads");
  const bv = bias ? toFloat64(bias) : undefined;
  const qv = toFloat64(query);
  const B = query.shape[0]!;
  const S = query.shape[1]!;
  let q: Heads;
  let k: Heads;
  let v: Heads;
  if (query.shape.length === 5) {
    // packed QKV [B, S, N, 3, H]
    const H = query.shape[4]!;
    if (key || value) fail(ctx, "packed QKV takes no key or value");
    const pick = (j: number) => packedPart(qv, B, S, N, H, 3, j, bv, j * N * H);
    q = pick(0);
    k = pick(1);
    v = pick(2);
  } else {
    if (query.shape.length !== 3) fail(ctx, "query must be 3-D or packed 5-D");
    const D = query.shape[2]!;
    const H = D / N;
    const withBias = (x: Float64Array, off: number, width: number) => {
      if (!bv) return x;
      const o = scratch(Float64Array, x.length);
      for (let i = 0; i < x.length; i++) o[i] = x[i]! + bv[off + (i % width)]!;
      return o;
    };
    q = splitHeads(withBias(qv, 0, D), B, S, N, H);
    if (!key) fail(ctx, "key is required unless query is packed QKV");
    const kv = toFloat64(key);
    if (key.shape.length === 5) {
      // packed KV [B, L, N, 2, H]
      const L = key.shape[1]!;
      const pick = (j: number) => packedPart(kv, B, L, N, H, 2, j, bv, (1 + j) * D);
      k = pick(0);
      v = pick(1);
    } else if (key.shape.length === 4) {
      if (!value || value.shape.length !== 4) fail(ctx, "a 4-D key needs a 4-D value");
      k = heads4(key);
      v = heads4(value);
    } else {
      if (!value) fail(ctx, "value is required with a 3-D key");
      const L = key.shape[1]!;
      const Dv = value.shape[2]!;
      k = splitHeads(withBias(kv, D, D), B, L, N, H);
      v = splitHeads(withBias(toFloat64(value), 2 * D, Dv), B, L, N, Dv / N);
    }
  }
  const past = pastK && pastV ? [heads4(pastK), heads4(pastV)] : undefined;
  const P = past ? past[0]!.L : 0;
  k = concatPast(past?.[0], k);
  v = concatPast(past?.[1], v);
  const T = k.L;
  const filter = floatAttr(ctx, "mask_filter_value");
  const masks = [keyMask(ctx, padT, B, S, T, filter), biasMask(ctx, biasT, B, N, S, T)];
  if (intAttr(ctx, "unidirectional") === 1) masks.push(causal(() => P));
  const probs = ctx.node.outputs[3] ? scratch(Float64Array, B * N * S * T) : undefined;
  const out = attend(q, k, v, scaleOf(ctx, q.H), both(...masks), 0, probs);
  const dt = query.dtype;
  const outs = [fromFloat64(dt, [B, S, N * v.H], out), headsTensor(k, dt), headsTensor(v, dt)];
  if (probs) outs.push(fromFloat64(dt, [B, N, S, T], probs));
  return outs;
};

/**
 * Rotary embedding of heads [B, N, L, H] in place: position p of row (b, l) from `pos`, the first
 * `rot` dims of each head rotated by cos/sin [max, rot / 2]: halves (x1, x2) → (x1 cos − x2 sin,
 * x2 cos + x1 sin), or interleaved pairs.
 */
function rotate(
  ctx: KernelContext,
  x: Heads,
  pos: (b: number, l: number) => number,
  cos: RTensor,
  sin: RTensor,
  interleaved: boolean,
  rotDim = 0,
): void {
  const half = cos.shape[1]!;
  const rot = rotDim || 2 * half;
  if (rot > x.H || rot / 2 > half)
    fail(ctx, `rotary dimension ${rot} does not fit head size ${x.H} and caches of width ${half}`);
  const cv = toFloat64(cos);
  const sv = toFloat64(sin);
  const max = cos.shape[0]!;
  const r2 = rot / 2;
  for (let b = 0; b < x.B; b++)
    for (let l = 0; l < x.L; l++) {
      const p = pos(b, l);
      if (!(p >= 0 && p < max)) fail(ctx, `position ${p} is outside the caches (${max} positions)`);
      for (let n = 0; n < x.N; n++) {
        const o = ((b * x.N + n) * x.L + l) * x.H;
        for (let i = 0; i < r2; i++) {
          const c = cv[p * half + i]!;
          const s = sv[p * half + i]!;
          const [i1, i2] = interleaved ? [o + 2 * i, o + 2 * i + 1] : [o + i, o + i + r2];
          const a = x.v[i1]!;
          const bb = x.v[i2]!;
          x.v[i1] = a * c - bb * s;
          x.v[i2] = bb * c + a * s;
        }
      }
    }
}

/** RotaryEmbedding (com.microsoft): input [B, S, hidden] (num_heads, or head size from the caches) or [B, N, S, H]. */
const RotaryEmbedding: Kernel = (ctx, inputs) => {
  const x = floatInput(ctx, inputs, 0, "input");
  const posT = input(ctx, inputs, 1);
  const cos = input(ctx, inputs, 2);
  const sin = input(ctx, inputs, 3);
  if (intAttr(ctx, "is_packed_batching") === 1)
    fail(ctx, "is_packed_batching = 1 is not supported");
  const interleaved = intAttr(ctx, "interleaved") === 1;
  const rotDim = intAttr(ctx, "rotary_embedding_dim");
  const scale = floatAttr(ctx, "scale");
  if (scale !== 1) fail(ctx, "scale other than 1 is not supported");
  const pv = toFloat64(posT);
  const B = x.shape[0]!;
  let heads: Heads;
  let threeD = false;
  if (x.shape.length === 4) heads = heads4(x);
  else if (x.shape.length === 3) {
    threeD = true;
    const [, S, D] = x.shape as [number, number, number];
    const nAttr = intAttr(ctx, "num_heads");
    const H = nAttr > 0 ? D / nAttr : 2 * cos.shape[1]!;
    heads = splitHeads(toFloat64(x), B, S, D / H, H);
  } else fail(ctx, "input must be 3-D or 4-D");
  const L = heads.L;
  const pos = (b: number, l: number) =>
    pv.length === 1 ? pv[0]! + l : pv[posT.shape.length === 2 ? b * L + l : l]!;
  rotate(ctx, heads, pos, cos, sin, interleaved, rotDim);
  if (!threeD) return [headsTensor(heads, x.dtype)];
  const out = scratch(Float64Array, heads.v.length);
  const { N, H } = heads;
  for (let b = 0; b < B; b++)
    for (let n = 0; n < N; n++)
      for (let l = 0; l < L; l++)
        for (let h = 0; h < H; h++)
          out[((b * L + l) * N + n) * H + h] = heads.v[((b * N + n) * L + l) * H + h]!;
  return [fromFloat64(x.dtype, [...x.shape], out)];
};

/**
 * GroupQueryAttention: causal attention of num_heads query heads over kv_num_heads key/value
 * heads. Row b holds seqlens_k[b] + 1 tokens in all; its new tokens (S of them) follow the
 * row's past (none on a first prompt, where total_sequence_length equals S). Q and K are rotated
 * (do_rotary) at their absolute positions, or position_ids. present_key/present_value: the past
 * with the new keys/values written at the row's past length, [B, kv, max(total, past), H].
 */
const GroupQueryAttention: Kernel = (ctx, inputs) => {
  const query = floatInput(ctx, inputs, 0, "query");
  const [key, value, pastK, pastV] = optInputs(ctx, inputs, 1, 4);
  const seqlens = toFloat64(input(ctx, inputs, 5));
  // onnxruntime refuses a negative length (group_query_attention_helper.h); so does the body.
  const negative = seqlens.findIndex((v) => v < 0);
  if (negative >= 0)
    fail(ctx, `seqlens_k[${negative}] is ${seqlens[negative]}; a length must be 0 or more`);
  const total = toFloat64(input(ctx, inputs, 6))[0]!;
  const [cos, sin, posIds, biasT] = optInputs(ctx, inputs, 7, 4);
  for (const [i, what] of GQA_UNSUPPORTED_INPUTS)
    if (optInput(ctx, inputs, i)) fail(ctx, `${what} is not supported`);
  if (intAttr(ctx, "smooth_softmax") === 1) fail(ctx, "smooth_softmax is not supported");
  if (intAttr(ctx, "causal") !== 1) fail(ctx, "causal = 0 is not supported");
  const N = intAttr(ctx, "num_heads");
  const Nkv = intAttr(ctx, "kv_num_heads");
  if (query.shape.length !== 3) fail(ctx, "query must be [batch, sequence, hidden]");
  const [B, S, D] = query.shape as [number, number, number];
  const qv = toFloat64(query);
  let q: Heads;
  let k: Heads;
  let v: Heads;
  if (!key) {
    const H = D / (N + 2 * Nkv);
    q = splitHeads(qv, B, S, N, H, D, 0);
    k = splitHeads(qv, B, S, Nkv, H, D, N * H);
    v = splitHeads(qv, B, S, Nkv, H, D, (N + Nkv) * H);
  } else {
    if (!value) fail(ctx, "value is required with key");
    const H = D / N;
    q = splitHeads(qv, B, S, N, H);
    k = splitHeads(toFloat64(key), B, S, Nkv, H);
    v = splitHeads(toFloat64(value), B, S, Nkv, value.shape[2]! / Nkv);
  }
  const H = q.H;
  const firstPrompt = !pastK || (pastK.shape[2] === 0 && total === S);
  const pastLen = (b: number) => (firstPrompt ? 0 : seqlens[b]! + 1 - S);
  const rowLen = (b: number) => seqlens[b]! + 1;
  if (intAttr(ctx, "do_rotary") === 1) {
    if (!cos || !sin) fail(ctx, "do_rotary needs cos_cache and sin_cache");
    const pv = posIds ? toFloat64(posIds) : undefined;
    const pos = (b: number, l: number) => (pv ? pv[b * S + l]! : pastLen(b) + l);
    const inter = intAttr(ctx, "rotary_interleaved") === 1;
    rotate(ctx, q, pos, cos, sin, inter);
    rotate(ctx, k, pos, cos, sin, inter);
  }
  // present: the past buffer (or one of `total` positions) with the new keys at each row's past length
  const pastBuf = pastK ? pastK.shape[2]! : 0;
  const T = Math.max(total, pastBuf);
  const present = (past: RTensor | undefined, x: Heads): Heads => {
    const Hx = x.H;
    const out = scratch(Float64Array, B * Nkv * T * Hx);
    const pv = past ? toFloat64(past) : undefined;
    for (let b = 0; b < B; b++)
      for (let n = 0; n < Nkv; n++) {
        const o = (b * Nkv + n) * T * Hx;
        const p = pastLen(b);
        if (pv)
          for (let l = 0; l < p; l++)
            for (let h = 0; h < Hx; h++)
              out[o + l * Hx + h] = pv[((b * Nkv + n) * pastBuf + l) * Hx + h]!;
        for (let l = 0; l < S; l++)
          for (let h = 0; h < Hx; h++)
            out[o + (p + l) * Hx + h] = x.v[((b * Nkv + n) * S + l) * Hx + h]!;
      }
    return { v: out, B, N: Nkv, L: T, H: Hx };
  };
  const kAll = present(pastK, k);
  const vAll = present(pastV, v);
  const window = intAttr(ctx, "local_window_size");
  const masks: Mask[] = [
    (b, _n, s, t) => {
      const p = pastLen(b) + s;
      if (t > p || t >= rowLen(b)) return -Infinity;
      if (window >= 0 && t <= p - window) return -Infinity;
      return 0;
    },
    biasMask(ctx, biasT, B, N, S, T),
  ];
  const softcap = floatAttr(ctx, "softcap");
  const out = attend(q, kAll, vAll, scaleOf(ctx, H), both(...masks), softcap);
  const cacheType = pastK ? pastK.dtype : query.dtype;
  return [
    fromFloat64(query.dtype, [B, S, N * vAll.H], out),
    headsTensor(kAll, cacheType),
    headsTensor(vAll, cacheType),
  ];
};

export const attentionKernels: Record<string, Kernel> = {
  Attention,
  MultiHeadAttention,
  GroupQueryAttention,
  RotaryEmbedding,
};

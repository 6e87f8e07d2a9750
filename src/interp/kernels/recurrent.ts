// RNN, GRU and LSTM (forward, reverse, bidirectional; sequence_lens; layout 0/1; named
// activations with alpha/beta; clip; LSTM peepholes and input_forget; GRU linear_before_reset).
// Layout 1 reads X and the initial states batch-first, and writes the outputs so.
// Computed in float64, rounded once to the output type.

import { attrFloat, attrInt, getAttr } from "../../ir/attributes.js";
import { fromFloat64, isFloatType, toFloat64, scratch } from "../tensor.js";
import type { Kernel, KernelContext, RTensor } from "../types.js";
import { checkedCount, fail, input, intValues, optInput } from "./util.js";
import { intAttr, stringAttr } from "./attrs.js";

type Act = (x: number) => number;

function activationByName(
  ctx: KernelContext,
  name: string,
  alpha: number | undefined,
  beta: number | undefined,
): Act {
  switch (name.toLowerCase()) {
    case "sigmoid":
      return (x) => 1 / (1 + Math.exp(-x));
    case "tanh":
      return Math.tanh;
    case "relu":
      return (x) => Math.max(0, x);
    case "affine":
      return (x) => (alpha ?? 1) * x + (beta ?? 0);
    case "leakyrelu":
      return (x) => (x < 0 ? (alpha ?? 0.01) * x : x);
    case "thresholdedrelu":
      return (x) => (x > (alpha ?? 1) ? x : 0);
    case "scaledtanh":
      return (x) => (alpha ?? 1) * Math.tanh((beta ?? 1) * x);
    case "hardsigmoid":
      return (x) => Math.max(0, Math.min(1, (alpha ?? 0.2) * x + (beta ?? 0.5)));
    case "elu":
      return (x) => (x < 0 ? (alpha ?? 1) * Math.expm1(x) : x);
    case "softsign":
      return (x) => x / (1 + Math.abs(x));
    case "softplus":
      return (x) => Math.log1p(Math.exp(x));
  }
  return fail(ctx, `activation '${name}' is not supported`);
}

/** The activations that read an activation_alpha (in order), and an activation_beta. */
export const TAKES_ALPHA = new Set([
  "affine",
  "leakyrelu",
  "thresholdedrelu",
  "scaledtanh",
  "hardsigmoid",
  "elu",
]);
export const TAKES_BETA = new Set(["affine", "scaledtanh", "hardsigmoid"]);

/** The activations per direction, reading alphas/betas in order for those that take them. */
function activations(ctx: KernelContext, defaults: string[], dirs: number): Act[][] {
  const a = getAttr(ctx.node, "activations");
  const names =
    a && a.type === "STRINGS" && a.value?.length
      ? a.value
      : [...defaults, ...(dirs === 2 ? defaults : [])];
  const alphaA = getAttr(ctx.node, "activation_alpha");
  const betaA = getAttr(ctx.node, "activation_beta");
  const alphas = alphaA && alphaA.type === "FLOATS" ? [...(alphaA.value ?? [])] : [];
  const betas = betaA && betaA.type === "FLOATS" ? [...(betaA.value ?? [])] : [];
  const acts = names.map((n) => {
    const key = n.toLowerCase();
    const alpha = TAKES_ALPHA.has(key) ? alphas.shift() : undefined;
    const beta = TAKES_BETA.has(key) ? betas.shift() : undefined;
    return activationByName(ctx, n, alpha, beta);
  });
  const per = defaults.length;
  if (acts.length < per * dirs) fail(ctx, `needs ${per * dirs} activations, got ${acts.length}`);
  return Array.from({ length: dirs }, (_, d) => acts.slice(d * per, (d + 1) * per));
}

type Kind = "RNN" | "GRU" | "LSTM";

function recurrent(kind: Kind): Kernel {
  const gates = kind === "RNN" ? 1 : kind === "GRU" ? 3 : 4;
  const defaults =
    kind === "RNN" ? ["Tanh"] : kind === "GRU" ? ["Sigmoid", "Tanh"] : ["Sigmoid", "Tanh", "Tanh"];
  return (ctx, inputs) => {
    const xT = input(ctx, inputs, 0);
    if (!isFloatType(xT.dtype)) fail(ctx, "X must be floating point");
    const wT = input(ctx, inputs, 1);
    const rT = input(ctx, inputs, 2);
    const bT = optInput(ctx, inputs, 3);
    const lensT = optInput(ctx, inputs, 4);
    const h0T = optInput(ctx, inputs, 5);
    const c0T = kind === "LSTM" ? optInput(ctx, inputs, 6) : undefined;
    const pT = kind === "LSTM" ? optInput(ctx, inputs, 7) : undefined;
    const layout = intAttr(ctx, "layout", { without: 0 });
    // GRU-1 spells its default "foward": like "forward", it is neither of the two others.
    const direction = stringAttr(ctx, "direction");
    const dirs = direction === "bidirectional" ? 2 : 1;
    const hidden = attrInt(ctx.node, "hidden_size", wT.shape[1]! / gates);
    const clip = attrFloat(ctx.node, "clip", Infinity);
    const inputForget = intAttr(ctx, "input_forget", { without: 0 }) !== 0;
    const lbr = intAttr(ctx, "linear_before_reset", { without: 0 }) !== 0;
    if (xT.shape.length !== 3) fail(ctx, "X must be 3-D");
    const [seq, batch, inSize] =
      layout === 0
        ? (xT.shape as [number, number, number])
        : [xT.shape[1]!, xT.shape[0]!, xT.shape[2]!];
    if (wT.shape[0] !== dirs || wT.shape[1] !== gates * hidden || wT.shape[2] !== inSize)
      fail(
        ctx,
        `W has shape [${wT.shape.join(",")}], [${dirs},${gates * hidden},${inSize}] expected`,
      );
    const H = hidden;
    const x = toFloat64(xT);
    const W = toFloat64(wT);
    const R = toFloat64(rT);
    const B = bT ? toFloat64(bT) : scratch(Float64Array, dirs * 2 * gates * H);
    const P = pT ? toFloat64(pT) : scratch(Float64Array, dirs * 3 * H);
    const lens = lensT
      ? intValues(ctx, lensT, "sequence_lens")
      : new Array<number>(batch).fill(seq);
    const h0 = h0T ? toFloat64(h0T) : scratch(Float64Array, dirs * batch * H);
    const c0 = c0T ? toFloat64(c0T) : scratch(Float64Array, dirs * batch * H);
    const acts = activations(ctx, defaults, dirs);
    checkedCount(ctx, [seq, dirs, batch, H]);
    const Y = scratch(Float64Array, seq * dirs * batch * H);
    const Yh = scratch(Float64Array, dirs * batch * H);
    const Yc = scratch(Float64Array, dirs * batch * H);
    const xAt = (t: number, b: number, i: number) =>
      x[layout === 0 ? (t * batch + b) * inSize + i : (b * seq + t) * inSize + i]!;
    const cl = (v: number) => (v > clip ? clip : v < -clip ? -clip : v);
    const g = scratch(Float64Array, gates * H);
    for (let d = 0; d < dirs; d++) {
      const reverse = direction === "reverse" || d === 1;
      const [f, gAct, hAct] = acts[d]!;
      const Wd = d * gates * H * inSize;
      const Rd = d * gates * H * H;
      const Bd = d * 2 * gates * H;
      const Pd = d * 3 * H;
      for (let b = 0; b < batch; b++) {
        // the initial states are [dirs, batch, H] (layout 1: [batch, dirs, H])
        const at = (layout === 0 ? d * batch + b : b * dirs + d) * H;
        const h = h0.slice(at, at + H);
        const c = c0.slice(at, at + H);
        const len = Math.min(lens[b]!, seq);
        for (let step = 0; step < len; step++) {
          const t = reverse ? len - 1 - step : step;
          // g = X_t W^T + Wb (+ H R^T + Rb, except GRU's hidden gate handled below)
          for (let k = 0; k < gates * H; k++) {
            let s = B[Bd + k]!;
            for (let i = 0; i < inSize; i++) s += xAt(t, b, i) * W[Wd + k * inSize + i]!;
            const recurrentPart = kind === "GRU" && k >= 2 * H;
            if (!recurrentPart) {
              s += B[Bd + gates * H + k]!;
              for (let j = 0; j < H; j++) s += h[j]! * R[Rd + k * H + j]!;
            }
            g[k] = s;
          }
          if (kind === "RNN") {
            for (let j = 0; j < H; j++) h[j] = f!(cl(g[j]!));
          } else if (kind === "GRU") {
            const z = new Float64Array(H);
            const r = new Float64Array(H);
            for (let j = 0; j < H; j++) {
              z[j] = f!(cl(g[j]!));
              r[j] = f!(cl(g[H + j]!));
            }
            const hNew = new Float64Array(H);
            for (let j = 0; j < H; j++) {
              const k = 2 * H + j;
              const rb = B[Bd + gates * H + k]!;
              let rec = 0;
              if (lbr) {
                for (let q = 0; q < H; q++) rec += h[q]! * R[Rd + k * H + q]!;
                rec = r[j]! * (rec + rb);
              } else {
                for (let q = 0; q < H; q++) rec += r[q]! * h[q]! * R[Rd + k * H + q]!;
                rec += rb;
              }
              hNew[j] = gAct!(cl(g[k]! + rec));
            }
            for (let j = 0; j < H; j++) h[j] = (1 - z[j]!) * hNew[j]! + z[j]! * h[j]!;
          } else {
            for (let j = 0; j < H; j++) {
              const iG = f!(cl(g[j]! + P[Pd + j]! * c[j]!));
              let fG = f!(cl(g[2 * H + j]! + P[Pd + 2 * H + j]! * c[j]!));
              if (inputForget) fG = 1 - iG;
              const cT = gAct!(cl(g[3 * H + j]!));
              c[j] = fG * c[j]! + iG * cT;
              const oG = f!(cl(g[H + j]! + P[Pd + H + j]! * c[j]!));
              h[j] = oG * hAct!(c[j]!);
            }
          }
          for (let j = 0; j < H; j++) Y[((t * dirs + d) * batch + b) * H + j] = h[j]!;
        }
        Yh.set(h, (d * batch + b) * H);
        Yc.set(c, (d * batch + b) * H);
      }
    }
    const dt = xT.dtype;
    if (layout === 0)
      return [
        fromFloat64(dt, [seq, dirs, batch, H], Y),
        fromFloat64(dt, [dirs, batch, H], Yh),
        fromFloat64(dt, [dirs, batch, H], Yc),
      ].slice(0, kind === "LSTM" ? 3 : 2);
    // layout 1: Y [batch, seq, dirs, H], Y_h/Y_c [batch, dirs, H]
    const Y1 = scratch(Float64Array, Y.length);
    for (let t = 0; t < seq; t++)
      for (let d = 0; d < dirs; d++)
        for (let b = 0; b < batch; b++)
          for (let j = 0; j < H; j++)
            Y1[((b * seq + t) * dirs + d) * H + j] = Y[((t * dirs + d) * batch + b) * H + j]!;
    const swap = (v: Float64Array) => {
      const o = scratch(Float64Array, v.length);
      for (let d = 0; d < dirs; d++)
        for (let b = 0; b < batch; b++)
          for (let j = 0; j < H; j++) o[(b * dirs + d) * H + j] = v[(d * batch + b) * H + j]!;
      return o;
    };
    const outs: RTensor[] = [
      fromFloat64(dt, [batch, seq, dirs, H], Y1),
      fromFloat64(dt, [batch, dirs, H], swap(Yh)),
    ];
    if (kind === "LSTM") outs.push(fromFloat64(dt, [batch, dirs, H], swap(Yc)));
    return outs;
  };
}

export const recurrentKernels: Record<string, Kernel> = {
  RNN: recurrent("RNN"),
  GRU: recurrent("GRU"),
  LSTM: recurrent("LSTM"),
};

// CausalConvWithState-27: a stateful causal depthwise 1-D convolution (the decode-time
// preprocessing of Mamba and Gated DeltaNet), computed in float64 and rounded once.

import { dtypeName } from "../../ir/dtype.js";
import { fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel, RTensor } from "../types.js";
import { fail, floatInput, optInput } from "./util.js";
import { stringAttr } from "./attrs.js";

const shapeText = (s: readonly number[]) => `[${s.join(",")}]`;

/**
 * input (B, C, L) is prefixed along the length with past_state (B, C, k−1), or k−1 zeros, and
 * each channel is convolved with its own kernel weight[c, 0, :] (no padding, stride 1) plus
 * bias[c]; activation 'silu' or 'swish' applies y·sigmoid(y). present_state holds the last k−1
 * positions of the prefixed sequence (B, C, k−1).
 */
const CausalConvWithState: Kernel = (ctx, inputs) => {
  const x = floatInput(ctx, inputs, 0, "input");
  const w = floatInput(ctx, inputs, 1, "weight");
  const biasT = optInput(ctx, inputs, 2) ? floatInput(ctx, inputs, 2, "bias") : undefined;
  const pastT = optInput(ctx, inputs, 3) ? floatInput(ctx, inputs, 3, "past_state") : undefined;
  for (const [t, name] of [
    [w, "weight"],
    [biasT, "bias"],
    [pastT, "past_state"],
  ] as [RTensor | undefined, string][])
    if (t && t.dtype !== x.dtype)
      fail(ctx, `${name} must have input's type ${dtypeName(x.dtype)}, got ${dtypeName(t.dtype)}`);
  const activation = stringAttr(ctx, "activation");
  if (activation !== "none" && activation !== "silu" && activation !== "swish")
    fail(ctx, `activation must be 'none', 'silu' or 'swish', got '${activation}'`);
  if (x.shape.length !== 3)
    fail(ctx, `input must be 3-D (batch, channels, length), got ${shapeText(x.shape)}`);
  const [b, c, len] = x.shape as [number, number, number];
  if (w.shape.length !== 3 || w.shape[0] !== c || w.shape[1] !== 1)
    fail(ctx, `weight must have shape [${c},1,k], got ${shapeText(w.shape)}`);
  const k = w.shape[2]!;
  if (k < 1) fail(ctx, `the kernel size k must be 1 or more, got ${k}`);
  if (biasT && (biasT.shape.length !== 1 || biasT.shape[0] !== c))
    fail(ctx, `bias must have shape [${c}], got ${shapeText(biasT.shape)}`);
  const stateShape = [b, c, k - 1];
  if (pastT && (pastT.shape.length !== 3 || pastT.shape.some((d, i) => d !== stateShape[i])))
    fail(ctx, `past_state must have shape ${shapeText(stateShape)}, got ${shapeText(pastT.shape)}`);
  const xv = toFloat64(x);
  const wv = toFloat64(w);
  const bv = biasT ? toFloat64(biasT) : undefined;
  const pv = pastT ? toFloat64(pastT) : undefined;
  const padded = scratch(Float64Array, len + k - 1);
  const out = scratch(Float64Array, b * c * len);
  const state = scratch(Float64Array, b * c * (k - 1));
  const silu = activation !== "none";
  for (let bi = 0; bi < b; bi++)
    for (let ch = 0; ch < c; ch++) {
      const row = bi * c + ch;
      padded.fill(0, 0, k - 1);
      if (pv) padded.set(pv.subarray(row * (k - 1), (row + 1) * (k - 1)));
      padded.set(xv.subarray(row * len, (row + 1) * len), k - 1);
      for (let t = 0; t < len; t++) {
        let acc = bv ? bv[ch]! : 0;
        for (let j = 0; j < k; j++) acc += wv[ch * k + j]! * padded[t + j]!;
        out[row * len + t] = silu ? acc / (1 + Math.exp(-acc)) : acc;
      }
      state.set(padded.subarray(len, len + k - 1), row * (k - 1));
    }
  return [fromFloat64(x.dtype, [b, c, len], out), fromFloat64(x.dtype, stateShape, state)];
};

export const convStateKernels: Record<string, Kernel> = { CausalConvWithState };

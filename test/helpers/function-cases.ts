// Generated calls of every ai.onnx function op that has a body: for each version, each element
// type its main constraint allows, and attribute variants (the first of which omits every
// optional attribute), a one-node model and its inputs. Shared by the interpreter and the
// onnxruntime comparisons of the bodies.

import { inferTypes } from "../../src/check/index.js";
import { inlineCall } from "../../src/expand/inline.js";
import { fromFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import { attr, graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { dtypeByName } from "../../src/ir/dtype.js";
import { NameScope } from "../../src/ir/graph.js";
import { DataType, type Attribute, type Model, type Node } from "../../src/ir/types.js";
import { SchemaRegistry, hasFunctionBody } from "../../src/schema/index.js";
import type { OpVersion } from "../../src/schema/types.js";

export const reg = SchemaRegistry.default();
const D = DataType;
export const FLOATS: number[] = [D.FLOAT, D.DOUBLE, D.FLOAT16, D.BFLOAT16];
export const isFloat = (t: number) => FLOATS.includes(t);
const UNSIGNED: number[] = [D.UINT8, D.UINT16, D.UINT32, D.UINT64];

/** A deterministic generator (LCG), reseeded per case so that cases do not depend on order. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A tensor of `dtype` from numbers (rounded for integer types; bigints for 64-bit ones). */
export function tensor(dtype: number, shape: number[], values: number[]): RTensor {
  if (dtype === D.INT64)
    return { dtype, shape, data: BigInt64Array.from(values, (v) => BigInt(Math.round(v))) };
  if (dtype === D.UINT64)
    return { dtype, shape, data: BigUint64Array.from(values, (v) => BigInt(Math.round(v))) };
  if (dtype === D.BOOL) return { dtype, shape, data: Uint8Array.from(values, (v) => (v ? 1 : 0)) };
  return fromFloat64(
    dtype,
    shape,
    Float64Array.from(values, (v) => (isFloat(dtype) ? v : Math.round(v))),
  );
}

/** Random values in [lo, hi] (integers in [max(lo, 0), hi] for unsigned types). */
export function random(r: () => number, dtype: number, shape: number[], lo = -3, hi = 3): RTensor {
  const n = shape.reduce((p, d) => p * d, 1);
  const l = UNSIGNED.includes(dtype) ? Math.max(lo, 0) : lo;
  return tensor(
    dtype,
    shape,
    Array.from({ length: n }, () => l + (hi - l) * r()),
  );
}

export interface Variant {
  name: string;
  /** Inputs by position; undefined omits an optional input. */
  inputs: (RTensor | undefined)[];
  attrs?: Record<string, number | string | number[]>;
  outputs?: number;
  /** Tolerance (relative, absolute floor 1) instead of the element type's. */
  tol?: number;
  /**
   * The interpreter's kernel gives something else than the operator's definition here (the
   * reason): the body is compared with onnxruntime's own op instead.
   */
  kernelDiffers?: string;
  /** Checked in the interpreter only (the reason): onnxruntime draws other random numbers. */
  interpOnly?: string;
}

export interface OpCases {
  op: string;
  /** The element types to try (default: every type of the first input's constraint). */
  types?: (v: OpVersion) => number[];
  variants: (t: number, v: OpVersion, r: () => number) => Variant[];
  /** What the interpreter cannot check (e.g. Bernoulli is random). */
  interp?: false;
  /** Element types the interpreter's kernel refuses (the body is checked with onnxruntime). */
  kernelLacks?: number[];
}

const X = (r: () => number, t: number, shape = [3, 4], lo = -4, hi = 4) =>
  random(r, t, shape, lo, hi);

function unary(op: string, typical: Record<string, number | string>[] = []): OpCases {
  return {
    op,
    variants: (t, _v, r) => [
      { name: "defaults", inputs: [X(r, t)] },
      ...typical.map((attrs) => ({ name: JSON.stringify(attrs), inputs: [X(r, t)], attrs })),
      {
        name: "wide range",
        inputs: [tensor(t, [8], [-30, -10, -1e-3, 0, 1e-3, 10, 30, 60])],
      },
    ],
  };
}

const scalar = (t: number, v: number) => tensor(t, [], [v]);

export const CASES: OpCases[] = [
  unary("Elu", [{ alpha: 0.5 }]),
  unary("Celu", [{ alpha: 2.5 }]),
  unary("Selu", [{ alpha: 1.5, gamma: 2.5 }]),
  unary("HardSigmoid", [{ alpha: 0.3, beta: 0.4 }]),
  unary("HardSwish"),
  unary("ThresholdedRelu", [{ alpha: 0.5 }, { alpha: -1.5 }]),
  unary("LeakyRelu", [{ alpha: 0.2 }]),
  unary("Softplus"),
  unary("Softsign"),
  unary("Mish"),
  unary("Swish", [{ alpha: 1.7 }]),
  unary("Gelu", [{ approximate: "tanh" }, { approximate: "none" }]),
  unary("Relu"),
  {
    op: "Shrink",
    kernelLacks: [D.INT64, D.UINT64],
    variants: (t, _v, r) => [
      { name: "defaults", inputs: [X(r, t, [3, 4], -5, 5)] },
      {
        name: "lambd 1.5 bias 0.5",
        inputs: [X(r, t, [3, 4], -5, 5)],
        attrs: { lambd: 1.5, bias: 0.5 },
      },
      {
        name: "lambd 2 bias 1",
        inputs: [X(r, t, [3, 4], -5, 5)],
        attrs: { lambd: 2.0, bias: 1.0 },
      },
    ],
  },
  {
    op: "PRelu",
    kernelLacks: [D.INT64, D.UINT64],
    variants: (t, _v, r) => [
      { name: "slope [3, 1]", inputs: [X(r, t, [2, 3, 4]), X(r, t, [3, 1], -2, 2)] },
      { name: "slope [4]", inputs: [X(r, t, [2, 3, 4]), X(r, t, [4], -2, 2)] },
      { name: "slope scalar-like [1]", inputs: [X(r, t, [2, 3, 4]), X(r, t, [1], -2, 2)] },
    ],
  },
  {
    op: "SwiGLU",
    variants: (t, _v, r) => [
      { name: "defaults", inputs: [X(r, t), X(r, t)] },
      { name: "alpha 1.702", inputs: [X(r, t), X(r, t)], attrs: { alpha: 1.702 } },
    ],
  },
  {
    op: "Clip",
    variants: (t, _v, r) => {
      const lo = UNSIGNED.includes(t) ? 2 : -2;
      return [
        { name: "no bounds", inputs: [X(r, t, [3, 4], -5, 5)] },
        { name: "min", inputs: [X(r, t, [3, 4], -5, 5), scalar(t, lo)] },
        { name: "max", inputs: [X(r, t, [3, 4], -5, 5), undefined, scalar(t, 3)] },
        { name: "both", inputs: [X(r, t, [3, 4], -5, 5), scalar(t, lo), scalar(t, 3)] },
        {
          name: "min > max",
          inputs: [X(r, t, [3, 4], -5, 5), scalar(t, 4), scalar(t, 3)],
          kernelDiffers: "the kernel gives min where min > max; Clip-13 says max",
        },
      ];
    },
  },
  ...["GreaterOrEqual", "LessOrEqual"].map((op): OpCases => ({
    op,
    variants: (t, _v, r) => [
      { name: "broadcast", inputs: [X(r, t, [3, 4], 0, 3), X(r, t, [4], 0, 3)] },
    ],
  })),
  ...["Softmax", "LogSoftmax"].map((op): OpCases => ({
    op,
    variants: (t, _v, r) => [
      { name: "defaults", inputs: [X(r, t, [2, 3, 4])] },
      { name: "axis 0", inputs: [X(r, t, [2, 3, 4])], attrs: { axis: 0 } },
      { name: "axis -2", inputs: [X(r, t, [2, 3, 4])], attrs: { axis: -2 } },
      { name: "wide", inputs: [tensor(t, [2, 3], [-100, 0, 100, 50, 50, -50])] },
    ],
  })),
  {
    op: "LayerNormalization",
    variants: (t, _v, r) => [
      { name: "defaults", inputs: [X(r, t, [2, 3, 4]), X(r, t, [4]), X(r, t, [4])], outputs: 3 },
      { name: "no bias, Y only", inputs: [X(r, t, [2, 3, 4]), X(r, t, [4])] },
      {
        name: "axis 1, epsilon 0.1",
        inputs: [X(r, t, [2, 3, 4]), X(r, t, [3, 4]), X(r, t, [1])],
        attrs: { axis: 1, epsilon: 0.1 },
        outputs: 3,
      },
      {
        name: "axis -2, scale broadcast",
        inputs: [X(r, t, [2, 3, 4]), X(r, t, [1, 4]), undefined],
        attrs: { axis: -2 },
        outputs: 3,
      },
    ],
  },
  {
    op: "RMSNormalization",
    variants: (t, _v, r) => [
      { name: "defaults", inputs: [X(r, t, [2, 3, 4]), X(r, t, [4])] },
      { name: "axis 1", inputs: [X(r, t, [2, 3, 4]), X(r, t, [3, 4])], attrs: { axis: 1 } },
      { name: "epsilon 0.5", inputs: [X(r, t, [2, 3, 4]), X(r, t, [4])], attrs: { epsilon: 0.5 } },
    ],
  },
  {
    op: "GroupNormalization",
    variants: (t, v, r) => {
      const p = (groups: number) => (v.since >= 21 ? 4 : groups);
      return [
        {
          name: "2 groups",
          inputs: [X(r, t, [2, 4, 3]), X(r, t, [p(2)]), X(r, t, [p(2)])],
          attrs: { num_groups: 2 },
        },
        {
          name: "4 groups, epsilon 0.01, 2-D spatial",
          inputs: [X(r, t, [2, 4, 2, 3]), X(r, t, [p(4)]), X(r, t, [p(4)])],
          attrs: { num_groups: 4, epsilon: 0.01 },
        },
        {
          name: "1 group",
          inputs: [X(r, t, [2, 4, 3]), X(r, t, [p(1)]), X(r, t, [p(1)])],
          attrs: { num_groups: 1 },
        },
      ];
    },
  },
  {
    op: "MeanVarianceNormalization",
    variants: (t, _v, r) => [
      { name: "defaults (axes [0, 2, 3])", inputs: [X(r, t, [2, 3, 2, 2])] },
      { name: "axes [1]", inputs: [X(r, t, [2, 3, 2, 2])], attrs: { axes: [1] } },
      { name: "axes [0, 1, 2, 3]", inputs: [X(r, t, [2, 3, 2, 2])], attrs: { axes: [0, 1, 2, 3] } },
    ],
  },
  ...["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"].map((op): OpCases => ({
    op,
    variants: (t, _v, r) => {
      const sce = op === "SoftmaxCrossEntropyLoss";
      const x = (shape: number[]) => (sce ? X(r, t, shape) : X(r, t, shape, -3, 0));
      const target = (shape: number[], ti = D.INT64) => random(r, ti, shape, 0, 3.4);
      const w = () => X(r, t, [4], 0.2, 2);
      const out = sce ? 2 : 1;
      return [
        { name: "defaults (mean)", inputs: [x([3, 4]), target([3])], outputs: out },
        {
          name: "sum, int32 target",
          inputs: [x([3, 4]), target([3], D.INT32)],
          attrs: { reduction: "sum" },
        },
        {
          name: "none, [N, C, d]",
          inputs: [x([2, 4, 3]), target([2, 3])],
          attrs: { reduction: "none" },
          outputs: out,
        },
        { name: "mean, weight", inputs: [x([3, 4, 2]), target([3, 2]), w()], outputs: out },
        {
          name: "none, weight",
          inputs: [x([3, 4]), target([3]), w()],
          attrs: { reduction: "none" },
        },
        {
          name: "mean, weight, ignore_index 1",
          inputs: [x([3, 4, 2]), tensor(D.INT64, [3, 2], [1, 0, 2, 1, 3, 1]), w()],
          attrs: { ignore_index: 1 },
          outputs: out,
        },
        {
          name: "mean, ignore_index 2",
          inputs: [x([3, 4]), tensor(D.INT32, [3], [2, 0, 3])],
          attrs: { ignore_index: 2 },
        },
        {
          name: "none, ignore_index -1 (out of range)",
          inputs: [x([3, 4]), tensor(D.INT64, [3], [-1, 0, 3])],
          attrs: { reduction: "none", ignore_index: -1 },
        },
        {
          name: "sum, weight, ignore_index 0",
          inputs: [x([2, 4, 2]), tensor(D.INT64, [2, 2], [0, 1, 0, 2]), w()],
          attrs: { reduction: "sum", ignore_index: 0 },
        },
      ];
    },
  })),
  {
    op: "Range",
    variants: (t) => {
      const s = (a: number, b: number, c: number) => [scalar(t, a), scalar(t, b), scalar(t, c)];
      const f = isFloat(t);
      return [
        { name: "0..10 by 3", inputs: s(0, 10, 3) },
        { name: "5 down to -3 by -2", inputs: s(5, -3, -2) },
        { name: "empty", inputs: s(4, 4, 1) },
        { name: "empty (wrong direction)", inputs: s(4, 1, 2) },
        ...(f ? [{ name: "0.5 to 3.7 by 0.3", inputs: s(0.5, 3.7, 0.3), tol: 1e-5 }] : []),
      ];
    },
  },
  ...["HannWindow", "HammingWindow", "BlackmanWindow"].map((op): OpCases => ({
    op,
    variants: (t) => [
      { name: "defaults (periodic, float)", inputs: [scalar(t, 10)] },
      { name: "symmetric", inputs: [scalar(t, 7)], attrs: { periodic: 0 } },
      { name: "double", inputs: [scalar(t, 5)], attrs: { output_datatype: D.DOUBLE } },
      { name: "float16", inputs: [scalar(t, 9)], attrs: { output_datatype: D.FLOAT16 } },
      { name: "int32 (truncated)", inputs: [scalar(t, 6)], attrs: { output_datatype: D.INT32 } },
      { name: "size 1", inputs: [scalar(t, 1)] },
    ],
  })),
  {
    op: "CastLike",
    types: () => [
      D.FLOAT,
      D.DOUBLE,
      D.FLOAT16,
      D.BFLOAT16,
      D.INT32,
      D.INT64,
      D.INT8,
      D.UINT8,
      D.BOOL,
    ],
    variants: (t, _v, r) =>
      [D.FLOAT, D.DOUBLE, D.FLOAT16, D.BFLOAT16, D.INT32, D.INT64, D.UINT8, D.BOOL].map((to) => ({
        name: `to ${to}`,
        inputs: [
          t === D.BOOL
            ? tensor(t, [4], [0, 1, 1, 0])
            : random(r, t, [3, 4], to === D.UINT8 || UNSIGNED.includes(t) ? 0 : -100, 100),
          tensor(to, [1], [0]),
        ],
      })),
  },
  {
    op: "DynamicQuantizeLinear",
    variants: (t, _v, r) => [
      { name: "mixed signs", inputs: [X(r, t, [3, 4], -3, 5)], outputs: 3 },
      { name: "all positive", inputs: [X(r, t, [3, 4], 0.5, 4)], outputs: 3 },
      { name: "all negative", inputs: [X(r, t, [3, 4], -4, -0.5)], outputs: 3 },
    ],
  },
  {
    op: "AffineGrid",
    variants: (t, _v, r) => {
      const size = (v: number[]) => tensor(D.INT64, [v.length], v);
      return [
        { name: "2-D", inputs: [X(r, t, [2, 2, 3], -1, 1), size([2, 3, 4, 5])] },
        {
          name: "2-D, align_corners",
          inputs: [X(r, t, [2, 2, 3], -1, 1), size([2, 3, 4, 5])],
          attrs: { align_corners: 1 },
        },
        {
          name: "2-D, H = W = 1, align_corners",
          inputs: [X(r, t, [1, 2, 3], -1, 1), size([1, 1, 1, 1])],
          attrs: { align_corners: 1 },
        },
        { name: "3-D", inputs: [X(r, t, [2, 3, 4], -1, 1), size([2, 1, 2, 3, 4])] },
        {
          name: "3-D, align_corners",
          inputs: [X(r, t, [1, 3, 4], -1, 1), size([1, 1, 3, 2, 2])],
          attrs: { align_corners: 1 },
        },
      ];
    },
  },
  {
    op: "CenterCropPad",
    types: () => [
      D.FLOAT,
      D.DOUBLE,
      D.FLOAT16,
      D.BFLOAT16,
      D.INT8,
      D.INT32,
      D.INT64,
      D.UINT8,
      D.BOOL,
    ],
    variants: (t, _v, r) => {
      const x = (shape: number[]) =>
        t === D.BOOL ? random(r, t, shape, 0, 1) : X(r, t, shape, -9, 9);
      return [
        { name: "crop rows, pad columns", inputs: [x([4, 5]), tensor(D.INT64, [2], [3, 8])] },
        { name: "odd differences", inputs: [x([5, 2]), tensor(D.INT32, [2], [2, 5])] },
        {
          name: "axes [1, -1]",
          inputs: [x([2, 4, 5]), tensor(D.INT64, [2], [6, 1])],
          attrs: { axes: [1, -1] },
        },
        { name: "unchanged", inputs: [x([2, 3]), tensor(D.INT64, [2], [2, 3])] },
      ];
    },
  },
  {
    op: "RotaryEmbedding",
    variants: (t, _v, r) => {
      const pos = () => random(r, D.INT64, [2, 3], 0, 4);
      return [
        {
          name: "4-D, caches per position",
          inputs: [X(r, t, [2, 2, 3, 4]), X(r, t, [2, 3, 2], -1, 1), X(r, t, [2, 3, 2], -1, 1)],
        },
        {
          name: "position_ids",
          inputs: [X(r, t, [2, 2, 3, 4]), X(r, t, [5, 2], -1, 1), X(r, t, [5, 2], -1, 1), pos()],
        },
        {
          name: "interleaved",
          inputs: [X(r, t, [2, 2, 3, 4]), X(r, t, [5, 2], -1, 1), X(r, t, [5, 2], -1, 1), pos()],
          attrs: { interleaved: 1 },
        },
        {
          name: "partial rotation, interleaved",
          inputs: [X(r, t, [2, 2, 3, 6]), X(r, t, [5, 2], -1, 1), X(r, t, [5, 2], -1, 1), pos()],
          attrs: { rotary_embedding_dim: 4, interleaved: 1 },
        },
        {
          name: "3-D, num_heads 2, partial",
          inputs: [X(r, t, [2, 3, 8]), X(r, t, [2, 3, 1], -1, 1), X(r, t, [2, 3, 1], -1, 1)],
          attrs: { num_heads: 2, rotary_embedding_dim: 2 },
        },
      ];
    },
  },
  {
    op: "Attention",
    variants: (t, v, r) => {
      const x = (shape: number[]) => X(r, t, shape, -2, 2);
      const bool = (shape: number[], values: number[]) => tensor(D.BOOL, shape, values);
      const out: Variant[] = [
        { name: "4-D", inputs: [x([2, 2, 3, 4]), x([2, 2, 5, 4]), x([2, 2, 5, 3])] },
        {
          name: "3-D, heads split",
          inputs: [x([2, 3, 8]), x([2, 5, 8]), x([2, 5, 6])],
          attrs: { q_num_heads: 2, kv_num_heads: 2 },
        },
        {
          name: "grouped KV heads, 3-D",
          inputs: [x([1, 3, 16]), x([1, 5, 8]), x([1, 5, 6])],
          attrs: { q_num_heads: 4, kv_num_heads: 2 },
        },
        {
          name: "causal, past key/value, present outputs",
          inputs: [
            x([1, 2, 3, 4]),
            x([1, 2, 3, 4]),
            x([1, 2, 3, 4]),
            undefined,
            x([1, 2, 2, 4]),
            x([1, 2, 2, 4]),
          ],
          attrs: { is_causal: 1 },
          outputs: 3,
        },
        {
          name: "boolean mask, scale, softcap, qk after softcap",
          inputs: [
            x([2, 2, 3, 4]),
            x([2, 2, 5, 4]),
            x([2, 2, 5, 3]),
            bool([3, 5], [1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1]),
          ],
          attrs: { scale: 0.3, softcap: 2.5, qk_matmul_output_mode: 1 },
          outputs: 4,
        },
        {
          name: "numeric mask shorter than the keys, qk with bias",
          inputs: [x([2, 2, 3, 4]), x([2, 2, 5, 4]), x([2, 2, 5, 3]), x([2, 1, 3, 4])],
          attrs: { qk_matmul_output_mode: 2 },
          outputs: 4,
        },
        {
          name: "a fully masked row, probabilities",
          inputs: [
            x([1, 2, 2, 4]),
            x([1, 2, 3, 4]),
            x([1, 2, 3, 4]),
            bool([2, 3], [0, 0, 0, 1, 0, 1]),
          ],
          attrs: { qk_matmul_output_mode: 3 },
          outputs: 4,
        },
      ];
      if (v.since >= 24)
        out.push({
          name: "nonpad_kv_seqlen, causal",
          inputs: [
            x([2, 2, 2, 4]),
            x([2, 2, 5, 4]),
            x([2, 2, 5, 4]),
            undefined,
            undefined,
            undefined,
            tensor(D.INT64, [2], [3, 5]),
          ],
          attrs: { is_causal: 1 },
        });
      if (v.since >= 25)
        out.push(
          {
            name: "window left 1 right 0, past",
            inputs: [
              x([1, 2, 3, 4]),
              x([1, 2, 3, 4]),
              x([1, 2, 3, 4]),
              undefined,
              x([1, 2, 2, 4]),
              x([1, 2, 2, 4]),
            ],
            attrs: { left_window_size: 1, right_window_size: 0 },
          },
          {
            name: "window right 1, causal",
            inputs: [x([1, 2, 4, 4]), x([1, 2, 4, 4]), x([1, 2, 4, 4])],
            attrs: { right_window_size: 1, is_causal: 1 },
          },
        );
      return out;
    },
  },
  {
    op: "CausalConvWithState",
    variants: (t, _v, r) => [
      { name: "defaults", inputs: [X(r, t, [2, 3, 5]), X(r, t, [3, 1, 3])], outputs: 2 },
      {
        name: "bias, past_state, silu",
        inputs: [X(r, t, [2, 3, 5]), X(r, t, [3, 1, 3]), X(r, t, [3]), X(r, t, [2, 3, 2])],
        attrs: { activation: "silu" },
        outputs: 2,
      },
      {
        name: "past_state, swish, one step",
        inputs: [X(r, t, [1, 2, 1]), X(r, t, [2, 1, 4]), undefined, X(r, t, [1, 2, 3])],
        attrs: { activation: "swish" },
        outputs: 2,
      },
      { name: "k = 1", inputs: [X(r, t, [2, 3, 4]), X(r, t, [3, 1, 1]), X(r, t, [3])], outputs: 2 },
    ],
  },
  {
    op: "LinearAttention",
    variants: (t, _v, r) => {
      const x = (shape: number[], lo = -1, hi = 1) => X(r, t, shape, lo, hi);
      const heads = { q_num_heads: 2, kv_num_heads: 1 };
      return [
        {
          name: "defaults (gated_delta), decay per head",
          inputs: [
            x([2, 3, 4]),
            x([2, 3, 2]),
            x([2, 3, 3]),
            undefined,
            x([2, 3, 1], -1, 0),
            x([2, 3, 1], 0, 1),
          ],
          attrs: heads,
          outputs: 2,
        },
        {
          name: "linear, past_state",
          inputs: [x([2, 3, 4]), x([2, 3, 2]), x([2, 3, 3]), x([2, 1, 2, 3])],
          attrs: { ...heads, update_rule: "linear" },
          outputs: 2,
        },
        {
          name: "gated, decay per key, scale 0.5",
          inputs: [x([1, 4, 4]), x([1, 4, 2]), x([1, 4, 3]), x([1, 1, 2, 3]), x([1, 4, 2], -1, 0)],
          attrs: { ...heads, update_rule: "gated", scale: 0.5 },
          outputs: 2,
        },
        {
          name: "delta, 2 KV heads, beta per head",
          inputs: [
            x([2, 3, 4]),
            x([2, 3, 4]),
            x([2, 3, 6]),
            undefined,
            undefined,
            x([2, 3, 2], 0, 1),
          ],
          attrs: { q_num_heads: 2, kv_num_heads: 2, update_rule: "delta" },
          outputs: 2,
        },
      ];
    },
  },
  {
    op: "Bernoulli",
    // Random, but the body's RandomUniformLike draws as the kernel does: equal for p = 0 and 1,
    // and for any p under a seed.
    variants: (t) => [
      { name: "p = 0 and 1", inputs: [tensor(t, [2, 3], [0, 1, 0, 1, 1, 0])] },
      { name: "dtype int32", inputs: [tensor(t, [4], [1, 0, 1, 1])], attrs: { dtype: D.INT32 } },
      { name: "seed", inputs: [tensor(t, [4], [1, 0, 0, 1])], attrs: { seed: 3.5 } },
      {
        name: "seed, p in (0, 1)",
        inputs: [tensor(t, [8], [0.1, 0.3, 0.5, 0.7, 0.9, 0.25, 0.5, 0.75])],
        attrs: { seed: 11 },
        interpOnly: "onnxruntime's RandomUniformLike draws other numbers than its Bernoulli",
      },
    ],
  },
];

/** The element types of the first input's constraint (integer ones included). */
export function constraintTypes(v: OpVersion): number[] {
  const c = v.type_constraints.find((t) => t.name === v.inputs[0]!.type);
  if (!c) return [];
  return c.allowed
    .map((s) => dtypeByName(s.replace(/^tensor\((.*)\)$/, "$1"))?.id)
    .filter((id): id is number => id !== undefined && id !== D.STRING);
}

/** The call's attributes, typed as the schema declares them. */
export function attributes(
  v: OpVersion,
  attrs: Record<string, number | string | number[]>,
): Attribute[] {
  return Object.entries(attrs).map(([name, value]) => {
    const spec = v.attributes.find((a) => a.name === name);
    if (!spec) throw new Error(`${v.name}-${v.since} has no attribute '${name}'`);
    return attr(name, value, spec.type);
  });
}

/** A model of one call of the op at its own version, reading graph inputs i0, i1, ... */
export function callModel(v: OpVersion, c: Variant): Model {
  const names = c.inputs.map((t, i) => (t ? `i${i}` : ""));
  while (names.at(-1) === "") names.pop();
  const outs = Array.from({ length: c.outputs ?? 1 }, (_, i) => `o${i}`);
  const call: Node = node(v.name, names, outs, {}, { name: "call" });
  call.attributes = attributes(v, c.attrs ?? {});
  const inputs = c.inputs.flatMap((t, i) => (t ? [valueInfo(`i${i}`, t.dtype, t.shape)] : []));
  return model(
    graph({ name: "g", nodes: [call], inputs, outputs: outs.map((o) => valueInfo(o)) }),
    v.since,
    13,
  );
}

export function feedsOf(c: Variant): Record<string, RTensor> {
  return Object.fromEntries(c.inputs.flatMap((t, i) => (t ? [[`i${i}`, t]] : [])));
}

/**
 * Inlines every call of a function op that has a body, again in the bodies, until none is left;
 * the model's opset becomes the highest that the bodies are written for.
 */
export function expandAll(m: Model): Model {
  for (let round = 0; round < 8; round++) {
    const opset = m.opsetImports.find((o) => o.domain === "")!.version;
    const types = inferTypes(m);
    const scope = new NameScope(m.graph);
    let top = opset;
    let changed = false;
    const nodes: Node[] = [];
    for (const n of m.graph.nodes) {
      const v = reg.resolve("", n.opType, opset);
      if (!hasFunctionBody(v)) {
        nodes.push(n);
        continue;
      }
      const b = inlineCall(
        n,
        v,
        n.inputs.map((i) => (i ? types.get(i) : undefined)),
        scope,
      );
      nodes.push(...b.nodes);
      top = Math.max(top, ...b.opsetImports.map((o) => o.version));
      changed = true;
    }
    if (!changed) return m;
    m = { ...m, opsetImports: [{ domain: "", version: top }], graph: { ...m.graph, nodes } };
  }
  throw new Error("function ops still left after 8 rounds");
}

/** Every function version that has a body, with its cases (none: no cases written). */
export function functionVersions(): { v: OpVersion; cases: OpCases | undefined }[] {
  const out: { v: OpVersion; cases: OpCases | undefined }[] = [];
  for (const op of reg.operators())
    for (const v of reg.versions("", op))
      if (v.function || hasFunctionBody(v)) out.push({ v, cases: CASES.find((c) => c.op === op) });
  return out;
}

/**
 * SequenceMap's call, between tensors: x0, x1 (and x2) made into a sequence, mapped with a body
 * graph together with the tensor t (or a sequence of tensors tx0, tx1, ...), and the output
 * sequences stacked back into tensors.
 */
export function sequenceMapModel(
  dtype: number,
  threeItems: boolean,
  extraSequence = false,
): { m: Model; feeds: Record<string, RTensor> } {
  const r = rng(17 + dtype);
  const items = threeItems ? ["x0", "x1", "x2"] : ["x0", "x1"];
  const feeds: Record<string, RTensor> = Object.fromEntries([
    ...items.map((n) => [n, random(r, dtype, [2, 3], -3, 3)] as const),
    ...(extraSequence
      ? items.map((n) => [`t${n}`, random(r, dtype, [3], -3, 3)] as const)
      : [["t", random(r, dtype, [3], -3, 3)] as const]),
  ]);
  const t = (elemType: number) => ({ kind: "tensor" as const, elemType });
  const body = graph({
    name: "map_body",
    nodes: [node("Add", ["item", "extra"], ["sum"]), node("Shape", ["item"], ["shape"])],
    inputs: [
      { name: "item", type: t(dtype) },
      { name: "extra", type: t(dtype) },
    ],
    outputs: [
      { name: "sum", type: t(dtype) },
      { name: "shape", type: t(DataType.INT64) },
    ],
  });
  const map = node("SequenceMap", ["seq", "t"], ["sums", "shapes"], {}, { name: "map" });
  map.attributes = [{ name: "body", type: "GRAPH", value: body }];
  const stack = (s: string, out: string) =>
    node("ConcatFromSequence", [s], [out], { axis: 0, new_axis: 1 });
  const m = model(
    graph({
      name: "g",
      nodes: [
        node("SequenceConstruct", items, ["seq"]),
        ...(extraSequence
          ? [
              node(
                "SequenceConstruct",
                items.map((n) => `t${n}`),
                ["t"],
              ),
            ]
          : []),
        map,
        stack("sums", "y0"),
        stack("shapes", "y1"),
      ],
      inputs: [
        ...items.map((n) => valueInfo(n, dtype, [2, 3])),
        ...(extraSequence
          ? items.map((n) => valueInfo(`t${n}`, dtype, [3]))
          : [valueInfo("t", dtype, [3])]),
      ],
      outputs: [valueInfo("y0"), valueInfo("y1")],
    }),
    17,
    13,
  );
  // The checker infers no type for SequenceConstruct's output: declared here, as a model would.
  if (extraSequence)
    m.graph.valueInfo.push({ name: "t", type: { kind: "sequence", elem: t(dtype) } });
  return { m, feeds };
}

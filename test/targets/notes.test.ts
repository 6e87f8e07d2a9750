// Every note of a shipped profile held by a node that meets it and one that does not: for each
// reading (test/golden/targets/<name>.txt says what each note became), the verdict a node earns.
// A node is partial only for the note it fails (unsupported where the note became the row's
// element types); the same op meeting the note is supported.

import { describe, expect, it } from "vitest";
import { SchemaRegistry } from "../../src/schema/registry.js";
import { classifyModel, type Verdict } from "../../src/targets/classify.js";
import { listProfiles, loadProfile } from "../../src/targets/load.js";
import { versionSupported, type Constraint } from "../../src/targets/profile.js";
import { parseModelText } from "../../src/text/parse.js";

interface Case {
  /** The note, as the source says it (in short). */
  note: string;
  op: string;
  /** The graph (ai.onnx opset `opset`, 17 by default; `ms`: com.microsoft 1 too). */
  graph: string;
  opset?: number;
  ms?: true;
  /** The verdict of each node of `op`, in order. */
  verdicts: Verdict[];
  /** The failing node's reason. */
  reason?: RegExp;
}

/** A Slice with constant bounds, and one whose end is computed (webnn's and coreml's note). */
const SLICE = `(float[4] x, int64[1] e) => (float[2] y, float[?] z) <int64[1] b = {0}, int64[1] c = {2}> {
  y = Slice (x, b, c)
  z = Slice (x, b, e) }`;
/** A Split with constant sizes, and one with computed sizes. */
const SPLIT = `(float[4] x, int64[2] s) => (float[2] a, float[2] b, float[?] c, float[?] d) <int64[2] k = {2, 2}> {
  a, b = Split (x, k)
  c, d = Split (x, s) }`;

const CASES: Record<string, Case[]> = {
  webnn: [
    {
      note: "AveragePool: only 4-D input",
      op: "AveragePool",
      graph: `(float[1,1,4,4] x, float[1,1,4] z) => (float[1,1,2,2] y, float[1,1,2] w) {
  y = AveragePool <kernel_shape = [2, 2], strides = [2, 2]> (x)
  w = AveragePool <kernel_shape = [2], strides = [2]> (z) }`,
      verdicts: ["supported", "partial"],
      reason: /rank 3, the target takes 4/,
    },
    {
      note: "Conv: only 3-D or 4-D input",
      op: "Conv",
      graph: `(float[1,1,3,3] x, float[1,1,2,2,2] z) => (float[1,1,3,3] y, float[1,1,2,2,2] w)
  <float[1,1,1,1] k = {2}, float[1,1,1,1,1] k5 = {2}> {
  y = Conv (x, k)
  w = Conv (z, k5) }`,
      verdicts: ["supported", "partial"],
      reason: /rank 5/,
    },
    {
      note: "CumSum: 'axis' input should be a constant",
      op: "CumSum",
      graph: `(float[2,3] x, int64 a) => (float[2,3] y, float[2,3] z) <int64 one = {1}> {
  y = CumSum (x, one)
  z = CumSum (x, a) }`,
      verdicts: ["supported", "partial"],
      reason: /input 'axis' is computed/,
    },
    {
      note: "Dropout: only test mode",
      op: "Dropout",
      graph: `(float[2,3] x) => (float[2,3] y, float[2,3] z) <float r = {0.5}, bool no = {0}, bool yes = {1}> {
  y = Dropout (x, r, no)
  z = Dropout (x, r, yes) }`,
      verdicts: ["supported", "partial"],
      reason: /training_mode' holds 1/,
    },
    {
      note: "Expand: 'shape' input should be a constant",
      op: "Expand",
      graph: `(float[1,3] x, int64[2] s) => (float[2,3] y, float[?,?] z) <int64[2] c = {2, 3}> {
  y = Expand (x, c)
  z = Expand (x, s) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "GatherND: only 'batch_dims' == 0",
      op: "GatherND",
      graph: `(float[2,3] x, int64[2,1] i, int64[2,1] j) => (float[2,3] y, float[2] z) {
  y = GatherND (x, i)
  z = GatherND <batch_dims = 1> (x, j) }`,
      verdicts: ["supported", "partial"],
      reason: /batch_dims' = 1/,
    },
    {
      note: "GlobalLpPool: 4-D input, 'p' value is 2",
      op: "GlobalLpPool",
      graph: `(float[1,2,3,3] x) => (float[1,2,1,1] y, float[1,2,1,1] z) {
  y = GlobalLpPool (x)
  z = GlobalLpPool <p = 3> (x) }`,
      verdicts: ["supported", "partial"],
      reason: /'p' = 3/,
    },
    {
      note: "MaxPool: 4-D input, 'storage_order' != 1, one output",
      op: "MaxPool",
      graph: `(float[1,1,4,4] x) => (float[1,1,2,2] a, float[1,1,2,2] b, float[1,1,2,2] c, int64[1,1,2,2] i) {
  a = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (x)
  b = MaxPool <kernel_shape = [2, 2], strides = [2, 2], storage_order = 1> (x)
  c, i = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (x) }`,
      verdicts: ["supported", "partial", "partial"],
    },
    {
      note: "ReduceMean: input 'axes' if present should be a constant",
      op: "ReduceMean",
      opset: 18,
      graph: `(float[2,3] x, int64[1] a) => (float[2,1] y, float[?,?] z) <int64[1] one = {1}> {
  y = ReduceMean (x, one)
  z = ReduceMean (x, a) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Resize: 4-D, linear or nearest, scales constant",
      op: "Resize",
      opset: 19,
      graph: `(float[1,1,2,2] x) => (float[1,1,4,4] a, float[1,1,4,4] b) <float[4] s = {1, 1, 2, 2}> {
  a = Resize <mode = "linear"> (x, , s)
  b = Resize <mode = "cubic"> (x, , s) }`,
      verdicts: ["supported", "partial"],
      reason: /'mode' = "cubic"/,
    },
    {
      note: "ScatterND: only 'reduction' == 'none'",
      op: "ScatterND",
      opset: 18,
      graph: `(float[4] x, int64[1,1] i, float[1] u) => (float[4] y, float[4] z) {
  y = ScatterND (x, i, u)
  z = ScatterND <reduction = "add"> (x, i, u) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Slice: starts, ends, axes, steps constant",
      op: "Slice",
      graph: SLICE,
      verdicts: ["supported", "partial"],
      reason: /input 'ends' is computed/,
    },
    {
      note: "Squeeze: input 'axes' should be a constant",
      op: "Squeeze",
      graph: `(float[1,3] x, int64[1] a) => (float[3] y, float[?] z) <int64[1] zero = {0}> {
  y = Squeeze (x, zero)
  z = Squeeze (x, a) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Tile: input 'repeats' should be a constant",
      op: "Tile",
      graph: `(float[2] x, int64[1] r) => (float[4] y, float[?] z) <int64[1] two = {2}> {
  y = Tile (x, two)
  z = Tile (x, r) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Trilu: input 'k' should be a constant",
      op: "Trilu",
      graph: `(float[3,3] x, int64 k) => (float[3,3] y, float[3,3] z) <int64 one = {1}> {
  y = Trilu (x, one)
  z = Trilu (x, k) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "BatchNormalization: 'training_mode' 0, one output",
      op: "BatchNormalization",
      opset: 15,
      graph: `(float[1,2,3,3] x) => (float[1,2,3,3] y, float[1,2,3,3] z, float[2] m, float[2] v)
  <float[2] g = {1, 1}, float[2] b = {0, 0}, float[2] mu = {0, 0}, float[2] s = {1, 1}> {
  y = BatchNormalization (x, g, b, mu, s)
  z, m, v = BatchNormalization <training_mode = 1> (x, g, b, mu, s) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "GlobalAveragePool / GlobalMaxPool: only 4-D input",
      op: "GlobalMaxPool",
      graph: `(float[1,2,3,3] x, float[1,2,3] u) => (float[1,2,1,1] y, float[1,2,1] z) {
  y = GlobalMaxPool (x)
  z = GlobalMaxPool (u) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "LpPool: 4-D input, 'p' value is 2",
      op: "LpPool",
      graph: `(float[1,1,4,4] x) => (float[1,1,2,2] y, float[1,1,2,2] z) {
  y = LpPool <kernel_shape = [2, 2], strides = [2, 2]> (x)
  z = LpPool <kernel_shape = [2, 2], strides = [2, 2], p = 1> (x) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "ScatterElements: only 'reduction' == 'none'",
      op: "ScatterElements",
      opset: 18,
      graph: `(float[4] x, int64[1] i, float[1] u) => (float[4] y, float[4] z) {
  y = ScatterElements (x, i, u)
  z = ScatterElements <reduction = "max"> (x, i, u) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Split: input 'split' if present should be a constant",
      op: "Split",
      graph: SPLIT,
      verdicts: ["supported", "partial"],
    },
    {
      note: "ReduceSum: input 'axes' if present should be a constant",
      op: "ReduceSum",
      graph: `(float[2,3] x, int64[1] a) => (float[2,1] y, float[?,?] z) <int64[1] one = {1}> {
  y = ReduceSum (x, one)
  z = ReduceSum (x, a) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "ConvTranspose: only 3-D or 4-D input",
      op: "ConvTranspose",
      graph: `(float[1,1,2,2] x, float[1,1,2,2,2] z) => (float[1,1,2,2] y, float[1,1,2,2,2] w)
  <float[1,1,1,1] k = {2}, float[1,1,1,1,1] k5 = {2}> {
  y = ConvTranspose (x, k)
  w = ConvTranspose (z, k5) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "GRU: layout 0, no clip, activations Relu/Tanh/Sigmoid, sequence_lens constant and full",
      op: "GRU",
      graph: `(float[2,1,3] x, int32[1] sl) => (float[2,1,1,2] a, float[2,1,1,2] b, float[2,1,1,2] c, float[2,1,1,2] d)
  <float[1,6,3] w = {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}, float[1,6,2] r = {0,0,0,0,0,0,0,0,0,0,0,0}, int32[1] full = {2}> {
  a = GRU <hidden_size = 2> (x, w, r, , full)
  b = GRU <hidden_size = 2, clip = 1.0> (x, w, r)
  c = GRU <hidden_size = 2, activations = ["HardSigmoid", "Tanh"]> (x, w, r)
  d = GRU <hidden_size = 2> (x, w, r, , sl) }`,
      verdicts: ["supported", "partial", "partial", "partial"],
    },
    {
      note: "MatMulNBits: B and zero_points constant, no g_idx, bits 4 or 8",
      op: "com.microsoft.MatMulNBits",
      ms: true,
      graph: `(float[1,16] a, uint8[2,1,8] bx) => (float[1,2] y, float[1,2] z, float[1,2] w, float[1,2] v)
  <uint8[2,1,8] b = {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}, float[2] s = {1, 1}> {
  y = com.microsoft.MatMulNBits <K = 16, N = 2, bits = 4, block_size = 16> (a, b, s)
  z = com.microsoft.MatMulNBits <K = 16, N = 2, bits = 4, block_size = 16> (a, bx, s)
  w = com.microsoft.MatMulNBits <K = 16, N = 2, bits = 2, block_size = 16> (a, b, s)
  v = com.microsoft.MatMulNBits <K = 16, N = 2, bits = 8, block_size = 16> (a, b, s) }`,
      verdicts: ["supported", "partial", "partial", "supported"],
    },
    {
      note: "MultiHeadAttention: no bias, key_padding_mask, past_sequence_length, cache_indirection; no qk output",
      op: "com.microsoft.MultiHeadAttention",
      ms: true,
      graph: `(float[1,2,4] q, float[1,2,4] k, float[1,2,4] v, float[12] bias) => (float[1,2,4] y, float[1,2,4] z) {
  y = com.microsoft.MultiHeadAttention <num_heads = 2> (q, k, v)
  z = com.microsoft.MultiHeadAttention <num_heads = 2> (q, k, v, bias) }`,
      verdicts: ["supported", "partial"],
      reason: /input 'bias' is given/,
    },
  ],
  coreml: [
    {
      note: "Conv: 1D/2D, bias if provided constant",
      op: "Conv",
      graph: `(float[1,1,3,3] x, float[1] b) => (float[1,1,3,3] y, float[1,1,3,3] z) <float[1,1,1,1] k = {2}, float[1] c = {1}> {
  y = Conv (x, k, c)
  z = Conv (x, k, b) }`,
      verdicts: ["supported", "partial"],
      reason: /input 'B' is computed/,
    },
    {
      note: "Gemm: input B constant",
      op: "Gemm",
      graph: `(float[2,3] x, float[3,2] w) => (float[2,2] y, float[2,2] z) <float[3,2] c = {1, 2, 3, 4, 5, 6}> {
  y = Gemm (x, c)
  z = Gemm (x, w) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Gemm: transA 0, alpha 1, beta 1 (the MatMul row's note; the EP's builder for both)",
      op: "Gemm",
      graph: `(float[2,3] x, float[3,2] xt) => (float[2,2] y, float[2,2] z, float[2,2] w) <float[3,2] c = {1, 2, 3, 4, 5, 6}> {
  y = Gemm <transB = 0> (x, c)
  z = Gemm <transA = 1> (xt, c)
  w = Gemm <alpha = 2.0> (x, c) }`,
      verdicts: ["supported", "partial", "partial"],
      reason: /'transA' = 1/,
    },
    {
      note: "GatherND: batch_dims 0",
      op: "GatherND",
      graph: `(float[2,3] x, int64[2,1] i) => (float[2,3] y, float[2] z) {
  y = GatherND (x, i)
  z = GatherND <batch_dims = 1> (x, i) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Slice: starts/ends/axes/steps constant",
      op: "Slice",
      graph: SLICE,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Split: splits constant if provided",
      op: "Split",
      graph: SPLIT,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Where: X/Y float or float16",
      op: "Where",
      graph: `(bool[2] m, float[2] a, int32[2] i) => (float[2] y, int32[2] z) {
  y = Where (m, a, a)
  z = Where (m, i, i) }`,
      verdicts: ["supported", "partial"],
      reason: /int32, the target takes float or float16/,
    },
    {
      // the EP's builder reads an absent mode as "linear" and takes "linear" or "zeros" only:
      // GridSample-16's "nearest" (or its "bilinear" written out) it refuses
      note: "GridSample: 4D input, mode linear or zeros",
      op: "GridSample",
      graph: `(float[1,1,2,2] x, float[1,2,2,2] g) => (float[1,1,2,2] y, float[1,1,2,2] z) {
  y = GridSample (x, g)
  z = GridSample <mode = "nearest"> (x, g) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "FusedConv: Relu, Sigmoid, Tanh, LeakyRelu, Clip, HardSigmoid",
      op: "com.microsoft.FusedConv",
      ms: true,
      graph: `(float[1,1,3,3] x) => (float[1,1,3,3] y, float[1,1,3,3] z) <float[1,1,1,1] k = {2}> {
  y = com.microsoft.FusedConv <activation = "Relu"> (x, k)
  z = com.microsoft.FusedConv <activation = "Elu"> (x, k) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "ConvTranspose: weight constant, no SAME padding, no output_shape",
      op: "ConvTranspose",
      graph: `(float[1,1,2,2] x, float[1,1,1,1] w) => (float[1,1,2,2] a, float[1,1,2,2] b, float[1,1,2,2] c) <float[1,1,1,1] k = {2}> {
  a = ConvTranspose (x, k)
  b = ConvTranspose (x, w)
  c = ConvTranspose <auto_pad = "SAME_UPPER"> (x, k) }`,
      verdicts: ["supported", "partial", "partial"],
    },
    {
      note: "MatMul: the note is Gemm's (transA, alpha, beta), read into Gemm's row",
      op: "MatMul",
      graph: `(float[2,3] x, float[3,4] w) => (float[2,4] y) { y = MatMul (x, w) }`,
      verdicts: ["supported"],
    },
    {
      note: "AveragePool / MaxPool: only 2D pooling",
      op: "MaxPool",
      graph: `(float[1,1,4,4] x, float[1,1,4] u) => (float[1,1,2,2] y, float[1,1,2] z) {
  y = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (x)
  z = MaxPool <kernel_shape = [2], strides = [2]> (u) }`,
      verdicts: ["supported", "partial"],
    },
  ],
  nnapi: [
    {
      note: "Conv: only 2D, weights and bias constant",
      op: "Conv",
      graph: `(float[1,1,3,3] x, float[1,1,1,1] w, float[1,1,3] u) => (float[1,1,3,3] y, float[1,1,3,3] z, float[1,1,3] v)
  <float[1,1,1,1] k = {2}, float[1,1,1] k1 = {2}> {
  y = Conv (x, k)
  z = Conv (x, w)
  v = Conv (u, k1) }`,
      verdicts: ["supported", "partial", "partial"],
    },
    {
      note: "DepthToSpace: only DCR",
      op: "DepthToSpace",
      graph: `(float[1,4,1,1] x) => (float[1,1,2,2] y, float[1,1,2,2] z) {
  y = DepthToSpace <blocksize = 2> (x)
  z = DepthToSpace <blocksize = 2, mode = "CRD"> (x) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Gemm: if B is not constant, transB 1",
      op: "Gemm",
      graph: `(float[2,3] x, float[2,3] w, float[3,2] v) => (float[2,2] y, float[2,2] z) {
  y = Gemm <transB = 1> (x, w)
  z = Gemm (x, v) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Pad: constant mode, pads constant and not negative",
      op: "Pad",
      graph: `(float[4] x) => (float[6] a, float[6] b, float[2] c) <int64[2] p = {1, 1}, int64[2] n = {-1, -1}> {
  a = Pad (x, p)
  b = Pad <mode = "reflect"> (x, p)
  c = Pad (x, n) }`,
      verdicts: ["supported", "partial", "partial"],
    },
    {
      note: "Squeeze/Unsqueeze: axes constant",
      op: "Unsqueeze",
      graph: `(float[3] x, int64[1] a) => (float[1,3] y, float[?,?] z) <int64[1] zero = {0}> {
  y = Unsqueeze (x, zero)
  z = Unsqueeze (x, a) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "DequantizeLinear: scales and zero points constant",
      op: "DequantizeLinear",
      graph: `(uint8[4] x, float s) => (float[4] y, float[4] z) <float c = {0.5}> {
  y = DequantizeLinear (x, c)
  z = DequantizeLinear (x, s) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Resize: only 2D",
      op: "Resize",
      opset: 13,
      graph: `(float[1,1,2,2] x, float[1,1,2] u) => (float[1,1,4,4] a, float[1,1,4] b) <float[4] s = {1, 1, 2, 2}, float[3] s3 = {1, 1, 2}> {
  a = Resize (x, , s)
  b = Resize (u, , s3) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "QuantizeLinear: scales and zero points constant",
      op: "QuantizeLinear",
      graph: `(float[4] x, float s) => (uint8[4] y, uint8[4] z) <float c = {0.5}, uint8 zp = {0}> {
  y = QuantizeLinear (x, c, zp)
  z = QuantizeLinear (x, s, zp) }`,
      verdicts: ["supported", "partial"],
    },
  ],
  tensorrt: [
    {
      note: "TopK: sorted 1, K under 3840",
      op: "TopK",
      graph: `(float[4000] x) => (float[2] a, int64[2] i, float[2] b, int64[2] j, float[3900] c, int64[3900] k)
  <int64[1] two = {2}, int64[1] big = {3900}> {
  a, i = TopK (x, two)
  b, j = TopK <sorted = 0> (x, two)
  c, k = TopK (x, big) }`,
      verdicts: ["supported", "partial", "partial"],
    },
    {
      note: "MaxPool: Indices unsupported, dilations all ones",
      op: "MaxPool",
      graph: `(float[1,1,4,4] x) => (float[1,1,2,2] a, float[1,1,2,2] b, int64[1,1,2,2] i, float[1,1,2,2] c) {
  a = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (x)
  b, i = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (x)
  c = MaxPool <kernel_shape = [2, 2], dilations = [2, 2]> (x) }`,
      verdicts: ["supported", "partial", "partial"],
    },
    {
      note: "LayerNormalization: only the first output",
      op: "LayerNormalization",
      graph: `(float[2,3] x) => (float[2,3] y, float[2,3] z, float[2,1] m) <float[3] g = {1, 1, 1}> {
  y = LayerNormalization (x, g)
  z, m = LayerNormalization (x, g) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "QuantizeLinear: y_zero_point 0; quantized to INT8, INT4 or FP8 (UINT8 only at the interface)",
      op: "QuantizeLinear",
      graph: `(float[4] x) => (int8[4] y, int8[4] z, uint8[4] u) <float s = {0.5}, int8 zero = {0}, int8 one = {1}> {
  y = QuantizeLinear (x, s, zero)
  z = QuantizeLinear (x, s, one)
  u = QuantizeLinear (x, s) }`,
      verdicts: ["supported", "partial", "partial"],
    },
    {
      note: "DequantizeLinear: the quantized input INT8, FP8 or INT4; x_zero_point 0",
      op: "DequantizeLinear",
      opset: 19,
      graph: `(int8[4] x, uint8[4] u) => (float[4] y, float[4] z) <float s = {0.5}, int8 zero = {0}, uint8 uz = {0}> {
  y = DequantizeLinear (x, s, zero)
  z = DequantizeLinear (u, s, uz) }`,
      verdicts: ["supported", "partial"],
      reason: /input 'x' is uint8/,
    },
    {
      note: "CumSum: FP32, FP16, BF16 (the data's types; the axis int32 or int64), axis an initializer",
      op: "CumSum",
      graph: `(float[3] x, int32[3] i, int64 a) => (float[3] y, int32[3] z, float[3] w) <int64 zero = {0}> {
  y = CumSum (x, zero)
  z = CumSum (i, zero)
  w = CumSum (x, a) }`,
      verdicts: ["supported", "partial", "partial"],
    },
    {
      note: "EyeLike: static dimensions",
      op: "EyeLike",
      graph: `(float[3,3] x, float[N,3] u) => (float[3,3] y, float[N,3] z) {
  y = EyeLike (x)
  z = EyeLike (u) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "AveragePool: 2D or 3D, dilations all ones",
      op: "AveragePool",
      opset: 19,
      graph: `(float[1,1,4,4] x, float[1,1,4] u) => (float[1,1,2,2] a, float[1,1,2] b, float[1,1,2,2] c) {
  a = AveragePool <kernel_shape = [2, 2], strides = [2, 2]> (x)
  b = AveragePool <kernel_shape = [2], strides = [2]> (u)
  c = AveragePool <kernel_shape = [2, 2], dilations = [2, 2]> (x) }`,
      verdicts: ["supported", "partial", "partial"],
    },
    {
      note: "Dropout: training mode an initializer, false",
      op: "Dropout",
      graph: `(float[2,3] x, bool t) => (float[2,3] y, float[2,3] z, float[2,3] w) <float r = {0.5}, bool no = {0}, bool yes = {1}> {
  y = Dropout (x, r, no)
  z = Dropout (x, r, yes)
  w = Dropout (x, r, t) }`,
      verdicts: ["supported", "partial", "partial"],
    },
    {
      note: "LSTM: input_forget 0, layout 0",
      op: "LSTM",
      graph: `(float[2,1,3] x) => (float[2,1,1,2] y, float[2,1,1,2] z) <float[1,8,3] w = {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}, float[1,8,2] r = {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}> {
  y = LSTM <hidden_size = 2> (x, w, r)
  z = LSTM <hidden_size = 2, input_forget = 1> (x, w, r) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "OneHot: depth a build-time constant",
      op: "OneHot",
      graph: `(int64[3] i, int64 d) => (float[3,4] y, float[3,?] z) <int64 four = {4}, float[2] v = {0, 1}> {
  y = OneHot (i, four, v)
  z = OneHot (i, d, v) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Slice / Squeeze / Unsqueeze: axes an initializer",
      op: "Unsqueeze",
      graph: `(float[3] x, int64[1] a) => (float[1,3] y, float[?,?] z) <int64[1] zero = {0}> {
  y = Unsqueeze (x, zero)
  z = Unsqueeze (x, a) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "ScatterND: reduction not supported",
      op: "ScatterND",
      opset: 18,
      graph: `(float[4] x, int64[1,1] i, float[1] u) => (float[4] y, float[4] z) {
  y = ScatterND (x, i, u)
  z = ScatterND <reduction = "mul"> (x, i, u) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Hardmax: the axis dim a build-time constant",
      op: "Hardmax",
      graph: `(float[N,3] x) => (float[N,3] y, float[N,3] z) {
  y = Hardmax <axis = 1> (x)
  z = Hardmax <axis = 0> (x) }`,
      verdicts: ["supported", "partial"],
    },
  ],
  "onnx-mlir": [
    {
      note: "Reshape: allowzero not supported",
      op: "Reshape",
      opset: 14,
      graph: `(float[2,3] x) => (float[3,2] y, float[3,2] z) <int64[2] s = {3, 2}> {
  y = Reshape (x, s)
  z = Reshape <allowzero = 1> (x, s) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "LogSoftmax: axis 0, 1 and default disabled",
      op: "LogSoftmax",
      opset: 13,
      graph: `(float[2,3,4] x) => (float[2,3,4] y, float[2,3,4] z) {
  y = LogSoftmax <axis = 2> (x)
  z = LogSoftmax (x) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Shape: start and end not supported",
      op: "Shape",
      opset: 15,
      graph: `(float[2,3] x) => (int64[2] y, int64[1] z) {
  y = Shape (x)
  z = Shape <start = 1> (x) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Dropout: no mask, no training",
      op: "Dropout",
      graph: `(float[2,3] x) => (float[2,3] y, float[2,3] z, bool[2,3] m) {
  y = Dropout (x)
  z, m = Dropout (x) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "ReduceMax: do_not_keep_dims not supported",
      op: "ReduceMax",
      opset: 18,
      graph: `(float[2,3] x) => (float[2,1] y, float[2] z) <int64[1] one = {1}> {
  y = ReduceMax (x, one)
  z = ReduceMax <keepdims = 0> (x, one) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Resize: no linear, cubic, crop, pytorch_half_pixel, floor",
      op: "Resize",
      opset: 13,
      graph: `(float[1,1,2,2] x) => (float[1,1,4,4] a, float[1,1,4,4] b) <float[4] s = {1, 1, 2, 2}> {
  a = Resize <mode = "nearest", nearest_mode = "round_prefer_ceil"> (x, , s)
  b = Resize <mode = "linear"> (x, , s) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "MaxPool: no argmax (Indices)",
      op: "MaxPool",
      graph: `(float[1,1,4,4] x) => (float[1,1,2,2] a, float[1,1,2,2] b, int64[1,1,2,2] i) {
  a = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (x)
  b, i = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (x) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "Split: no zero-size splits",
      op: "Split",
      graph: `(float[4] x) => (float[2] a, float[2] b, float[0] c, float[4] d) <int64[2] k = {2, 2}, int64[2] z = {0, 4}> {
  a, b = Split (x, k)
  c, d = Split (x, z) }`,
      verdicts: ["supported", "partial"],
    },
    {
      note: "IsInf: only float32 and float64",
      op: "IsInf",
      opset: 20,
      graph: `(float[2] x, float16[2] h) => (bool[2] y, bool[2] z) {
  y = IsInf (x)
  z = IsInf (h) }`,
      verdicts: ["supported", "unsupported"], // an element type the row lacks
    },
    {
      note: "Pad: axes input not supported",
      op: "Pad",
      opset: 18,
      graph: `(float[4] x) => (float[6] a, float[6] b) <int64[2] p = {1, 1}, int64[1] ax = {0}> {
  a = Pad (x, p)
  b = Pad (x, p, , ax) }`,
      verdicts: ["supported", "partial"],
    },
  ],
};

describe("each note: a node that meets it is supported, one that does not is partial", () => {
  for (const [profile, cases] of Object.entries(CASES))
    for (const c of cases)
      it(`${profile}: ${c.note}`, () => {
        const imports = [`"" : ${c.opset ?? 17}`, ...(c.ms ? [`"com.microsoft" : 1`] : [])];
        const m = parseModelText(
          `<ir_version: 9, opset_import: [${imports.join(", ")}]>\ng ${c.graph}`,
        );
        const nodes = classifyModel(m, loadProfile(profile)).nodes.filter((n) => n.op === c.op);
        expect(
          nodes.map((n) => n.verdict),
          nodes.map((n) => n.reasons.join("; ")).join(" | "),
        ).toEqual(c.verdicts);
        if (c.reason) {
          const failed = nodes.find((n) => n.verdict === "partial")!;
          expect(failed.reasons.join("; ")).toMatch(c.reason);
        }
      });
});

describe("every constraint can fail: it names an input, output or attribute the op has", () => {
  const registry = SchemaRegistry.default();
  for (const p of listProfiles())
    it(`${p.name}@${p.version}`, () => {
      const dead: string[] = [];
      for (const [key, row] of Object.entries(p.ops)) {
        const op = row.domain ? key.slice(row.domain.length + 1) : key;
        const versions = registry
          .versions(row.domain, op)
          .filter((v) => versionSupported(row, v.since));
        if (!versions.length) continue;
        const has = (where: "inputs" | "outputs" | "attributes", name: string) =>
          versions.some((v) => v[where].some((f) => f.name === name));
        const check = (c: Constraint): void => {
          if (c.kind === "any") return c.of.flat().forEach(check);
          const named =
            c.kind === "attribute"
              ? has("attributes", c.name)
              : c.kind === "every-axis"
                ? has("attributes", c.attribute)
                : c.kind === "absent-output" || c.kind === "output-types"
                  ? has("outputs", c.name)
                  : "name" in c
                    ? has("inputs", c.name) || has("attributes", c.name)
                    : true;
          if (!named) dead.push(`${key}: ${JSON.stringify(c)}`);
        };
        row.constraints.forEach(check);
      }
      expect(dead).toEqual([]);
    });
});

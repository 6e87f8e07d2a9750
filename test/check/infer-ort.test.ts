// Inferred shapes against a real run: small real-ish models (a conv-pool-flatten-gemm net, a
// BERT-like attention block whose reshapes are computed from Shape → Gather → Concat, a GPT-like
// causal mask built from Range and Where) with every value made an output, run on
// onnxruntime-node; each inferred shape must be complete and equal the real one, symbols bound
// consistently (the inputs' symbols to the fed sizes).

import * as ort from "onnxruntime-node";
import { describe, expect, it } from "vitest";
import { checkModel, formatProblem, inferTypes } from "../../src/check/index.js";
import { evalDim, isExpr } from "../../src/check/dim-expr.js";
import { analyze } from "../../src/check/infer.js";
import { encodeModel } from "../../src/io/files.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Dim, type Model, type Node } from "../../src/ir/types.js";

const ints = (name: string, values: number[], dims = [values.length]) =>
  Tensor.from(DataType.INT64, dims, values.map(BigInt), name);
function floats(name: string, dims: number[], seed = 1): Tensor {
  const n = dims.reduce((a, b) => a * b, 1);
  let s = seed;
  const v = Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (s / 2147483648 - 0.5) * 0.2;
  });
  return Tensor.from(DataType.FLOAT, dims, v, name);
}

/** Runs the model with every node output an output; returns real shapes by name. */
async function realShapes(
  m: Model,
  feeds: Record<string, ort.Tensor>,
): Promise<Map<string, number[]>> {
  const outs = [...new Set(m.graph.nodes.flatMap((n) => n.outputs))].map((name) => ({ name }));
  const all: Model = { ...m, graph: { ...m.graph, outputs: outs } };
  const session = await ort.InferenceSession.create(encodeModel(all), { logSeverityLevel: 3 });
  try {
    const r = await session.run(feeds);
    return new Map(Object.entries(r).map(([k, v]) => [k, [...v.dims]]));
  } finally {
    await session.release();
  }
}

/** Every node output's inferred shape is complete and agrees with the run. */
async function expectShapesMatch(
  m: Model,
  feeds: Record<string, ort.Tensor>,
  binding: Record<string, number>,
  freshDims = false,
): Promise<number> {
  expect(checkModel(m).problems.map(formatProblem)).toEqual([]);
  const types = freshDims ? analyze(m, { freshDims }).types.get(m.graph)! : inferTypes(m);
  const real = await realShapes(m, feeds);
  const bound = new Map(Object.entries(binding));
  let n = 0;
  for (const [name, r] of real) {
    const t = types.get(name);
    const shape = t?.kind === "tensor" ? t.shape : undefined;
    expect(shape, `'${name}' has no inferred shape (real [${r}])`).toBeDefined();
    const dims = shape!.map((d: Dim) => {
      if (typeof d !== "string") return d;
      // An expression of a symbol (check/dim-expr.ts) is worked out from the symbol's size.
      if (isExpr(d)) return evalDim(d, bound);
      if (!bound.has(d)) bound.set(d, r[shape!.indexOf(d)]!);
      return bound.get(d)!;
    });
    expect(dims, `'${name}'`).toEqual(r);
    n++;
  }
  return n;
}

const N = 2;
const S = 5;

describe("inferred shapes equal those of a real run (onnxruntime-node)", () => {
  it("conv → batchnorm → relu → maxpool → conv → global pool → flatten → gemm", async () => {
    const nodes: Node[] = [
      node("Conv", ["x", "w1", "b1"], ["c1"], { pads: [1, 1, 1, 1], strides: [2, 2] }),
      node("BatchNormalization", ["c1", "g", "beta", "mean", "var"], ["bn"]),
      node("Relu", ["bn"], ["r1"]),
      node("MaxPool", ["r1"], ["p1"], { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1 }),
      node("Conv", ["p1", "w2"], ["c2"], { auto_pad: "SAME_UPPER", strides: [2, 1] }),
      node("AveragePool", ["c2"], ["p2"], { kernel_shape: [2, 2], pads: [0, 0, 1, 1] }),
      node("GlobalAveragePool", ["p2"], ["gp"]),
      node("Flatten", ["gp"], ["f"]),
      node("Gemm", ["f", "wf", "bf"], ["y"], { transB: 1 }),
      node("Softmax", ["y"], ["prob"]),
    ];
    const m = model(
      graph({
        nodes,
        inputs: [valueInfo("x", "float", ["N", 3, 17, 15])],
        outputs: [{ name: "prob" }],
        initializers: [
          floats("w1", [8, 3, 3, 3]),
          floats("b1", [8], 2),
          floats("g", [8], 3),
          floats("beta", [8], 4),
          floats("mean", [8], 5),
          Tensor.from(DataType.FLOAT, [8], new Array(8).fill(1), "var"),
          floats("w2", [4, 8, 3, 3], 6),
          floats("wf", [10, 4], 7),
          floats("bf", [10], 8),
        ],
      }),
      17,
    );
    const x = new ort.Tensor("float32", new Float32Array(N * 3 * 17 * 15).fill(0.5), [
      N,
      3,
      17,
      15,
    ]);
    expect(await expectShapesMatch(m, { x }, { N })).toBe(nodes.length);
  });

  it("a BERT-like attention block: reshapes computed from Shape → Gather → Concat", async () => {
    const H = 4;
    const D = 8;
    const E = H * D;
    const nodes: Node[] = [
      node("Gather", ["emb", "ids"], ["h"], { axis: 0 }),
      node("Shape", ["h"], ["shape"]),
      node("Gather", ["shape", "zero"], ["b"], { axis: 0 }),
      node("Gather", ["shape", "one"], ["s"], { axis: 0 }),
      node("Unsqueeze", ["b", "axis0"], ["b1"]),
      node("Unsqueeze", ["s", "axis0"], ["s1"]),
      node("Concat", ["b1", "s1", "heads"], ["split_shape"], { axis: 0 }),
      node("MatMul", ["h", "wq"], ["q0"]),
      node("Reshape", ["q0", "split_shape"], ["q1"]),
      node("Transpose", ["q1"], ["q"], { perm: [0, 2, 1, 3] }),
      node("MatMul", ["h", "wk"], ["k0"]),
      node("Reshape", ["k0", "split_shape"], ["k1"]),
      node("Transpose", ["k1"], ["kt"], { perm: [0, 2, 3, 1] }),
      node("MatMul", ["q", "kt"], ["scores"]),
      node("Div", ["scores", "scale"], ["scaled"]),
      node("Cast", ["mask"], ["maskf"], { to: DataType.FLOAT }),
      node("Unsqueeze", ["maskf", "axes12"], ["mask4"]),
      node("Sub", ["onef", "mask4"], ["inv"]),
      node("Mul", ["inv", "big"], ["bias"]),
      node("Add", ["scaled", "bias"], ["masked"]),
      node("Softmax", ["masked"], ["attn"], { axis: -1 }),
      node("MatMul", ["attn", "q"], ["ctx"]),
      node("Transpose", ["ctx"], ["ctx_t"], { perm: [0, 2, 1, 3] }),
      node("Concat", ["b1", "s1", "minus1"], ["merge_shape"], { axis: 0 }),
      node("Reshape", ["ctx_t", "merge_shape"], ["merged"]),
      node("LayerNormalization", ["merged", "ln_g", "ln_b"], ["y"], { axis: -1 }),
      node("ReduceMean", ["y", "axis1"], ["pooled"], { keepdims: 0 }),
    ];
    const m = model(
      graph({
        nodes,
        inputs: [
          valueInfo("ids", "int64", ["batch", "sequence"]),
          valueInfo("mask", "int64", ["batch", "sequence"]),
        ],
        outputs: [{ name: "pooled" }],
        initializers: [
          floats("emb", [50, E]),
          floats("wq", [E, E], 2),
          floats("wk", [E, E], 3),
          floats("ln_g", [E], 4),
          floats("ln_b", [E], 5),
          ints("zero", [0], []),
          ints("one", [1], []),
          ints("axis0", [0]),
          ints("axes12", [1, 2]),
          ints("axis1", [1]),
          ints("heads", [H, D]),
          ints("minus1", [-1]),
          Tensor.from(DataType.FLOAT, [], [Math.sqrt(D)], "scale"),
          Tensor.from(DataType.FLOAT, [], [1], "onef"),
          Tensor.from(DataType.FLOAT, [], [-10000], "big"),
        ],
      }),
      18,
    );
    const ids = new ort.Tensor(
      "int64",
      BigInt64Array.from({ length: N * S }, (_, i) => BigInt(i % 50)),
      [N, S],
    );
    const mask = new ort.Tensor("int64", new BigInt64Array(N * S).fill(1n), [N, S]);
    expect(await expectShapesMatch(m, { ids, mask }, { batch: N, sequence: S })).toBe(nodes.length);
  });

  it("a GPT-like causal mask: Range over the sequence length, Where, Expand", async () => {
    const nodes: Node[] = [
      node("Shape", ["x"], ["shape"]),
      node("Gather", ["shape", "one"], ["s"], { axis: 0 }),
      node("Range", ["zero", "s", "one"], ["pos"]),
      node("Unsqueeze", ["pos", "axis0"], ["row"]),
      node("Unsqueeze", ["pos", "axis1"], ["col"]),
      node("GreaterOrEqual", ["col", "row"], ["causal"]),
      node("Where", ["causal", "x_zero", "neg"], ["bias"]),
      node("Shape", ["x"], ["shape2"], { end: 2 }),
      node("Concat", ["shape2", "s1"], ["target"], { axis: 0 }),
      node("Unsqueeze", ["s", "axis0"], ["s1"]),
      node("Expand", ["bias", "target"], ["y"]),
    ];
    // Unsqueeze of s is listed after its use: the checker orders nodes itself.
    const ordered = [...nodes.slice(0, 8), nodes[9]!, nodes[8]!, nodes[10]!];
    const m = model(
      graph({
        nodes: ordered,
        inputs: [valueInfo("x", "float", ["batch", "sequence"])],
        outputs: [{ name: "y" }],
        initializers: [
          ints("zero", [0], []),
          ints("one", [1], []),
          ints("axis0", [0]),
          ints("axis1", [1]),
          Tensor.from(DataType.FLOAT, [], [0], "x_zero"),
          Tensor.from(DataType.FLOAT, [], [-1e9], "neg"),
        ],
      }),
      18,
    );
    const x = new ort.Tensor("float32", new Float32Array(N * S), [N, S]);
    expect(await expectShapesMatch(m, { x }, { batch: N, sequence: S })).toBe(nodes.length);
  });

  it("data-dependent sizes with freshDims: one symbol each, consistent with the run", async () => {
    const nodes: Node[] = [
      node("Greater", ["x", "zerof"], ["pos"]),
      node("NonZero", ["pos"], ["nz"]),
      node("Transpose", ["nz"], ["idx"]),
      node("GatherND", ["x", "idx"], ["picked"]),
      node("Relu", ["picked"], ["r"]),
      node("Shape", ["picked"], ["n"]),
      node("ConstantOfShape", ["n"], ["fill"]),
      node("Add", ["r", "fill"], ["y"]),
      node("Unsqueeze", ["y", "axis0"], ["y1"]),
      node("Concat", ["y1", "y1"], ["y2"], { axis: 1 }),
    ];
    const m = model(
      graph({
        nodes,
        inputs: [valueInfo("x", "float", ["batch", 6])],
        outputs: [{ name: "y2" }],
        initializers: [Tensor.from(DataType.FLOAT, [], [0], "zerof"), ints("axis0", [0])],
      }),
      18,
    );
    const x = new ort.Tensor(
      "float32",
      Float32Array.from({ length: N * 6 }, (_, i) => (i % 3) - 1),
      [N, 6],
    );
    expect(await expectShapesMatch(m, { x }, { batch: N }, true)).toBe(nodes.length);
  });

  it("pooling and convolution windows: seeded configurations agree with the run", async () => {
    let seed = 7;
    const pick = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let checked = 0;
    for (let t = 0; t < 24; t++) {
      const op = ["MaxPool", "AveragePool", "Conv"][t % 3]!;
      const size = [5 + pick(8), 4 + pick(9)];
      const k = [1 + pick(3), 1 + pick(4)];
      const strides = [1 + pick(3), 1 + pick(2)];
      const pads = [pick(k[0]!), pick(k[1]!), pick(k[0]!), pick(k[1]!)];
      const attrs: Record<string, unknown> = { kernel_shape: k, strides, pads };
      if (op !== "Conv") attrs.ceil_mode = pick(2);
      if (op !== "AveragePool" && pick(2)) attrs.dilations = [1 + pick(2), 1];
      const inits = op === "Conv" ? [floats("w", [2, 3, k[0]!, k[1]!])] : [];
      const m = model(
        graph({
          nodes: [node(op, op === "Conv" ? ["x", "w"] : ["x"], ["y"], attrs)],
          inputs: [valueInfo("x", "float", [1, 3, ...size])],
          outputs: [{ name: "y" }],
          initializers: inits,
        }),
        18,
      );
      const x = new ort.Tensor("float32", new Float32Array(3 * size[0]! * size[1]!), [
        1,
        3,
        ...size,
      ]);
      expect(await expectShapesMatch(m, { x }, {})).toBe(1);
      checked++;
    }
    expect(checked).toBe(24);
  });
  it("strided windows and pads on symbolic sizes: expressions of H and W, at several sizes", async () => {
    const nodes: Node[] = [
      node("Conv", ["x", "w1"], ["c1"], { pads: [1, 1, 1, 1], strides: [2, 2] }),
      node("MaxPool", ["c1"], ["p1"], { kernel_shape: [2, 2], strides: [2, 2] }),
      node("Conv", ["p1", "w2"], ["c2"], { auto_pad: "SAME_UPPER", strides: [2, 3] }),
      node("AveragePool", ["c2"], ["p2"], { kernel_shape: [3, 1], strides: [2, 1] }),
      node("Pad", ["p2", "pads"], ["pd"]),
      node("Concat", ["pd", "pd"], ["cat"], { axis: 1 }),
      node("Conv", ["cat", "w3"], ["c3"], { kernel_shape: [1, 3], dilations: [1, 2] }),
      node("MaxPool", ["c3"], ["y"], { kernel_shape: [3, 1], strides: [2, 1], ceil_mode: 1 }),
    ];
    const m = model(
      graph({
        nodes,
        inputs: [valueInfo("x", "float", ["N", 3, "H", "W"])],
        outputs: [{ name: "y" }],
        initializers: [
          floats("w1", [4, 3, 3, 3]),
          floats("w2", [4, 4, 3, 3], 2),
          ints("pads", [0, 0, 1, 0, 0, 0, 2, 1]),
          floats("w3", [2, 8, 1, 3], 3),
        ],
      }),
      18,
    );
    const types = inferTypes(m);
    const c2 = types.get("c2");
    expect(c2?.kind === "tensor" && c2.shape).toEqual(["N", 4, "ceil((H-2)/8)", "ceil((W-2)/12)"]);
    for (const [h, w] of [
      [64, 60],
      [91, 77],
      [121, 50],
    ] as const) {
      const x = new ort.Tensor("float32", new Float32Array(N * 3 * h * w), [N, 3, h, w]);
      expect(await expectShapesMatch(m, { x }, { N, H: h, W: w })).toBe(nodes.length);
    }
  });

  it("position ids sliced from a buffer up to the sequence length, added to the word embeddings", async () => {
    const nodes: Node[] = [
      node("Shape", ["ids"], ["shape"]),
      node("Gather", ["shape", "one"], ["len"], { axis: 0 }),
      node("Unsqueeze", ["len", "axis0"], ["end"]),
      node("Slice", ["buffer", "zero1", "end", "axis1"], ["pos"]),
      node("Gather", ["table", "pos"], ["pe"], { axis: 0 }),
      node("Gather", ["words", "ids"], ["we"], { axis: 0 }),
      node("Add", ["we", "pe"], ["emb"]),
      // A size computed from the length: (len + 1) / 2 rows, Range over it, Min against 6.
      node("Add", ["len", "one"], ["len1"]),
      node("Div", ["len1", "two"], ["half"]),
      node("Range", ["zero", "half", "one"], ["r"]),
      node("Min", ["len", "six"], ["capped"]),
      node("Unsqueeze", ["capped", "axis0"], ["cshape"]),
      node("ConstantOfShape", ["cshape"], ["y"]),
    ];
    const m = model(
      graph({
        nodes,
        inputs: [valueInfo("ids", "int64", ["batch", "sequence"])],
        outputs: [{ name: "emb" }, { name: "r" }, { name: "y" }],
        initializers: [
          ints("zero", [0], []),
          ints("one", [1], []),
          ints("two", [2], []),
          ints("six", [6], []),
          ints("axis0", [0]),
          ints("axis1", [1]),
          ints("zero1", [0]),
          ints("buffer", [0, 1, 2, 3, 4, 5, 6, 7], [1, 8]),
          floats("table", [8, 4]),
          floats("words", [10, 4], 2),
        ],
      }),
      18,
    );
    for (const s of [3, 5, 8]) {
      const ids = new ort.Tensor("int64", new BigInt64Array(N * s).fill(1n), [N, s]);
      expect(await expectShapesMatch(m, { ids }, { batch: N, sequence: s })).toBe(nodes.length);
    }
  });

  it("pooling and convolution windows on a symbolic size: seeded configurations agree with the run", async () => {
    let seed = 11;
    const pick = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let t = 0; t < 12; t++) {
      const op = ["MaxPool", "AveragePool", "Conv"][t % 3]!;
      const k = [1 + pick(3), 1 + pick(4)];
      const strides = [1 + pick(3), 1 + pick(2)];
      const pads = [pick(k[0]!), pick(k[1]!), pick(k[0]!), pick(k[1]!)];
      const attrs: Record<string, unknown> = { kernel_shape: k, strides, pads };
      // ceil_mode where the last window surely starts inside (stride + end pad ≤ kernel).
      if (op !== "Conv" && [0, 1].every((i) => strides[i]! + pads[i + 2]! <= k[i]!))
        attrs.ceil_mode = 1;
      const inits = op === "Conv" ? [floats("w", [2, 3, k[0]!, k[1]!])] : [];
      const m = model(
        graph({
          nodes: [node(op, op === "Conv" ? ["x", "w"] : ["x"], ["y"], attrs)],
          inputs: [valueInfo("x", "float", [1, 3, "H", "W"])],
          outputs: [{ name: "y" }],
          initializers: inits,
        }),
        18,
      );
      const size = [5 + pick(8), 4 + pick(9)];
      const x = new ort.Tensor("float32", new Float32Array(3 * size[0]! * size[1]!), [
        1,
        3,
        ...size,
      ]);
      expect(await expectShapesMatch(m, { x }, { H: size[0]!, W: size[1]! })).toBe(1);
    }
  });
  it("torch's F.pad pattern: pads computed by Concat, Reshape, a reversing Slice and a Transpose", async () => {
    const nodes: Node[] = [
      node("ConstantOfShape", ["two"], ["zeros"], {
        value: Tensor.from(DataType.INT64, [1], [0n]),
      }),
      node("Concat", ["pad", "zeros"], ["all"], { axis: 0 }),
      node("Reshape", ["all", "pairs"], ["m"]),
      node("Slice", ["m", "minus1", "most", "axis0", "minus1"], ["rev"]),
      node("Transpose", ["rev"], ["tr"], { perm: [1, 0] }),
      node("Reshape", ["tr", "flat"], ["pads"]),
      node("Pad", ["x", "pads"], ["y"], { mode: "reflect" }),
    ];
    const m = model(
      graph({
        nodes,
        inputs: [valueInfo("x", "float", ["batch", "sequence"])],
        outputs: [{ name: "y" }],
        initializers: [
          ints("two", [2]),
          ints("pad", [3, 5]),
          ints("pairs", [-1, 2]),
          ints("minus1", [-1]),
          ints("most", [-(2 ** 62)]),
          ints("axis0", [0]),
          ints("flat", [-1]),
        ],
      }),
      18,
    );
    const y = inferTypes(m).get("y");
    expect(y?.kind === "tensor" && y.shape).toEqual(["batch", "sequence+8"]);
    const x = new ort.Tensor("float32", new Float32Array(N * 9), [N, 9]);
    expect(await expectShapesMatch(m, { x }, { batch: N, sequence: 9 })).toBe(nodes.length);
  });
});

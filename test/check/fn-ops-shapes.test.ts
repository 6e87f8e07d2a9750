// Shapes the checker infers for the function ops that have kernels of their own (Attention,
// LinearAttention, RotaryEmbedding, CausalConvWithState, AffineGrid, CenterCropPad, the
// normalisations and activations), so that values after them keep known shapes.

import { describe, expect, it } from "vitest";
import { checkModel, describeType, formatProblem, inferTypes } from "../../src/check/index.js";
import { graph, model, node, valueInfo, type AttrInput } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Dim } from "../../src/ir/types.js";

type In = [name: string, elem: string, shape: Dim[]];

/** The inferred output types (as text) of one node at an opset; the model must check clean. */
function infer(
  op: string,
  opset: number,
  inputs: (In | "")[],
  outputs: string[],
  attrs: Record<string, AttrInput> = {},
  initializers: Tensor[] = [],
): string[] {
  const n = node(
    op,
    inputs.map((i) => (i === "" ? "" : i[0])),
    outputs,
    attrs,
  );
  const inits = new Set(initializers.map((t) => t.name));
  const m = model(
    graph({
      nodes: [n],
      inputs: inputs
        .filter((i): i is In => i !== "" && !inits.has(i[0]))
        .map(([name, elem, shape]) => valueInfo(name, elem, shape)),
      initializers,
      outputs: outputs.filter(Boolean).map((o) => valueInfo(o)),
    }),
    opset,
    13,
  );
  expect(checkModel(m).problems.map(formatProblem)).toEqual([]);
  const t = inferTypes(m);
  return outputs.filter(Boolean).map((o) => describeType(t.get(o)));
}

const ints = (name: string, values: number[]) =>
  Tensor.from(DataType.INT64, [values.length], values.map(BigInt), name);

describe("attention family", () => {
  it("Attention: 4-D Y, present key/value with the past, qk output", () => {
    expect(
      infer(
        "Attention",
        23,
        [
          ["q", "float", [2, 4, 3, 8]],
          ["k", "float", [2, 2, 5, 8]],
          ["v", "double", [2, 2, 5, 6]],
          "",
          ["pk", "float", [2, 2, 7, 8]],
          ["pv", "double", [2, 2, 7, 6]],
        ],
        ["y", "pko", "pvo", "qk"],
      ),
    ).toEqual(["float[2,4,3,6]", "float[2,2,12,8]", "double[2,2,12,6]", "float[2,4,3,12]"]);
  });
  it("Attention: 3-D inputs pack heads; symbolic dimensions pass through", () => {
    expect(
      infer(
        "Attention",
        24,
        [
          ["q", "float16", ["B", "S", 12]],
          ["k", "float16", ["B", 5, 6]],
          ["v", "float16", ["B", 5, 4]],
        ],
        ["y"],
        { q_num_heads: 4, kv_num_heads: 2 },
      ),
    ).toEqual(["float16[B,S,8]"]);
  });
  it("LinearAttention: output packs query heads; present_state has past_state's type", () => {
    expect(
      infer(
        "LinearAttention",
        27,
        [
          ["q", "float16", [1, 5, 8]],
          ["k", "float16", [1, 5, 4]],
          ["v", "float16", [1, 5, 6]],
          ["s", "float", [1, 2, 2, 3]],
        ],
        ["o", "ps"],
        { q_num_heads: 4, kv_num_heads: 2, update_rule: "linear" },
      ),
    ).toEqual(["float16[1,5,12]", "float[1,2,2,3]"]);
  });
  it("RotaryEmbedding keeps X; CausalConvWithState keeps the input and carries k−1 positions", () => {
    expect(
      infer(
        "RotaryEmbedding",
        23,
        [
          ["x", "float", [1, 2, 3, 4]],
          ["c", "float", [8, 2]],
          ["s", "float", [8, 2]],
        ],
        ["y"],
      ),
    ).toEqual(["float[1,2,3,4]"]);
    expect(
      infer(
        "CausalConvWithState",
        27,
        [
          ["x", "bfloat16", ["B", 3, "L"]],
          ["w", "bfloat16", [3, 1, 4]],
        ],
        ["y", "s"],
      ),
    ).toEqual(["bfloat16[B,3,L]", "bfloat16[B,3,3]"]);
  });
});

describe("geometry", () => {
  it("AffineGrid takes N from theta and the spatial sizes from a constant size", () => {
    expect(
      infer(
        "AffineGrid",
        20,
        [
          ["t", "float", ["N", 2, 3]],
          ["s", "int64", [4]],
        ],
        ["g"],
        {},
        [ints("s", [2, 3, 5, 7])],
      ),
    ).toEqual(["float[N,5,7,2]"]);
    expect(
      infer(
        "AffineGrid",
        20,
        [
          ["t", "double", [1, 3, 4]],
          ["s", "int64", [5]],
        ],
        ["g"],
      ),
    ).toEqual(["double[1,?,?,?,3]"]);
  });
  it("CenterCropPad sets the chosen axes to the constant shape", () => {
    expect(
      infer(
        "CenterCropPad",
        18,
        [
          ["x", "int32", [4, 5, 6]],
          ["s", "int64", [2]],
        ],
        ["y"],
        { axes: [-1, 0] },
        [ints("s", [9, 2])],
      ),
    ).toEqual(["int32[2,5,9]"]);
  });
});

describe("normalisations and activations", () => {
  it("GroupNormalization and Swish keep X; RMSNormalization has X's shape and scale's type", () => {
    expect(
      infer(
        "GroupNormalization",
        21,
        [
          ["x", "float", [2, 4, 3]],
          ["s", "float", [4]],
          ["b", "float", [4]],
        ],
        ["y"],
        { num_groups: 2 },
      ),
    ).toEqual(["float[2,4,3]"]);
    expect(infer("Swish", 24, [["x", "bfloat16", [7]]], ["y"])).toEqual(["bfloat16[7]"]);
    expect(
      infer(
        "RMSNormalization",
        23,
        [
          ["x", "float16", [2, "D"]],
          ["s", "double", ["D"]],
        ],
        ["y"],
      ),
    ).toEqual(["double[2,D]"]);
    expect(
      infer(
        "SwiGLU",
        28,
        [
          ["a", "float", [3, 4]],
          ["b", "float", [3, 4]],
        ],
        ["y"],
      ),
    ).toEqual(["float[3,4]"]);
  });
});

describe("static impossibilities", () => {
  const problems = (
    op: string,
    opset: number,
    inputs: In[],
    attrs: Record<string, AttrInput> = {},
    inits: Tensor[] = [],
  ) => {
    const m = model(
      graph({
        nodes: [
          node(
            op,
            inputs.map((i) => i[0]),
            ["y"],
            attrs,
          ),
        ],
        inputs: inputs
          .filter((i) => !inits.some((t) => t.name === i[0]))
          .map(([n, e, s]) => valueInfo(n, e, s)),
        initializers: inits,
        outputs: [valueInfo("y")],
      }),
      opset,
      13,
    );
    return checkModel(m).problems.map(formatProblem).join("\n");
  };
  it("SwiGLU inputs of two shapes, Q/K/V of mixed rank, a crop shape of the wrong length", () => {
    expect(
      problems("SwiGLU", 28, [
        ["a", "float", [3, 4]],
        ["b", "float", [4, 3]],
      ]),
    ).toMatch(/SwiGLU-28: 'a' \[3,4\] and 'b' \[4,3\] must have the same shape/);
    expect(
      problems("Attention", 23, [
        ["q", "float", [1, 2, 3, 4]],
        ["k", "float", [1, 3, 8]],
        ["v", "float", [1, 3, 8]],
      ]),
    ).toMatch(/Attention-23: Q, K and V must all be 3-D or all 4-D/);
    expect(
      problems(
        "CenterCropPad",
        18,
        [
          ["x", "float", [4, 5]],
          ["s", "int64", [3]],
        ],
        {},
        [ints("s", [1, 2, 3])],
      ),
    ).toMatch(/CenterCropPad-18: shape has 3 values but there are 2 axes/);
  });
});

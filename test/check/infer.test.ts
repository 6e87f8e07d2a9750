// Type and shape inference: the rules per op, constants followed through shape computations,
// control flow, and agreement between an op and its function body.

import { describe, expect, it } from "vitest";
import { checkModel, describeType, formatProblem, inferTypes } from "../../src/check/index.js";
import { attr, graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import {
  DataType,
  type Dim,
  type Graph,
  type Model,
  type Node,
  type ValueInfo,
} from "../../src/ir/types.js";
import { SchemaRegistry, functionBody, hasFunctionBody } from "../../src/schema/index.js";

const f32Info = (name: string, shape?: Dim[]) => valueInfo(name, "float", shape);
const i64 = (name: string, shape?: Dim[]) => valueInfo(name, "int64", shape);
const ints = (name: string, values: number[], dims = [values.length]) =>
  Tensor.from(DataType.INT64, dims, values.map(BigInt), name);
const scalar = (name: string, v: number) => ints(name, [v], []);

interface Case {
  nodes: Node[];
  inputs: ValueInfo[];
  initializers?: Tensor[];
  opset?: number;
}

function build(c: Case): Model {
  const outs = c.nodes[c.nodes.length - 1]!.outputs.filter(Boolean).map((name) => ({ name }));
  const opset = c.opset ?? 18;
  return model(
    graph({ nodes: c.nodes, inputs: c.inputs, initializers: c.initializers ?? [], outputs: outs }),
    opset,
    opset >= 29 ? 13 : opset >= 15 ? 8 : 7,
  );
}

/** The inferred types (as text) of the last node's outputs; the model must check clean. */
function infer(c: Case): string[] {
  const m = build(c);
  expect(checkModel(m).problems.map(formatProblem)).toEqual([]);
  const t = inferTypes(m);
  return c.nodes[c.nodes.length - 1]!.outputs.map((o) => describeType(t.get(o)));
}
const infer1 = (c: Case) => infer(c)[0];

/** The problems of a model (as text). */
function errors(c: Case): string[] {
  return checkModel(build(c)).problems.map(formatProblem);
}

describe("Reduce family", () => {
  const x = f32Info("x", [2, 3, 4]);
  it("axes attribute (before opset 13/18), negative and duplicate axes", () => {
    expect(
      infer1({
        nodes: [node("ReduceSum", ["x"], ["y"], { axes: [-1], keepdims: 0 })],
        inputs: [x],
        opset: 11,
      }),
    ).toBe("float[2,3]");
    expect(
      infer1({
        nodes: [node("ReduceL1", ["x"], ["y"], { axes: [1, -2] })],
        inputs: [x],
        opset: 13,
      }),
    ).toBe("float[2,1,4]");
    expect(infer1({ nodes: [node("ReduceMax", ["x"], ["y"])], inputs: [x], opset: 13 })).toBe(
      "float[1,1,1]",
    );
  });
  it("axes input: constant, empty with noop_with_empty_axes, or computed at run time", () => {
    const axes = [ints("axes", [0, 2])];
    expect(
      infer1({
        nodes: [node("ReduceLogSum", ["x", "axes"], ["y"], { keepdims: 0 })],
        inputs: [x],
        initializers: axes,
      }),
    ).toBe("float[3]");
    const empty = [ints("axes", [])];
    expect(
      infer1({
        nodes: [node("ReduceSum", ["x", "axes"], ["y"], { noop_with_empty_axes: 1, keepdims: 0 })],
        inputs: [x],
        initializers: empty,
      }),
    ).toBe("float[2,3,4]");
    expect(
      infer1({
        nodes: [node("ReduceSum", ["x", "axes"], ["y"], { keepdims: 0 })],
        inputs: [x],
        initializers: empty,
      }),
    ).toBe("float[]");
    expect(
      infer1({ nodes: [node("ReduceL2", ["x"], ["y"], { noop_with_empty_axes: 1 })], inputs: [x] }),
    ).toBe("float[2,3,4]");
    expect(
      infer1({ nodes: [node("ReduceMean", ["x", "a"], ["y"])], inputs: [x, i64("a", [1])] }),
    ).toBe("float[?,?,?]");
    expect(
      infer1({
        nodes: [node("ReduceMean", ["x", "a"], ["y"], { keepdims: 0 })],
        inputs: [x, i64("a", [1])],
      }),
    ).toBe("float");
  });
  it("rank 0: no axes reduces the single element; an explicit axis is an error", () => {
    expect(infer1({ nodes: [node("ReduceProd", ["s"], ["y"])], inputs: [f32Info("s", [])] })).toBe(
      "float[]",
    );
    const e = errors({
      nodes: [node("ReduceProd", ["s", "axes"], ["y"])],
      inputs: [f32Info("s", [])],
      initializers: [ints("axes", [0])],
    });
    expect(e).toHaveLength(1);
    expect(e[0]).toContain("a rank-0 input has no axes");
  });
  it("keeps the element type; ArgMax gives int64", () => {
    expect(
      infer1({
        nodes: [node("ReduceSumSquare", ["x"], ["y"], { keepdims: 0 })],
        inputs: [i64("x", [5, 6])],
      }),
    ).toBe("int64[]");
    expect(infer1({ nodes: [node("ArgMax", ["x"], ["y"], { axis: 1 })], inputs: [x] })).toBe(
      "int64[2,1,4]",
    );
  });
});

describe("elementwise", () => {
  it("multidirectional broadcasting, symbolic dimensions included", () => {
    expect(
      infer1({
        nodes: [node("Add", ["a", "b"], ["y"])],
        inputs: [f32Info("a", [2, 1, 4]), f32Info("b", [3, 1])],
      }),
    ).toBe("float[2,3,4]");
    expect(
      infer1({
        nodes: [node("Mul", ["a", "b"], ["y"])],
        inputs: [f32Info("a", ["N", 1]), f32Info("b", [1, 5])],
      }),
    ).toBe("float[N,5]");
    expect(
      infer1({
        nodes: [node("Max", ["a", "b", "c"], ["y"])],
        inputs: [f32Info("a", [3]), f32Info("b", [2, 1]), f32Info("c", [])],
      }),
    ).toBe("float[2,3]");
  });
  it("before opset 7 the second input was broadcast to the first (legacy attributes)", () => {
    const legacy = node("Add", ["a", "b"], ["y"], { broadcast: 1, axis: 1 });
    expect(
      infer1({ nodes: [legacy], inputs: [f32Info("a", [2, 3, 4]), f32Info("b", [3])], opset: 6 }),
    ).toBe("float[2,3,4]");
    const prelu = node("PRelu", ["a", "s"], ["y"]);
    expect(
      infer1({ nodes: [prelu], inputs: [f32Info("a", [2, 3, 4]), f32Info("s", [3])], opset: 6 }),
    ).toBe("float[2,3,4]");
    expect(
      errors({ nodes: [prelu], inputs: [f32Info("a", [2, 3, 4]), f32Info("s", [3])], opset: 9 })[0],
    ).toContain("4 and 3");
  });
  it("comparisons, logic and tests give bool", () => {
    expect(
      infer1({
        nodes: [node("Less", ["a", "b"], ["y"])],
        inputs: [f32Info("a", [4, 1]), f32Info("b", [3])],
      }),
    ).toBe("bool[4,3]");
    expect(infer1({ nodes: [node("IsNaN", ["a"], ["y"])], inputs: [f32Info("a", [2, 2])] })).toBe(
      "bool[2,2]",
    );
    expect(infer1({ nodes: [node("IsInf", ["a"], ["y"])], inputs: [f32Info("a", [7])] })).toBe(
      "bool[7]",
    );
    expect(
      infer1({ nodes: [node("Not", ["a"], ["y"])], inputs: [valueInfo("a", "bool", [3])] }),
    ).toBe("bool[3]");
  });
  it("Where broadcasts all three inputs and takes the values' type", () => {
    expect(
      infer1({
        nodes: [node("Where", ["c", "a", "b"], ["y"])],
        inputs: [valueInfo("c", "bool", [3, 1]), f32Info("a", [1, 4]), f32Info("b", [])],
      }),
    ).toBe("float[3,4]");
  });
  it("Cast to something that is not an element type, or to one the version does not allow", () => {
    const e = errors({
      nodes: [node("Cast", ["a"], ["y"], { to: 99 })],
      inputs: [f32Info("a", [2])],
    });
    expect(e).toHaveLength(1);
    expect(e[0]).toContain("'to' = 99 is not a tensor element type");
    const int4 = errors({
      nodes: [node("Cast", ["a"], ["y"], { to: DataType.INT4 })],
      inputs: [f32Info("a", [2])],
      opset: 13,
    });
    expect(int4).toHaveLength(1);
    expect(int4[0]).toContain("output 'y' is tensor(int4), which Cast-13 does not accept");
  });
  it("Cast, CastLike, CumSum and LogCumSumExp keep the shape", () => {
    expect(
      infer1({
        nodes: [node("Cast", ["a"], ["y"], { to: DataType.INT32 })],
        inputs: [f32Info("a", [2, "T"])],
      }),
    ).toBe("int32[2,T]");
    expect(
      infer1({
        nodes: [node("CastLike", ["a", "b"], ["y"])],
        inputs: [f32Info("a", [2]), valueInfo("b", "double", [])],
      }),
    ).toBe("double[2]");
    expect(
      infer1({
        nodes: [node("CumSum", ["a", "ax"], ["y"])],
        inputs: [f32Info("a", [2, 3])],
        initializers: [scalar("ax", 1)],
      }),
    ).toBe("float[2,3]");
    expect(
      infer1({
        nodes: [node("LogCumSumExp", ["a"], ["y"], { axis: -1 })],
        inputs: [valueInfo("a", "float16", [4, 5])],
        opset: 29,
      }),
    ).toBe("float16[4,5]");
  });
});

describe("constants and shape computations", () => {
  it("Constant in each of its forms", () => {
    expect(
      infer1({ nodes: [node("Constant", [], ["y"], { value_ints: [1, 2, 3] })], inputs: [] }),
    ).toBe("int64[3]");
    expect(infer1({ nodes: [node("Constant", [], ["y"], { value_float: 0.5 })], inputs: [] })).toBe(
      "float[]",
    );
    expect(
      infer1({
        nodes: [
          node("Constant", [], ["y"], { value: Tensor.from(DataType.INT32, [2, 2], [1, 2, 3, 4]) }),
        ],
        inputs: [],
      }),
    ).toBe("int32[2,2]");
    expect(
      infer1({ nodes: [node("Constant", [], ["y"], { value_strings: ["a", "b"] })], inputs: [] }),
    ).toBe("string[2]");
    expect(errors({ nodes: [node("Constant", [], ["y"])], inputs: [] })[0]).toContain(
      "needs one value attribute",
    );
  });
  it("Shape with start/end, Size", () => {
    const x = f32Info("x", [2, 3, 4]);
    expect(infer1({ nodes: [node("Shape", ["x"], ["y"], { start: 1 })], inputs: [x] })).toBe(
      "int64[2]",
    );
    expect(
      infer1({ nodes: [node("Shape", ["x"], ["y"], { start: -2, end: -1 })], inputs: [x] }),
    ).toBe("int64[1]");
    expect(infer1({ nodes: [node("Size", ["x"], ["y"])], inputs: [x] })).toBe("int64[]");
  });
  it("a shape computed from Shape, Gather, Unsqueeze and Concat feeds Reshape", () => {
    const nodes = [
      node("Shape", ["x"], ["s"]),
      node("Gather", ["s", "zero"], ["d0"]),
      node("Unsqueeze", ["d0", "ax0"], ["u"]),
      node("Concat", ["u", "minus1"], ["target"], { axis: 0 }),
      node("Reshape", ["x", "target"], ["y"]),
    ];
    const initializers = [scalar("zero", 0), ints("ax0", [0]), ints("minus1", [-1])];
    expect(infer1({ nodes, inputs: [f32Info("x", [2, 3, 4])], initializers })).toBe("float[2,12]");
  });
  it("symbolic dimensions flow through Shape, Slice and Concat into Reshape, Expand, ConstantOfShape", () => {
    const x = f32Info("x", ["B", 3, "T"]);
    const head = [node("Shape", ["x"], ["s"]), node("Slice", ["s", "zero", "two"], ["h"])];
    const init = [ints("zero", [0]), ints("two", [2]), ints("minus1", [-1])];
    const reshape = [
      ...head,
      node("Concat", ["h", "minus1"], ["t"], { axis: 0 }),
      node("Reshape", ["x", "t"], ["y"]),
    ];
    expect(infer1({ nodes: reshape, inputs: [x], initializers: init })).toBe("float[B,3,T]");
    const fill = [node("Shape", ["x"], ["s"]), node("ConstantOfShape", ["s"], ["y"])];
    expect(infer1({ nodes: fill, inputs: [x] })).toBe("float[B,3,T]");
    const expand = [node("Shape", ["x"], ["s"]), node("Expand", ["one", "s"], ["y"])];
    expect(infer1({ nodes: expand, inputs: [x, f32Info("one", [1])] })).toBe("float[B,3,T]");
    const pick = [
      node("Shape", ["x"], ["s"]),
      node("Gather", ["s", "i"], ["d"]),
      node("Unsqueeze", ["d", "zero"], ["u"]),
      node("Expand", ["one", "u"], ["y"]),
    ];
    expect(
      infer1({
        nodes: pick,
        inputs: [x, f32Info("one", [1])],
        initializers: [scalar("i", -1), ints("zero", [0])],
      }),
    ).toBe("float[T]");
  });
  it("Reshape: 0 copies, -1 is inferred, impossible shapes are errors", () => {
    const x = f32Info("x", [2, 3, 4]);
    expect(
      infer1({
        nodes: [node("Reshape", ["x", "s"], ["y"])],
        inputs: [x],
        initializers: [ints("s", [0, -1])],
      }),
    ).toBe("float[2,12]");
    expect(
      infer1({ nodes: [node("Reshape", ["x", "s"], ["y"])], inputs: [x, i64("s", [3])] }),
    ).toBe("float[?,?,?]");
    const e = errors({
      nodes: [node("Reshape", ["x", "s"], ["y"])],
      inputs: [x],
      initializers: [ints("s", [5, -1])],
    });
    expect(e).toHaveLength(1);
    expect(e[0]).toContain("cannot reshape [2,3,4] (24 elements)");
  });
  it("Slice with constant bounds, negative steps, and unknown bounds", () => {
    const x = f32Info("x", [10, 20]);
    const init = [
      ints("st", [1, -5]),
      ints("en", [Number.MAX_SAFE_INTEGER, 1000]),
      ints("ax", [0, 1]),
      ints("sp", [2, 1]),
    ];
    expect(
      infer1({
        nodes: [node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])],
        inputs: [x],
        initializers: init,
      }),
    ).toBe("float[5,5]");
    const rev = [ints("st", [-1]), ints("en", [-1000]), ints("ax", [1]), ints("sp", [-3])];
    expect(
      infer1({
        nodes: [node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])],
        inputs: [x],
        initializers: rev,
      }),
    ).toBe("float[10,7]");
    expect(
      infer1({
        nodes: [node("Slice", ["x", "st", "en", "ax"], ["y"])],
        inputs: [x, i64("st", [1]), i64("en", [1])],
        initializers: [ints("ax", [0])],
      }),
    ).toBe("float[?,20]");
    expect(
      infer1({
        nodes: [node("Slice", ["x"], ["y"], { starts: [2], ends: [4] })],
        inputs: [x],
        opset: 9,
      }),
    ).toBe("float[2,20]");
  });
  it("Pad with and without axes", () => {
    const x = f32Info("x", [2, 3]);
    expect(
      infer1({
        nodes: [node("Pad", ["x", "p"], ["y"])],
        inputs: [x],
        initializers: [ints("p", [1, 0, 2, 1])],
      }),
    ).toBe("float[5,4]");
    expect(
      infer1({
        nodes: [node("Pad", ["x", "p", "", "a"], ["y"])],
        inputs: [x],
        initializers: [ints("p", [1, 1]), ints("a", [-1])],
      }),
    ).toBe("float[2,5]");
  });
  it("Concat, Gather, Unsqueeze, Squeeze, Expand", () => {
    expect(
      infer1({
        nodes: [node("Concat", ["a", "b"], ["y"], { axis: 1 })],
        inputs: [f32Info("a", [2, 3]), f32Info("b", [2, "K"])],
      }),
    ).toBe("float[2,K+3]");
    expect(
      infer1({
        nodes: [node("Concat", ["a", "b"], ["y"], { axis: -1 })],
        inputs: [f32Info("a", [2, 3]), f32Info("b", [2, 5])],
      }),
    ).toBe("float[2,8]");
    expect(
      infer1({
        nodes: [node("Gather", ["a", "i"], ["y"], { axis: 1 })],
        inputs: [f32Info("a", [2, 3, 4]), i64("i", [5, 6])],
      }),
    ).toBe("float[2,5,6,4]");
    expect(
      infer1({
        nodes: [node("Unsqueeze", ["a", "ax"], ["y"])],
        inputs: [f32Info("a", [3])],
        initializers: [ints("ax", [0, -1])],
      }),
    ).toBe("float[1,3,1]");
    expect(
      infer1({ nodes: [node("Squeeze", ["a"], ["y"])], inputs: [f32Info("a", [1, 3, 1])] }),
    ).toBe("float[3]");
    expect(
      infer1({
        nodes: [node("Squeeze", ["a", "ax"], ["y"])],
        inputs: [f32Info("a", [1, 3, 1])],
        initializers: [ints("ax", [0])],
      }),
    ).toBe("float[3,1]");
    expect(
      infer1({
        nodes: [node("Expand", ["a", "s"], ["y"])],
        inputs: [f32Info("a", [3, 1])],
        initializers: [ints("s", [2, 1, 4])],
      }),
    ).toBe("float[2,3,4]");
  });
  it("static mistakes in shape ops are errors naming the reason", () => {
    expect(
      errors({
        nodes: [node("Concat", ["a", "b"], ["y"], { axis: 0 })],
        inputs: [f32Info("a", [2, 3]), f32Info("b", [2, 4])],
      })[0],
    ).toContain("differ in dimension 1");
    expect(
      errors({
        nodes: [node("Squeeze", ["a", "ax"], ["y"])],
        inputs: [f32Info("a", [2, 3])],
        initializers: [ints("ax", [1])],
      })[0],
    ).toContain("cannot squeeze axis 1 of size 3");
    expect(
      errors({
        nodes: [node("Expand", ["a", "s"], ["y"])],
        inputs: [f32Info("a", [3])],
        initializers: [ints("s", [4])],
      })[0],
    ).toContain("3 and 4");
    expect(
      errors({
        nodes: [node("Gather", ["a", "i"], ["y"], { axis: 2 })],
        inputs: [f32Info("a", [2, 3]), i64("i", [])],
      })[0],
    ).toContain("axis 2 is out of range");
  });
  it("ConstantOfShape and Range", () => {
    const v = Tensor.from(DataType.INT32, [1], [7]);
    expect(
      infer1({
        nodes: [node("ConstantOfShape", ["s"], ["y"], { value: v })],
        inputs: [],
        initializers: [ints("s", [2, 3])],
      }),
    ).toBe("int32[2,3]");
    expect(
      infer1({ nodes: [node("ConstantOfShape", ["s"], ["y"])], inputs: [i64("s", [2])] }),
    ).toBe("float[?,?]");
    const r = [scalar("a", 0), scalar("b", 10), scalar("d", 3)];
    expect(
      infer1({ nodes: [node("Range", ["a", "b", "d"], ["y"])], inputs: [], initializers: r }),
    ).toBe("int64[4]");
    expect(
      infer1({
        nodes: [node("Range", ["a", "b", "d"], ["y"])],
        inputs: [f32Info("a", []), f32Info("b", []), f32Info("d", [])],
      }),
    ).toBe("float[?]");
  });
});

describe("other common ops", () => {
  it("Split, TopK, Tile, Gemm, LayerNormalization, GatherElements, NonZero", () => {
    const x = f32Info("x", [4, 6]);
    expect(
      infer({
        nodes: [node("Split", ["x", "s"], ["a", "b"], { axis: 1 })],
        inputs: [x],
        initializers: [ints("s", [2, 4])],
      }),
    ).toEqual(["float[4,2]", "float[4,4]"]);
    expect(
      infer({ nodes: [node("Split", ["x"], ["a", "b", "c"], { axis: 1 })], inputs: [x] }),
    ).toEqual(["float[4,2]", "float[4,2]", "float[4,2]"]);
    expect(
      errors({
        nodes: [node("Split", ["x", "s"], ["a", "b"])],
        inputs: [x],
        initializers: [ints("s", [1, 2])],
      })[0],
    ).toContain("do not add up");
    expect(
      infer({
        nodes: [node("TopK", ["x", "k"], ["v", "i"])],
        inputs: [x],
        initializers: [ints("k", [3])],
      }),
    ).toEqual(["float[4,3]", "int64[4,3]"]);
    expect(
      infer1({
        nodes: [node("Tile", ["x", "r"], ["y"])],
        inputs: [x],
        initializers: [ints("r", [2, 1])],
      }),
    ).toBe("float[8,6]");
    expect(
      infer1({
        nodes: [node("Gemm", ["x", "w"], ["y"], { transB: 1 })],
        inputs: [x, f32Info("w", [5, 6])],
      }),
    ).toBe("float[4,5]");
    expect(
      infer({
        nodes: [node("LayerNormalization", ["x", "g"], ["y", "m", "r"])],
        inputs: [x, f32Info("g", [6])],
      }),
    ).toEqual(["float[4,6]", "float[4,1]", "float[4,1]"]);
    expect(
      infer1({
        nodes: [node("GatherElements", ["x", "i"], ["y"], { axis: 1 })],
        inputs: [x, i64("i", [4, 2])],
      }),
    ).toBe("float[4,2]");
    expect(infer1({ nodes: [node("NonZero", ["x"], ["y"])], inputs: [x] })).toBe("int64[2,?]");
  });
});

describe("control flow", () => {
  it("If: the branches' types, joined", () => {
    const br = (shape: number[], name: string): Graph =>
      graph({
        nodes: [
          node("Constant", [], [name], {
            value: Tensor.from(DataType.FLOAT, shape, new Array(shape[0]).fill(0)),
          }),
        ],
        outputs: [{ name }],
      });
    const n = node("If", ["c"], ["y"], { then_branch: br([2], "t"), else_branch: br([3], "e") });
    expect(infer1({ nodes: [n], inputs: [valueInfo("c", "bool", [])] })).toBe("float[?]");
  });
  it("Loop: loop-carried values and scan outputs", () => {
    const body = graph({
      nodes: [
        node("Identity", ["cin"], ["cout"]),
        node("Add", ["acc", "one"], ["acc2"]),
        node("Identity", ["acc2"], ["scanned"]),
      ],
      inputs: [i64("i", []), valueInfo("cin", "bool", []), f32Info("acc", [2])],
      initializers: [Tensor.from(DataType.FLOAT, [], [1], "one")],
      outputs: [{ name: "cout" }, { name: "acc2" }, { name: "scanned" }],
    });
    const n = node("Loop", ["m", "", "x"], ["final", "all"], { body });
    expect(infer({ nodes: [n], inputs: [i64("m", []), f32Info("x", [2])] })).toEqual([
      "float[2]",
      "float[?,2]",
    ]);
  });
  it("Scan: the body sees slices; outputs get the sequence axis back", () => {
    const body = graph({
      nodes: [node("Add", ["s", "row"], ["s2"]), node("Identity", ["s2"], ["out"])],
      inputs: [f32Info("s", [3]), f32Info("row", [3])],
      outputs: [{ name: "s2" }, { name: "out" }],
    });
    const n = node("Scan", ["init", "xs"], ["last", "all"], { body, num_scan_inputs: 1 });
    expect(infer({ nodes: [n], inputs: [f32Info("init", [3]), f32Info("xs", [5, 3])] })).toEqual([
      "float[3]",
      "float[5,3]",
    ]);
    const bad = node("Scan", ["init", "xs"], ["last", "all"], {
      body,
      num_scan_inputs: 1,
      scan_input_axes: [1],
    });
    expect(
      errors({ nodes: [bad], inputs: [f32Info("init", [3]), f32Info("xs", [5, 3])] }).join(),
    ).toContain("declared shape [3] but given [5]");
  });
  it("ops the registry lacks in an unknown domain: unknown output, no error", () => {
    const m = model(
      graph({
        nodes: [
          node("Custom", ["x"], ["y"], {}, { domain: "com.vendor" }),
          node("Relu", ["y"], ["z"]),
        ],
        inputs: [f32Info("x", [2])],
        outputs: [{ name: "z" }],
      }),
      [
        { domain: "", version: 18 },
        { domain: "com.vendor", version: 1 },
      ],
    );
    expect(checkModel(m).problems).toEqual([]);
    expect(inferTypes(m).get("y")).toBeUndefined();
  });
});

describe("function bodies agree with their ops", () => {
  const reg = SchemaRegistry.default();
  const cases: {
    op: string;
    since: number;
    elem: string;
    shape?: Dim[];
    attrs: ReturnType<typeof attr>[];
  }[] = [];
  // The Reduce functions and LogCumSumExp; the bodies of the other function ops are checked
  // with their own inputs and attributes in test/expand/function-bodies.test.ts.
  for (const op of reg.operators().filter((o) => /^Reduce|^LogCumSumExp$/.test(o))) {
    for (const v of reg.versions("", op)) {
      if (!hasFunctionBody(v)) continue;
      const elems = v.type_constraints[0]!.allowed.map(
        (t) => /^tensor\((.*)\)$/.exec(t)![1]!,
      ).filter((e) => ["float", "double", "float16", "int32", "int64"].includes(e));
      for (const elem of elems) {
        if (op === "LogCumSumExp") {
          for (const shape of [[4, 5], ["N", null, 5], undefined] as (Dim[] | undefined)[]) {
            cases.push({ op, since: v.since, elem, shape, attrs: [attr("axis", 0)] });
          }
        } else {
          cases.push({
            op,
            since: v.since,
            elem,
            shape: [3, "N", 5],
            attrs: [attr("keepdims", 0)],
          });
          cases.push({
            op,
            since: v.since,
            elem,
            shape: [3, 4, 5],
            attrs: [attr("noop_with_empty_axes", 1)],
          });
        }
      }
    }
  }

  it("covers the Reduce functions and LogCumSumExp", () => {
    expect([...new Set(cases.map((c) => c.op))].sort()).toEqual([
      "LogCumSumExp",
      "ReduceL1",
      "ReduceL2",
      "ReduceLogSum",
      "ReduceLogSumExp",
      "ReduceSumSquare",
    ]);
  });

  it.each(
    cases.map(
      (c) =>
        [
          `${c.op}-${c.since} ${c.elem}${JSON.stringify(c.shape ?? "?")} ${c.attrs[0]!.name}`,
          c,
        ] as const,
    ),
  )("%s: the body checks clean and gives the op's type", (_label, c) => {
    const v = reg.resolve("", c.op, c.since);
    const x = valueInfo(v.inputs[0]!.name, c.elem, c.shape);
    const withAxes = v.inputs.length > 1;
    const initializers = withAxes
      ? [ints(v.inputs[1]!.name, c.attrs[0]!.name === "keepdims" ? [-1] : [])]
      : [];
    const inputs = [x];
    const outputs = v.outputs.map((o) => ({ name: o.name }));
    const body = functionBody(v, {
      inputTypes: [x.type, withAxes ? i64("axes", [1]).type : undefined],
      attributes: c.attrs,
    });
    const ir = c.since >= 29 ? 13 : 8;
    const expanded = model(
      graph({ nodes: body.nodes, inputs, initializers, outputs }),
      body.opsetImports,
      ir,
    );
    expect(checkModel(expanded).problems.map(formatProblem)).toEqual([]);
    const call = {
      ...node(
        c.op,
        v.inputs.slice(0, withAxes ? 2 : 1).map((i) => i.name),
        outputs.map((o) => o.name),
      ),
      attributes: c.attrs,
    };
    const direct = model(
      graph({ nodes: [call], inputs, initializers, outputs }),
      [{ domain: "", version: c.since }],
      ir,
    );
    const name = outputs[0]!.name;
    const viaBody = inferTypes(expanded).get(name);
    const viaOp = inferTypes(direct).get(name);
    expect(viaOp && viaOp.kind === "tensor" && viaOp.elemType).toBeTruthy();
    expect(describeType(viaBody)).toBe(describeType(viaOp));
  });
});

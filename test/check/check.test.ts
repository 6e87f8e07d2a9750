// The checker: every backend test model passes; each broken model gets exactly the problem it
// has, with a message naming the node and the reason; several problems come back in one run.

import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  assertModelValid,
  checkModel,
  formatProblem,
  minIrVersionForOpset,
  type Problem,
} from "../../src/check/index.js";
import { OnnxError } from "../../src/errors.js";
import { loadModel } from "../../src/io/files.js";
import { attr, graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import {
  DataType,
  type Attribute,
  type Function,
  type Graph,
  type Model,
} from "../../src/ir/types.js";
import { NEWEST_OPSET } from "../helpers/registry.js";

const NODE_TESTS = new URL("../data/onnx-node-tests/", import.meta.url).pathname;

function problems(m: Model): Problem[] {
  return checkModel(m).problems;
}

/** Asserts exactly one problem, with this code, whose where/message contain the given texts. */
function expectOne(m: Model, code: string, ...texts: string[]): Problem {
  const ps = problems(m);
  expect(ps.map(formatProblem), "problems").toHaveLength(1);
  const p = ps[0]!;
  expect(p.code).toBe(code);
  const line = formatProblem(p);
  for (const t of texts) expect(line).toContain(t);
  expect(line).not.toContain("\n");
  return p;
}

const f32Info = (name: string, shape?: (number | string | null)[]) =>
  valueInfo(name, "float", shape);
const i64 = (name: string, shape?: (number | string | null)[]) => valueInfo(name, "int64", shape);

/** A one-node model: x (float[2,3]) -> op -> y. */
function oneNode(op: string, attrs: Parameters<typeof node>[3] = {}, opset = 18, ir = 8): Model {
  return model(
    graph({
      nodes: [node(op, ["x"], ["y"], attrs)],
      inputs: [f32Info("x", [2, 3])],
      outputs: [{ name: "y" }],
    }),
    opset,
    ir,
  );
}

function ints(name: string, values: number[]): Tensor {
  return Tensor.from(DataType.INT64, [values.length], values.map(BigInt), name);
}

function fn(
  parts: Partial<Function> & Pick<Function, "name" | "nodes" | "inputs" | "outputs">,
): Function {
  return {
    domain: "local",
    attributes: [],
    attributeProtos: [],
    opsetImports: [{ domain: "", version: 18 }],
    valueInfo: [],
    ...parts,
  };
}

const ref = (name: string, type: Attribute["type"], refAttrName: string): Attribute =>
  ({ name, type, value: undefined, refAttrName }) as Attribute;

describe("backend test models", () => {
  const dirs = readdirSync(NODE_TESTS, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  it("finds the 184 models", () => {
    expect(dirs.length).toBe(184);
  });
  it("every model passes with zero problems", () => {
    const failures: string[] = [];
    for (const d of dirs) {
      const r = checkModel(loadModel(`${NODE_TESTS}${d}/model.onnx`));
      if (!r.ok) failures.push(`${d}: ${r.problems.map(formatProblem).join("; ")}`);
    }
    expect(failures).toEqual([]);
  });
});

describe("versions and operators", () => {
  it("a valid model has no problems", () => {
    expect(problems(oneNode("Relu"))).toEqual([]);
  });

  it("unknown operator", () => {
    expectOne(
      oneNode("Frobnicate"),
      "unknown-op",
      "node #0 (Frobnicate)",
      "unknown operator 'Frobnicate'",
    );
  });

  it("operator not defined at the imported opset", () => {
    const m = oneNode("LogCumSumExp", {}, 18);
    expectOne(
      m,
      "op-not-in-opset",
      "(LogCumSumExp)",
      "not defined at ai.onnx opset 18",
      "first version is 29",
    );
  });

  it("the same operator is fine at opset 29", () => {
    expect(problems(oneNode("LogCumSumExp", {}, 29, 13))).toEqual([]);
  });

  it("domain not imported", () => {
    const m = oneNode("Relu");
    m.graph.nodes[0]!.domain = "com.example";
    expectOne(
      m,
      "domain-not-imported",
      "node #0 (com.example.Relu)",
      "domain 'com.example' is not imported",
    );
  });

  it("ai.onnx written out is the same domain as the empty string", () => {
    const m = oneNode("Relu");
    m.graph.nodes[0]!.domain = "ai.onnx";
    m.opsetImports = [{ domain: "ai.onnx", version: 18 }];
    expect(problems(m)).toEqual([]);
  });

  it("IR version too old for the opset: a warning (ONNX's checker and onnxruntime accept it)", () => {
    const r = checkModel(oneNode("Relu", {}, 18, 7));
    expect(r.problems).toEqual([]);
    expect(r.warnings.map((w) => w.message)).toEqual([
      expect.stringContaining(
        "IR version 7 is too old for ai.onnx opset 18, which needs IR version 8",
      ),
    ]);
  });

  it("IR 3: an initializer that is not a graph input (IR 4 allows it)", () => {
    const m = oneNode("Relu", {}, 7, 3);
    m.graph.nodes[0]!.inputs = ["w"];
    m.graph.inputs = [];
    m.graph.initializers = [
      new Tensor(DataType.FLOAT, [1], { kind: "float", values: Float32Array.of(1) }, "w"),
    ];
    expectOne(m, "ir-version", "initializer 'w' is not a graph input, which IR version 3 requires");
    m.irVersion = 4;
    expect(problems(m)).toEqual([]);
  });

  it("an opset newer than any the registry knows", () => {
    expectOne(
      oneNode("Relu", {}, NEWEST_OPSET + 2, 13),
      "opset-import",
      "model",
      `opset ${NEWEST_OPSET + 2}, newer than any this tool knows (${NEWEST_OPSET})`,
    );
  });

  it("IR version newer than the tool knows", () => {
    expectOne(
      oneNode("Relu", {}, 18, 15),
      "ir-version",
      "IR version 15 is newer than this tool knows (14)",
    );
  });

  it("IR version table", () => {
    expect(
      [7, 8, 9, 10, 11, 12, 13, 14, 15, 18, 19, 20, 21, 22, 23, 24].map(minIrVersionForOpset),
    ).toEqual([3, 3, 4, 5, 6, 7, 7, 7, 8, 8, 9, 9, 10, 10, 11, 12]);
    expect(minIrVersionForOpset(29)).toBe(minIrVersionForOpset(28));
  });
});

describe("attributes", () => {
  it("unknown attribute", () => {
    expectOne(
      oneNode("Relu", { alpha: 0.5 }),
      "unknown-attribute",
      "node #0 (Relu)",
      "Relu-14 has no attribute 'alpha'",
    );
  });

  it("wrong attribute type", () => {
    const m = oneNode("ReduceSum", {}, 11, 6);
    m.graph.nodes[0]!.attributes = [attr("axes", 1.5, "FLOAT")];
    expectOne(
      m,
      "attribute-type",
      "(ReduceSum)",
      "attribute 'axes' is FLOAT",
      "ReduceSum-11 expects INTS",
    );
  });

  it("missing required attribute", () => {
    expectOne(
      oneNode("Cast"),
      "missing-attribute",
      "node #0 (Cast)",
      "Cast-13 requires attribute 'to'",
    );
  });

  it("a reference attribute outside a function", () => {
    const m = oneNode("LeakyRelu");
    m.graph.nodes[0]!.attributes = [ref("alpha", "FLOAT", "a")];
    expectOne(m, "ref-attribute", "(LeakyRelu)", "allowed only inside functions");
  });
});

describe("arity and types", () => {
  it("too many inputs", () => {
    const m = oneNode("Relu");
    m.graph.nodes[0]!.inputs = ["x", "x"];
    expectOne(m, "input-count", "node #0 (Relu)", "Relu-14 takes exactly 1 input, got 2");
  });

  it("too few inputs", () => {
    const m = oneNode("Add");
    expectOne(m, "input-count", "node #0 (Add)", "Add-14 takes exactly 2 inputs, got 1");
  });

  it("optional inputs may be left out, variadic inputs have a minimum", () => {
    const clip = model(
      graph({
        nodes: [node("Clip", ["x", "", "hi"], ["y"])],
        inputs: [f32Info("x", [2]), f32Info("hi", [])],
        outputs: [{ name: "y" }],
      }),
    );
    expect(problems(clip)).toEqual([]);
    const max = model(
      graph({ nodes: [node("Max", [], ["y"])], inputs: [], outputs: [{ name: "y" }] }),
    );
    expect(problems(max).map((p) => p.code)).toEqual(["input-count"]);
  });

  it("type constraint mismatch (Add float + int64)", () => {
    const m = model(
      graph({
        nodes: [node("Add", ["a", "b"], ["y"], {}, { name: "add1" })],
        inputs: [f32Info("a", [2]), i64("b", [2])],
        outputs: [{ name: "y" }],
      }),
    );
    expectOne(
      m,
      "type-mismatch",
      "node 'add1' (Add)",
      "'a' and 'b'",
      "tensor(float) and tensor(int64)",
    );
  });

  it("int input to Log", () => {
    const m = model(
      graph({
        nodes: [node("Log", ["x"], ["y"])],
        inputs: [i64("x", [3])],
        outputs: [{ name: "y" }],
      }),
    );
    expectOne(
      m,
      "type-not-allowed",
      "node #0 (Log)",
      "input 'x' is tensor(int64)",
      "Log-13 does not accept",
    );
  });

  it("types propagate: a mismatch two nodes downstream of a Cast is found", () => {
    const m = model(
      graph({
        nodes: [
          node("Cast", ["x"], ["xi"], { to: DataType.INT64 }),
          node("Relu", ["x"], ["r"]),
          node("Sub", ["r", "xi"], ["y"]),
        ],
        inputs: [f32Info("x", [4])],
        outputs: [{ name: "y" }],
      }),
    );
    expectOne(m, "type-mismatch", "node #2 (Sub)", "'r' and 'xi'");
  });

  it("declared output type that disagrees with inference", () => {
    const m = oneNode("Relu");
    m.graph.outputs = [valueInfo("y", "float", [3, 2])];
    expectOne(m, "type-mismatch", "node #0 (Relu)", "output 'y'", "[3,2]", "[2,3]");
  });

  it("static shapes that cannot broadcast", () => {
    const m = model(
      graph({
        nodes: [node("Mul", ["a", "b"], ["y"])],
        inputs: [f32Info("a", [2, 3]), f32Info("b", [4])],
        outputs: [{ name: "y" }],
      }),
    );
    expectOne(m, "shape-mismatch", "node #0 (Mul)", "'a', 'b'", "3 and 4");
  });
});

describe("graph structure", () => {
  it("value used but never defined", () => {
    const m = model(
      graph({ nodes: [node("Relu", ["nope"], ["y"])], inputs: [], outputs: [{ name: "y" }] }),
    );
    expectOne(m, "undefined-value", "node #0 (Relu)", "input 'nope' is not defined");
  });

  it("nodes out of order but sortable are accepted", () => {
    const m = model(
      graph({
        nodes: [node("Relu", ["t"], ["y"]), node("Neg", ["x"], ["t"])],
        inputs: [f32Info("x", [2])],
        outputs: [f32Info("y", [2])],
      }),
    );
    expect(problems(m)).toEqual([]);
  });

  it("value defined twice", () => {
    const m = model(
      graph({
        nodes: [node("Relu", ["x"], ["y"]), node("Neg", ["x"], ["y"], {}, { name: "second" })],
        inputs: [f32Info("x", [2])],
        outputs: [{ name: "y" }],
      }),
    );
    expectOne(m, "duplicate-value", "node 'second' (Neg)", "value 'y' is defined twice");
  });

  it("cycle", () => {
    const m = model(
      graph({
        nodes: [
          node("Add", ["x", "b"], ["a"], {}, { name: "p" }),
          node("Relu", ["a"], ["b"], {}, { name: "q" }),
        ],
        inputs: [f32Info("x", [2])],
        outputs: [{ name: "b" }],
      }),
    );
    const p = expectOne(m, "cycle", "cycle", "node 'p' (Add)", "node 'q' (Relu)");
    expect(p.where).toBe("main graph");
  });

  it("graph output not produced", () => {
    const m = oneNode("Relu");
    m.graph.outputs.push({ name: "ghost" });
    expectOne(m, "output-not-produced", "graph output 'ghost' is not produced");
  });
});

describe("shape errors found statically", () => {
  it("ReduceSum axes=[5] on rank 2 (attribute, opset 11)", () => {
    const m = oneNode("ReduceSum", { axes: [5] }, 11, 6);
    expectOne(m, "axis-out-of-range", "node #0 (ReduceSum)", "axis 5", "rank 2", "[-2, 1]");
  });

  it("Softmax family: the default axis (1 before opset 13) is checked against the rank, as the kernel reads it", () => {
    const rank1 = (op: string, opset: number, attrs: Parameters<typeof node>[3] = {}) =>
      model(
        graph({
          nodes: [node(op, ["x"], ["y"], attrs)],
          inputs: [f32Info("x", [4])],
          outputs: [{ name: "y" }],
        }),
        opset,
        opset < 13 ? 6 : 7,
      );
    for (const op of ["Softmax", "LogSoftmax", "Hardmax"]) {
      expectOne(rank1(op, 11), "axis-out-of-range", `(${op})`, "axis 1", "rank 1");
      expect(problems(rank1(op, 11, { axis: 0 }))).toEqual([]);
      expect(problems(rank1(op, 13))).toEqual([]); // -1 from 13
      expectOne(rank1(op, 13, { axis: 1 }), "axis-out-of-range", "axis 1", "rank 1");
      // Before 13 the input is coerced to 2-D at the axis: axis 1 of [2, 3] is fine.
      expect(problems(oneNode(op, {}, 11, 6))).toEqual([]);
      expect(problems(oneNode(op, { axis: -2 }, 18))).toEqual([]);
      expectOne(oneNode(op, { axis: 2 }, 18), "axis-out-of-range", "axis 2", "rank 2");
    }
  });

  it("ReduceSum axes=[5] on rank 2 (constant input, opset 18)", () => {
    const m = model(
      graph({
        nodes: [
          node("Constant", [], ["axes"], { value: ints("", [5]) }),
          node("ReduceSum", ["x", "axes"], ["y"], {}, { name: "rs" }),
        ],
        inputs: [f32Info("x", [2, 3])],
        outputs: [{ name: "y" }],
      }),
    );
    expectOne(m, "axis-out-of-range", "node 'rs' (ReduceSum)", "axis 5", "rank 2");
  });

  it("every Reduce op checks its axes, in the versions before and after axes became an input", () => {
    for (const op of [
      "ReduceL1",
      "ReduceL2",
      "ReduceLogSum",
      "ReduceLogSumExp",
      "ReduceMax",
      "ReduceMean",
      "ReduceMin",
      "ReduceProd",
      "ReduceSumSquare",
    ]) {
      expectOne(oneNode(op, { axes: [-3] }, 17), "axis-out-of-range", `(${op})`, "axis -3");
      const m = model(
        graph({
          nodes: [node(op, ["x", "axes"], ["y"])],
          inputs: [f32Info("x", [2, 3])],
          initializers: [ints("axes", [2])],
          outputs: [{ name: "y" }],
        }),
      );
      expectOne(m, "axis-out-of-range", `(${op})`, "axis 2");
    }
  });

  it("LogCumSumExp on a rank-0 input", () => {
    const m = model(
      graph({
        nodes: [node("LogCumSumExp", ["x"], ["y"])],
        inputs: [f32Info("x", [])],
        outputs: [{ name: "y" }],
      }),
      29,
      13,
    );
    expectOne(m, "rank", "node #0 (LogCumSumExp)", "rank 0");
  });

  it("LogCumSumExp axis out of range", () => {
    expectOne(
      oneNode("LogCumSumExp", { axis: 2 }, 29, 13),
      "axis-out-of-range",
      "(LogCumSumExp)",
      "axis 2",
      "rank 2",
    );
  });
});

describe("functions", () => {
  const callModel = (f: Function, attrs: Parameters<typeof node>[3] = {}): Model => {
    const m = model(
      graph({
        nodes: [node(f.name, ["x"], ["y"], attrs, { domain: "local" })],
        inputs: [f32Info("x", [2, 3])],
        outputs: [{ name: "y" }],
      }),
      [
        { domain: "", version: 18 },
        { domain: "local", version: 1 },
      ],
    );
    m.functions.push(f);
    return m;
  };

  it("a well-formed function, its call's output type inferred through the body", () => {
    const f = fn({
      name: "Scale",
      inputs: ["X"],
      outputs: ["Y"],
      attributes: ["alpha"],
      nodes: [
        { ...node("LeakyRelu", ["X"], ["T"]), attributes: [ref("alpha", "FLOAT", "alpha")] },
        node("ReduceSum", ["T"], ["Y"], { keepdims: 0 }),
      ],
    });
    const m = callModel(f, { alpha: 0.25 });
    m.graph.outputs = [valueInfo("y", "float", [])];
    expect(problems(m)).toEqual([]);
    m.graph.outputs = [valueInfo("y", "float", [2])];
    expectOne(m, "type-mismatch", "node #0 (local.Scale)", "output 'y'");
  });

  it("a body that only fails with the call's types is the call's problem", () => {
    const f = fn({
      name: "LogOf",
      inputs: ["X"],
      outputs: ["Y"],
      nodes: [node("Log", ["X"], ["Y"])],
    });
    const m = callModel(f);
    expect(problems(m)).toEqual([]);
    m.graph.inputs = [i64("x", [2, 3])];
    expectOne(
      m,
      "type-not-allowed",
      "node #0 (local.LogOf)",
      "with this call's types",
      "function 'local.LogOf', node #0 (Log)",
      "tensor(int64)",
    );
  });

  it("a body that only fails with the call's attributes is the call's problem", () => {
    const f = fn({
      name: "Sum",
      inputs: ["X"],
      outputs: ["Y"],
      attributes: ["axes"],
      nodes: [{ ...node("ReduceSum", ["X"], ["Y"]), attributes: [ref("axes", "INTS", "axes")] }],
      opsetImports: [{ domain: "", version: 11 }],
    });
    expect(problems(callModel(f, { axes: [1] }))).toEqual([]);
    expectOne(
      callModel(f, { axes: [5] }),
      "axis-out-of-range",
      "node #0 (local.Sum)",
      "axis 5",
      "rank 2",
    );
  });

  it("a function referencing an undeclared @attribute", () => {
    const f = fn({
      name: "Scale",
      inputs: ["X"],
      outputs: ["Y"],
      attributes: ["alpha"],
      nodes: [{ ...node("LeakyRelu", ["X"], ["Y"]), attributes: [ref("alpha", "FLOAT", "beta")] }],
    });
    expectOne(
      callModel(f),
      "ref-attribute",
      "function 'local.Scale', node #0 (LeakyRelu)",
      "'@beta'",
      "does not declare",
    );
  });

  it("a reference whose type differs from the function attribute's default", () => {
    const f = fn({
      name: "Scale",
      inputs: ["X"],
      outputs: ["Y"],
      attributeProtos: [attr("alpha", 2)],
      nodes: [{ ...node("LeakyRelu", ["X"], ["Y"]), attributes: [ref("alpha", "FLOAT", "alpha")] }],
    });
    expectOne(
      callModel(f),
      "attribute-type",
      "function 'local.Scale', node #0 (LeakyRelu)",
      "INT default",
    );
  });

  it("a function that calls itself", () => {
    const f = fn({
      name: "Loopy",
      inputs: ["X"],
      outputs: ["Y"],
      nodes: [node("Loopy", ["X"], ["Y"], {}, { domain: "local" })],
    });
    f.opsetImports.push({ domain: "local", version: 1 });
    expectOne(
      callModel(f),
      "function-cycle",
      "function 'local.Loopy'",
      "calls itself",
      "'local.Loopy' -> 'local.Loopy'",
    );
  });

  it("functions that call each other", () => {
    const a = fn({
      name: "A",
      inputs: ["X"],
      outputs: ["Y"],
      nodes: [node("B", ["X"], ["Y"], {}, { domain: "local" })],
    });
    const b = fn({
      name: "B",
      inputs: ["X"],
      outputs: ["Y"],
      nodes: [node("A", ["X"], ["Y"], {}, { domain: "local" })],
    });
    const m = callModel(a);
    m.functions.push(b);
    expectOne(
      m,
      "function-cycle",
      "calls itself indirectly",
      "'local.A' -> 'local.B' -> 'local.A'",
    );
  });

  it("function bodies check against the function's own opset imports", () => {
    const f = fn({
      name: "F",
      inputs: ["X"],
      outputs: ["Y"],
      nodes: [node("LogCumSumExp", ["X"], ["Y"])],
    });
    expectOne(
      callModel(f),
      "op-not-in-opset",
      "function 'local.F', node #0 (LogCumSumExp)",
      "opset 18",
    );
  });

  it("unknown attribute on a call to a model-local function", () => {
    const f = fn({ name: "F", inputs: ["X"], outputs: ["Y"], nodes: [node("Relu", ["X"], ["Y"])] });
    expectOne(
      callModel(f, { gamma: 1 }),
      "unknown-attribute",
      "node #0 (local.F)",
      "no attribute 'gamma'",
    );
  });
});

describe("subgraphs", () => {
  function ifModel(thenInput: string): Model {
    const branch = (inp: string, op: string): Graph =>
      graph({ nodes: [node(op, [inp], ["out_" + op])], outputs: [{ name: "out_" + op }] });
    return model(
      graph({
        nodes: [
          node("Relu", ["x"], ["outer"]),
          node(
            "If",
            ["c"],
            ["y"],
            { then_branch: branch(thenInput, "Neg"), else_branch: branch("x", "Abs") },
            { name: "cond" },
          ),
        ],
        inputs: [f32Info("x", [2]), valueInfo("c", "bool", [])],
        outputs: [f32Info("y", [2])],
      }),
    );
  }

  it("a subgraph may use values of the enclosing graph", () => {
    expect(problems(ifModel("outer"))).toEqual([]);
  });

  it("a subgraph using an undefined value is an error naming the branch", () => {
    expectOne(
      ifModel("missing"),
      "undefined-value",
      "node 'cond' (If) then_branch, node #0 (Neg)",
      "'missing'",
    );
  });

  it("branches with different element types", () => {
    const m = ifModel("outer");
    const el = m.graph.nodes[1]!.attributes.find((a) => a.name === "else_branch")!.value as Graph;
    el.nodes = [node("Cast", ["x"], ["out_Abs"], { to: DataType.INT64 })];
    m.graph.outputs = [{ name: "y" }];
    expectOne(
      m,
      "type-mismatch",
      "node 'cond' (If)",
      "float in then_branch but int64 in else_branch",
    );
  });
});

describe("loop bodies", () => {
  const loopModel = (
    carriedDecl: (number | string | null)[],
    iterDecl: (number | null)[],
  ): Model => {
    const body = graph({
      nodes: [
        node("Identity", ["cin"], ["cout"]),
        node("Concat", ["acc", "acc"], ["acc2"], { axis: 0 }),
      ],
      inputs: [i64("i", iterDecl), valueInfo("cin", "bool", []), f32Info("acc", carriedDecl)],
      outputs: [{ name: "cout" }, { name: "acc2" }],
    });
    return model(
      graph({
        nodes: [node("Loop", ["m", "", "x"], ["y"], { body }, { name: "loop" })],
        inputs: [i64("m", []), f32Info("x", [2])],
        outputs: [{ name: "y" }],
      }),
    );
  };
  it("loop-carried values may change shape; the iteration number may be declared as [1]", () => {
    expect(problems(loopModel(["L"], [1]))).toEqual([]);
    expect(problems(loopModel([null], []))).toEqual([]);
  });
  it("a loop-carried value of another element type is an error", () => {
    const m = loopModel(["L"], []);
    m.graph.inputs[1] = i64("x", [2]);
    expectOne(m, "bad-subgraph", "node 'loop' (Loop) body", "input 'acc'");
  });
});

describe("declared types", () => {
  it("a graph output that passes an input through with another declared type", () => {
    const m = model(graph({ nodes: [], inputs: [f32Info("x", [2])], outputs: [i64("x", [2])] }));
    expectOne(m, "type-mismatch", "graph output 'x'", "int64[2]", "float[2]");
  });
  it("an initializer that does not fit the input it gives a default for", () => {
    const m = oneNode("Relu");
    m.graph.initializers.push(Tensor.from(DataType.FLOAT, [3], [1, 2, 3], "x"));
    expectOne(m, "type-mismatch", "input 'x'", "[2,3]");
  });
});

describe("many problems at once", () => {
  it("reports every problem in one run", () => {
    const m = model(
      graph({
        nodes: [
          node("Frobnicate", ["x"], ["a"]),
          node("Log", ["i"], ["b"]),
          node("Relu", ["x"], ["c"], { alpha: 1.0 }),
          node("Add", ["x", "i"], ["d"]),
          node("ReduceSum", ["x", "axes"], ["e"]),
          node("Neg", ["undefined_thing"], ["f"]),
        ],
        inputs: [f32Info("x", [2, 3]), i64("i", [2, 3])],
        initializers: [ints("axes", [7])],
        outputs: [{ name: "e" }, { name: "never" }],
      }),
      18,
      7,
    );
    const codes = problems(m)
      .map((p) => p.code)
      .sort();
    expect(codes).toEqual(
      [
        "unknown-op",
        "type-not-allowed",
        "unknown-attribute",
        "type-mismatch",
        "axis-out-of-range",
        "undefined-value",
        "output-not-produced",
      ].sort(),
    );
  });
});

describe("assertModelValid", () => {
  it("passes a valid model and throws E_CHECK naming the first problem and the count", () => {
    expect(() => assertModelValid(oneNode("Relu"))).not.toThrow();
    const m = oneNode("Frobnicate");
    m.graph.outputs.push({ name: "ghost" });
    let err: unknown;
    try {
      assertModelValid(m);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OnnxError);
    expect((err as OnnxError).code).toBe("E_CHECK");
    expect((err as OnnxError).message).toBe(
      "node #0 (Frobnicate): unknown operator 'Frobnicate': domain 'ai.onnx' has no such operator (and 1 more problem)",
    );
  });
});

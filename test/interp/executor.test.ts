// The executor: control flow with outer-scope values, model-local functions called with
// attribute defaults and @refs, intermediates, and one-line errors that name the node.

import { describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import { Tensor } from "../../src/ir/tensor.js";
import type { Attribute, Function, Graph, Model } from "../../src/ir/types.js";
import { run, unsupportedOps } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import {
  DataType,
  T,
  attr,
  f32,
  graph,
  i64,
  model,
  node,
  runOne,
  vals,
  valueInfo,
} from "../helpers/interp.js";

function runError(fn: () => unknown): OnnxError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(OnnxError);
    expect((e as Error).message).not.toContain("\n");
    return e as OnnxError;
  }
  throw new Error("expected an error");
}

const bool = (v: boolean) => T(DataType.BOOL, [], [v ? 1 : 0]);

describe("If", () => {
  const m = (): Model => {
    const thenG = graph({
      nodes: [node("Add", ["x", "k"], ["t"])],
      outputs: [valueInfo("t", "float")],
    });
    const elseG = graph({
      nodes: [node("Sub", ["x", "k"], ["e"])],
      outputs: [valueInfo("e", "float")],
    });
    return model(
      graph({
        nodes: [node("If", ["c"], ["y"], { then_branch: thenG, else_branch: elseG })],
        inputs: [valueInfo("c", "bool", []), valueInfo("x", "float", [2])],
        outputs: [valueInfo("y", "float")],
        initializers: [Tensor.from(DataType.FLOAT, [], [10], "k")],
      }),
    );
  };
  it("runs the chosen branch, which reads outer-scope values", () => {
    expect(vals(run(m(), { c: bool(true), x: f32([2], [1, 2]) }).y!)).toEqual([11, 12]);
    expect(vals(run(m(), { c: bool(false), x: f32([2], [1, 2]) }).y!)).toEqual([-9, -8]);
  });
});

describe("Loop", () => {
  // body(i, cond, acc) -> (cond', acc + w, scan: acc + w); w comes from the outer graph.
  const body = (withLimit: boolean): Graph =>
    graph({
      nodes: [
        node("Add", ["acc", "w"], ["acc2"]),
        withLimit
          ? node("Less", ["acc2", "limit"], ["cond2"])
          : node("Identity", ["cond"], ["cond2"]),
        node("Identity", ["acc2"], ["scan"]),
      ],
      inputs: [
        valueInfo("i", "int64", []),
        valueInfo("cond", "bool", []),
        valueInfo("acc", "float", [1]),
      ],
      outputs: [
        valueInfo("cond2", "bool"),
        valueInfo("acc2", "float"),
        valueInfo("scan", "float", [1]),
      ],
    });
  const loopModel = (withLimit: boolean, condInput: string): Model =>
    model(
      graph({
        nodes: [node("Loop", ["M", condInput, "a"], ["final", "scans"], { body: body(withLimit) })],
        inputs: [
          valueInfo("M", "int64", []),
          valueInfo("a", "float", [1]),
          valueInfo("w", "float", [1]),
          ...(condInput ? [valueInfo(condInput, "bool", [])] : []),
          ...(withLimit ? [valueInfo("limit", "float", [1])] : []),
        ],
        outputs: [valueInfo("final", "float"), valueInfo("scans", "float")],
      }),
    );

  it("carries values, stacks scan outputs and reads outer-scope values", () => {
    const out = run(loopModel(false, ""), {
      M: i64([], [3]),
      a: f32([1], [1]),
      w: f32([1], [0.5]),
    });
    expect(vals(out.final!)).toEqual([2.5]);
    expect(out.scans!.shape).toEqual([3, 1]);
    expect(vals(out.scans!)).toEqual([1.5, 2, 2.5]);
  });

  it("stops when the body's condition turns false", () => {
    const out = run(loopModel(true, "c"), {
      M: i64([], [100]),
      c: bool(true),
      a: f32([1], [0]),
      w: f32([1], [1]),
      limit: f32([1], [4]),
    });
    expect(vals(out.final!)).toEqual([4]);
    expect(vals(out.scans!)).toEqual([1, 2, 3, 4]);
  });

  it("zero iterations give the initial values and empty scan outputs", () => {
    const out = run(loopModel(false, ""), { M: i64([], [0]), a: f32([1], [7]), w: f32([1], [1]) });
    expect(vals(out.final!)).toEqual([7]);
    expect(out.scans!.shape).toEqual([0, 1]);
  });
});

describe("Scan", () => {
  it("runs a running sum with reversed input, axes and outer-scope bias", () => {
    // body(s, x) -> (s + x + b, s + x + b)
    const body = graph({
      nodes: [
        node("Add", ["s", "x"], ["t"]),
        node("Add", ["t", "b"], ["s2"]),
        node("Identity", ["s2"], ["o"]),
      ],
      inputs: [valueInfo("s", "float", [2]), valueInfo("x", "float", [2])],
      outputs: [valueInfo("s2", "float", [2]), valueInfo("o", "float", [2])],
    });
    const m = model(
      graph({
        nodes: [
          node("Scan", ["init", "xs"], ["last", "ys"], {
            body,
            num_scan_inputs: 1,
            scan_input_axes: [1],
            scan_input_directions: [1],
            scan_output_axes: [1],
          }),
        ],
        inputs: [
          valueInfo("init", "float", [2]),
          valueInfo("xs", "float", [2, 3]),
          valueInfo("b", "float", []),
        ],
        outputs: [valueInfo("last", "float"), valueInfo("ys", "float")],
      }),
      16,
    );
    // xs columns taken last to first: [3,6], [2,5], [1,4]
    const out = run(m, {
      init: f32([2], [0, 0]),
      xs: f32([2, 3], [1, 2, 3, 4, 5, 6]),
      b: f32([], [100]),
    });
    expect(vals(out.last!)).toEqual([306, 315]);
    expect(out.ys!.shape).toEqual([2, 3]);
    expect(vals(out.ys!)).toEqual([103, 205, 306, 106, 211, 315]);
  });
});

describe("model-local functions", () => {
  const ref = (name: string, type: Attribute["type"], refAttrName: string): Attribute =>
    ({ name, type, value: undefined, refAttrName }) as Attribute;
  // ScaleShift(x, y) = x * scale + y, then CumSum with exclusive = @excl.
  const fn: Function = {
    name: "ScaleShift",
    domain: "my.domain",
    inputs: ["x", "y"],
    outputs: ["z"],
    attributes: ["excl"],
    attributeProtos: [attr("scale", 2, "FLOAT")],
    nodes: [
      { ...node("Constant", [], ["s"]), attributes: [ref("value_float", "FLOAT", "scale")] },
      node("Mul", ["x", "s"], ["m"]),
      node("Add", ["m", "y"], ["a"]),
      node("Constant", [], ["axis"], { value_int: 0n }),
      { ...node("CumSum", ["a", "axis"], ["z"]), attributes: [ref("exclusive", "INT", "excl")] },
    ],
    opsetImports: [{ domain: "", version: 18 }],
    valueInfo: [],
  };
  const callModel = (attrs: Record<string, number>): Model => {
    const call = node("ScaleShift", ["x", "y"], ["z"], {}, { domain: "my.domain" });
    call.attributes = Object.entries(attrs).map(([k, v]) =>
      k === "scale" ? attr(k, v, "FLOAT") : attr(k, BigInt(v)),
    );
    const m = model(
      graph({
        nodes: [call],
        inputs: [valueInfo("x", "float", [3]), valueInfo("y", "float", [3])],
        outputs: [valueInfo("z", "float")],
      }),
      [
        { domain: "", version: 18 },
        { domain: "my.domain", version: 1 },
      ],
    );
    m.functions = [fn];
    return m;
  };
  const feeds = { x: f32([3], [1, 2, 3]), y: f32([3], [1, 1, 1]) };

  it("uses attribute defaults, and the op's default where a ref is unbound", () => {
    // scale 2 (default), exclusive unbound -> CumSum's default (inclusive)
    expect(vals(run(callModel({}), feeds).z!)).toEqual([3, 8, 15]);
  });

  it("binds @ref attributes to the caller's values", () => {
    expect(vals(run(callModel({ scale: 10, excl: 1 }), feeds).z!)).toEqual([0, 11, 32]);
  });

  it("an omitted optional input of the call is omitted inside the body too", () => {
    // Clip(x, lo, hi) with hi omitted by the caller: no upper bound.
    const clipFn: Function = {
      name: "MyClip",
      domain: "my.domain",
      inputs: ["x", "lo", "hi"],
      outputs: ["y"],
      attributes: [],
      attributeProtos: [],
      nodes: [node("Clip", ["x", "lo", "hi"], ["y"])],
      opsetImports: [{ domain: "", version: 18 }],
      valueInfo: [],
    };
    const m = model(
      graph({
        nodes: [node("MyClip", ["x", "lo", ""], ["y"], {}, { domain: "my.domain" })],
        inputs: [valueInfo("x", "float", [3]), valueInfo("lo", "float", [])],
        outputs: [valueInfo("y", "float")],
      }),
      [
        { domain: "", version: 18 },
        { domain: "my.domain", version: 1 },
      ],
    );
    m.functions = [clipFn];
    expect(vals(run(m, { x: f32([3], [-5, 0, 50]), lo: f32([], [-1]) }).y!)).toEqual([-1, 0, 50]);
  });

  it("counts functions as supported and unknown domains as not", () => {
    expect(unsupportedOps(callModel({}))).toEqual([]);
    const m = callModel({});
    m.functions = [];
    expect(unsupportedOps(m)).toEqual(["my.domain.ScaleShift"]);
  });
});

describe("inputs, initializers, intermediates", () => {
  const m = (): Model =>
    model(
      graph({
        nodes: [node("Add", ["x", "b"], ["t"]), node("Mul", ["t", "t"], ["y"])],
        inputs: [valueInfo("x", "float", [2]), valueInfo("b", "float", [2])],
        initializers: [Tensor.from(DataType.FLOAT, [2], [1, 2], "b")],
        outputs: [valueInfo("y", "float")],
      }),
    );
  it("an initializer that is also an input is a default the caller may override", () => {
    expect(vals(run(m(), { x: f32([2], [1, 1]) }).y!)).toEqual([4, 9]);
    expect(vals(run(m(), { x: f32([2], [1, 1]), b: f32([2], [0, 0]) }).y!)).toEqual([1, 1]);
  });
  it("sees edits a pass makes to the same graph object between runs", () => {
    const mm = m();
    expect(vals(run(mm, { x: f32([2], [1, 1]) }).y!)).toEqual([4, 9]);
    mm.graph.nodes[1] = node("Sub", ["t", "x"], ["u"]);
    mm.graph.nodes.push(node("Neg", ["u"], ["y"]));
    mm.graph.initializers[0] = Tensor.from(DataType.FLOAT, [2], [5, 6], "b");
    expect(vals(run(mm, { x: f32([2], [1, 1]) }).y!)).toEqual([-5, -6]);
  });

  it("returns intermediates only on request", () => {
    expect(Object.keys(run(m(), { x: f32([2], [0, 0]) }))).toEqual(["y"]);
    const named = run(m(), { x: f32([2], [0, 0]) }, { keepIntermediates: ["t"] });
    expect(vals(named.t!)).toEqual([1, 2]);
    const all = run(m(), { x: f32([2], [0, 0]) }, { keepIntermediates: true });
    expect(Object.keys(all).sort()).toEqual(["b", "t", "x", "y"]);
  });
});

describe("errors are one line and name what is wrong", () => {
  const addModel = (): Model =>
    model(
      graph({
        nodes: [node("Add", ["x", "x"], ["y"], {}, { name: "adder" })],
        inputs: [valueInfo("x", "float", [2, 3])],
        outputs: [valueInfo("y", "float")],
      }),
    );

  it("a missing graph input", () => {
    const e = runError(() => run(addModel(), {}));
    expect(e.code).toBe("E_RUNTIME");
    expect(e.message).toMatch(
      /^graph input 'x' \(read by node 'adder' \(Add\)\): no value was given for this input$/,
    );
  });

  it("a dtype or rank that contradicts the declared type", () => {
    expect(
      runError(() => run(addModel(), { x: T(DataType.INT32, [2, 3], [1, 2, 3, 4, 5, 6]) })).message,
    ).toMatch(
      /graph input 'x' \(read by node 'adder' \(Add\)\): expected element type float, got int32/,
    );
    expect(runError(() => run(addModel(), { x: f32([6], [1, 2, 3, 4, 5, 6]) })).message).toMatch(
      /graph input 'x' \(read by node 'adder' \(Add\)\): expected rank 2 .*got shape \[6\]/,
    );
  });

  it("an axis out of range names the node", () => {
    const e = runError(() =>
      runOne({
        op: "Concat",
        inputs: [f32([1, 2], [1, 2])],
        attrs: { axis: 2 },
        extra: { name: "cat" },
      }),
    );
    expect(e.code).toBe("E_RUNTIME");
    expect(e.message).toBe(
      "node 'cat' (Concat): axis 2 is out of range for rank 2 (valid: [-2, 1])",
    );
  });

  it("a shape beyond --max-elements or overflowing names the node", () => {
    const e = runError(() =>
      runOne(
        { op: "Expand", inputs: [f32([1], [1]), i64([2], [1000, 1000])] },
        { maxElements: 1000 },
      ),
    );
    expect(e.message).toMatch(
      /^node #0 \(Expand\): shape \[1000,1000\] has 1000000 elements, more than the limit of 1000/,
    );
    const o = runError(() =>
      runOne({ op: "ConstantOfShape", inputs: [i64([3], [2n ** 40n, 2n ** 40n, 2n ** 40n])] }),
    );
    expect(o.message).toMatch(
      /^node #0 \(ConstantOfShape\): shape .* (overflows|more than the limit)/,
    );
  });

  it("every op without a kernel is listed in one E_UNSUPPORTED error, before anything runs", () => {
    const m = model(
      graph({
        nodes: [
          node("NoSuchOp", ["x", "x"], ["a"]),
          node("Add", ["a", "a"], ["b"]),
          node("Frobnicate", ["b"], ["c"], {}, { domain: "com.example" }),
          node("AnotherMissingOp", ["c"], ["y"]),
        ],
        inputs: [valueInfo("x", "float", [1])],
        outputs: [valueInfo("y", "float")],
      }),
    );
    const e = runError(() => run(m, {}));
    expect(e.code).toBe("E_UNSUPPORTED");
    expect(e.message).toBe(
      "the interpreter has no kernel for 3 ops: AnotherMissingOp, NoSuchOp, com.example.Frobnicate",
    );
  });

  it("a kernel failure inside a subgraph names the inner node and the outer one", () => {
    const body = graph({
      nodes: [node("Reshape", ["x", "bad"], ["r"], {}, { name: "inner" })],
      outputs: [valueInfo("r", "float")],
    });
    const m = model(
      graph({
        nodes: [
          node("If", ["c"], ["y"], { then_branch: body, else_branch: body }, { name: "branch" }),
        ],
        inputs: [
          valueInfo("c", "bool", []),
          valueInfo("x", "float", [2]),
          valueInfo("bad", "int64", [1]),
        ],
        outputs: [valueInfo("y", "float")],
      }),
    );
    const e = runError(() => run(m, { c: bool(true), x: f32([2], [1, 2]), bad: i64([1], [3]) }));
    expect(e.message).toMatch(
      /^node 'inner' \(Reshape\) in a subgraph of node 'branch' \(If\): cannot reshape 2 elements/,
    );
  });
});

describe("values are freed after their last use", () => {
  it("a long chain keeps memory flat (only live values are held)", () => {
    const n = 200;
    const nodes = Array.from({ length: n }, (_, i) =>
      node("Add", [i === 0 ? "x" : `v${i - 1}`, "x"], [i === n - 1 ? "y" : `v${i}`]),
    );
    const m = model(
      graph({
        nodes,
        inputs: [valueInfo("x", "float", [100000])],
        outputs: [valueInfo("y", "float")],
      }),
    );
    const x: RTensor = f32([100000], new Array(100000).fill(1));
    const stats = { peakLiveValues: 0 };
    const out = run(m, { x }, { stats });
    expect(vals(out.y!)[0]).toBe(n + 1);
    // x plus the one value between two nodes (the next node's output is stored before release).
    expect(stats.peakLiveValues).toBeLessThanOrEqual(3);
    const all = { peakLiveValues: 0 };
    run(m, { x }, { stats: all, keepIntermediates: true });
    expect(all.peakLiveValues).toBe(n + 1);
  });
});

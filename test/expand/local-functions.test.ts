// Model-local functions (FunctionProto) expanded in place of their calls.

import { describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import { parseModelText } from "../../src/text/parse.js";
import { f32, T, DataType } from "../helpers/interp.js";
import { definedNames, expand, expectSameRun, opsOf } from "../helpers/expand.js";

const x = f32([2, 3], [0.5, -1, 2, 3, -4, 1.5]);

describe("expand: model-local functions", () => {
  it("replaces each call by the body; intermediate names never clash with the caller's", () => {
    const text = `
      < ir_version: 8, opset_import: ["" : 18, "local" : 1] >
      g (float[2,3] x) => (float[2,3] y, float[2,3] t) {
        [sq] t = local.SquarePlus (x)
        "sq__t" = Neg (t)
        y = local.SquarePlus ("sq__t")
      }
      < domain: "local", opset_import: ["" : 18] >
      SquarePlus (a) => (b) {
        t = Mul (a, a)
        b = Add (t, a)
      }`;
    const before = parseModelText(text);
    const r = expand(before);
    expect(r.modified).toBe(true);
    expect(opsOf(r.model)).toEqual(["Mul", "Add", "Neg", "Mul", "Add"]);
    expect(r.model.functions).toEqual([]);
    expect(r.model.opsetImports).toEqual([{ domain: "", version: 18 }]);
    // Readable: the first call's body is named after its node.
    expect(r.model.graph.nodes[0]!.name).toMatch(/^sq__/);
    expectSameRun(before, r.model, { x });
  });

  it("expands nested calls, attribute references (call value, default, absent) and overloads", () => {
    const text = `
      < ir_version: 9, opset_import: ["" : 18, "local" : 1] >
      g (float[2,3] x) => (float[2,3] y1, float[2,3] y2, float[2,3] y3, float[2,3] y4) {
        y1 = local.Outer <alpha: float = 3.0> (x)
        y2 = local.Outer (x)
        y3 = local.Pick:first (x)
        y4 = local.Pick:second (x)
      }
      < domain: "local", opset_import: ["" : 18] >
      Outer <alpha: float = 2.0> (a) => (b) {
        s = local.Scale <factor: float = @alpha> (a)
        b = local.Scale <factor: float = 0.5> (s)
      }
      < domain: "local", opset_import: ["" : 18] >
      Scale <factor> (a) => (b) {
        f = Constant <value_float: float = @factor> ()
        b = Mul (a, f)
      }
      < domain: "local", opset_import: ["" : 18], overload: "first" >
      Pick (a) => (b) {
        b = Abs (a)
      }
      < domain: "local", opset_import: ["" : 18], overload: "second" >
      Pick (a) => (b) {
        b = Neg (a)
      }`;
    const before = parseModelText(text);
    const r = expand(before);
    expect(opsOf(r.model).filter((o) => o.startsWith("local."))).toEqual([]);
    expect(r.model.functions).toEqual([]);
    expectSameRun(before, r.model, { x });
    const consts = r.model.graph.nodes.filter((n) => n.opType === "Constant");
    expect(consts.map((n) => n.attributes[0]!.value)).toEqual([3, 0.5, 2, 0.5]);
    expect(opsOf(r.model)).toContain("Abs");
    expect(opsOf(r.model)).toContain("Neg");
  });

  it("leaves out an attribute referenced but given neither by the call nor as a default", () => {
    const text = `
      < ir_version: 9, opset_import: ["" : 18, "local" : 1] >
      g (float[2,3] x) => (float[2,3] y) {
        y = local.Soft (x)
      }
      < domain: "local", opset_import: ["" : 18] >
      Soft <ax> (a) => (b) {
        b = Softmax <axis: int = @ax> (a)
      }`;
    const before = parseModelText(text);
    const r = expand(before);
    const sm = r.model.graph.nodes.find((n) => n.opType === "Softmax" || n.opType === "Exp");
    expect(sm).toBeDefined();
    const softmax = parseModelText(text.replace("y = local.Soft (x)", "y = Softmax (x)"));
    expectSameRun(softmax, r.model, { x });
  });

  it("expands calls inside If branches and Loop bodies, reading outer-scope values", () => {
    const text = `
      < ir_version: 9, opset_import: ["" : 18, "local" : 1] >
      g (float[2,3] x, bool c, int64 n) => (float[2,3] y, float[2,3] z) {
        w = Neg (x)
        y = If (c) <
          then_branch: graph = th () => (float[2,3] r) { r = local.AddW (x, w) },
          else_branch: graph = el () => (float[2,3] r2) { r2 = local.AddW (w, w) }
        >
        z = Loop (n, "", x) <
          body: graph = body (int64 i, bool cin, float[2,3] acc) => (bool cout, float[2,3] next) {
            cout = Identity (cin)
            next = local.AddW (acc, w)
          }
        >
      }
      < domain: "local", opset_import: ["" : 18] >
      AddW (a, b) => (c) {
        w = Add (a, b)
        c = Identity (w)
      }`;
    const before = parseModelText(text);
    const r = expand(before);
    expect(opsOf(r.model).filter((o) => o.startsWith("local."))).toEqual([]);
    expect(r.model.functions).toEqual([]);
    const c = T(DataType.BOOL, [], [1]);
    const c0 = T(DataType.BOOL, [], [0]);
    const n = T(DataType.INT64, [], [3]);
    expectSameRun(before, r.model, { x, c, n });
    expectSameRun(before, r.model, { x, c: c0, n });
    // The body's own "w" does not capture the graph's w: every name is defined once.
    const { values } = definedNames(r.model);
    expect(values.filter((v) => v === "w")).toEqual(["w"]);
  });

  it("refuses a cycle of local function calls, naming it", () => {
    const text = `
      < ir_version: 9, opset_import: ["" : 18, "local" : 1] >
      g (float[2] x) => (float[2] y) { y = local.A (x) }
      < domain: "local", opset_import: ["" : 18, "local" : 1] >
      A (a) => (b) { b = local.B (a) }
      < domain: "local", opset_import: ["" : 18, "local" : 1] >
      B (a) => (b) { b = local.A (a) }`;
    let err: unknown;
    try {
      expand(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OnnxError);
    expect((err as Error).message).toMatch(/cycle \('local\.A' -> 'local\.B' -> 'local\.A'\)/);
  });

  it("keeps a function named by --keep and expands the schema function ops inside it", () => {
    const text = `
      < ir_version: 9, opset_import: ["" : 18, "local" : 1] >
      g (float[2,3] x) => (float[2] y) {
        ax = Constant <value_ints: ints = [1]> ()
        y = local.L1 (x, ax)
      }
      < domain: "local", opset_import: ["" : 18] >
      L1 (a, axes) => (b) {
        b = ReduceL1 <keepdims: int = 0> (a, axes)
      }`;
    const before = parseModelText(text);
    const r = expand(before, { keep: [{ domain: "local", op: "L1" }] });
    expect(r.model.functions.length).toBe(1);
    expect(r.model.functions[0]!.nodes.map((n) => n.opType)).toEqual(["Abs", "ReduceSum"]);
    expect(r.model.opsetImports).toEqual(before.opsetImports);
    expectSameRun(before, r.model, { x });
  });

  it("does not change its input", () => {
    const text = `
      < ir_version: 8, opset_import: ["" : 18, "local" : 1] >
      g (float[2,3] x) => (float[2,3] y) { y = local.F (x) }
      < domain: "local", opset_import: ["" : 18] >
      F (a) => (b) { b = Celu (a) }`;
    const before = parseModelText(text);
    const copy = structuredClone(before);
    expand(before);
    expect(before).toEqual(copy);
  });
});

describe("expand: calls in a row share a body only when their keys are the same", () => {
  it("a change of attribute or input type between neighbours gets its own body", () => {
    const text = `
      < ir_version: 8, opset_import: ["" : 18] >
      g (float[2,3] x, double[2,3] d) => (float[1,1] a, float b, float c, double e) {
        a = ReduceLogSum <keepdims: int = 1> (x)
        b = ReduceLogSum <keepdims: int = 0> (x)
        c = ReduceLogSum <keepdims: int = 0> (x)
        e = ReduceLogSum <keepdims: int = 0> (d)
      }`;
    const before = parseModelText(text);
    const r = expand(before);
    // Each call expanded alone gives the nodes it has in the row.
    const alone = (i: number) => {
      const g = before.graph;
      const graph = { ...g, nodes: [g.nodes[i]!], outputs: [g.outputs[i]!] };
      return opsOf(expand({ ...before, graph }).model).join(",");
    };
    expect(opsOf(r.model).join(",")).toBe([0, 1, 2, 3].map(alone).join(","));
    const keep = r.model.graph.nodes
      .filter((n) => n.opType === "ReduceSum")
      .map((n) => n.attributes.find((a) => a.name === "keepdims")?.value);
    expect(keep).toEqual([1n, 0n, 0n, 0n]);
    const d = T(DataType.DOUBLE, [2, 3], [1, 2, 3, 4, 5, 6]);
    expectSameRun(before, r.model, { x, d });
  });
});

// The function table: keys, labels, lookup, the call graph, cycles, sizes.

import { describe, expect, it } from "vitest";
import {
  FunctionTable,
  cyclePath,
  functionKey,
  functionLabel,
  functionWhere,
  nodeCount,
} from "../../src/ir/functions.js";
import { parseModelText } from "../../src/text/parse.js";

const m = parseModelText(`
  <ir_version: 10, opset_import: ["" : 18, "local" : 1]>
  main (float[4] x) => (float[4] y) {
    y = local.A (x)
  }
  <domain: "local", opset_import: ["" : 18, "local" : 1]>
  A (p) => (q) {
    t = local.B (p)
    q = If (c) <
      then_branch = t () => (float[4] a) { a = local.C (t) },
      else_branch = e () => (float[4] b) { b = local.B (t) }
    >
  }
  <domain: "local", opset_import: ["" : 18, "local" : 1]>
  B (p) => (q) {
    q = local.A (p)
  }
  <domain: "local", opset_import: ["" : 18, "local" : 1]>
  C (p) => (q) {
    q = local.C (p)
  }
  <domain: "local", opset_import: ["" : 18]>
  D (p) => (q) {
    q = Relu (p)
  }
  <domain: "local", opset_import: ["" : 18]>
  D (p) => (q) {
    q = Abs (p)
  }`);
const [A, B, C, D, D2] = m.functions as [
  (typeof m.functions)[0],
  (typeof m.functions)[0],
  (typeof m.functions)[0],
  (typeof m.functions)[0],
  (typeof m.functions)[0],
];

describe("function keys and labels", () => {
  it("keys by domain (ai.onnx as ''), name and overload", () => {
    expect(functionKey("ai.onnx", "F")).toBe(functionKey("", "F"));
    expect(functionKey("", "F", "x")).not.toBe(functionKey("", "F"));
    expect(functionKey("a", "b:c")).not.toBe(functionKey("a:b", "c"));
  });

  it("labels as messages show them", () => {
    expect(functionLabel({ domain: "local", name: "F", overload: "v2" })).toBe("local.F:v2");
    expect(functionLabel({ domain: "", name: "F" })).toBe("F");
    expect(functionWhere(A)).toBe("function 'local.A'");
    expect(cyclePath([A, B])).toBe("'local.A' -> 'local.B' -> 'local.A'");
  });
});

describe("the function table", () => {
  const table = new FunctionTable(m.functions);

  it("finds the function a node calls; the first definition of a key counts", () => {
    expect(table.called(m.graph.nodes[0]!)).toBe(A);
    expect(table.lookup("local", "D")).toBe(D);
    expect(table.duplicates).toEqual([D2]);
    expect(table.functions).toEqual([A, B, C, D]);
    expect(table.size).toBe(4);
    expect(table.called({ domain: "", opType: "Relu" })).toBeUndefined();
    expect(table.lookup("other", "A")).toBeUndefined();
    expect(table.lookup("local", "A", "v2")).toBeUndefined();
  });

  it("lists the calls of a function, subgraphs included, each callee once", () => {
    expect(table.callees(A)).toEqual([B, C]);
    expect(table.callees(C)).toEqual([C]);
    expect(table.callees(D)).toEqual([]);
  });

  it("names each cycle once, in the order a walk from the first function finds them", () => {
    expect(table.cycles()).toEqual([[A, B], [C]]);
    expect(new FunctionTable([D]).cycles()).toEqual([]);
  });

  it("counts a function's nodes, those of its subgraphs included", () => {
    expect(table.nodeCount(A)).toBe(4);
    expect(table.nodeCount(D)).toBe(1);
    expect(nodeCount(m.graph)).toBe(1);
  });
});

describe("the call graph without recursion", () => {
  it("orders, reaches and counts along calls, callee-first", () => {
    const table = new FunctionTable(m.functions.slice(3, 4));
    expect(table.order()).toEqual([D]);
    expect(new FunctionTable(m.functions).order()).toBeUndefined();
    const n = parseModelText(`
      <ir_version: 10, opset_import: ["" : 18, "local" : 1]>
      main (float[4] x) => (float[4] y) { t = local.P (x)  y = local.Q (t) }
      <domain: "local", opset_import: ["" : 18, "local" : 1]>
      P (a) => (b) { c = local.Q (a)  b = local.Q (c) }
      <domain: "local", opset_import: ["" : 18]>
      Q (a) => (b) { c = Relu (a)  b = Abs (c) }
      <domain: "local", opset_import: ["" : 18]>
      R (a) => (b) { b = Relu (a) }`);
    const [P, Q, R] = n.functions as [typeof D, typeof D, typeof D];
    const t = new FunctionTable(n.functions);
    expect(t.order()).toEqual([Q, P, R]);
    expect(t.reachable(n.graph)).toEqual(new Set([P, Q]));
    const sizes = t.inlinedSizes();
    expect([sizes.get(Q), sizes.get(P), sizes.get(R)]).toEqual([2, 4, 1]);
    expect(t.inlinedSize(n.graph, sizes)).toBe(6);
    // Q kept: its calls count one node each.
    const kept = t.inlinedSizes((f) => f !== Q);
    expect(kept.get(P)).toBe(2);
    expect(t.inlinedSize(n.graph, kept, (f) => f !== Q)).toBe(3);
  });

  it("walks a chain of 200,000 calls, and a cycle at its end", () => {
    const fns = Array.from({ length: 200_000 }, (_, i) => ({
      ...D,
      name: `f${i}`,
      nodes: [
        { opType: `f${i + 1}`, domain: "local", inputs: ["p"], outputs: ["q"], attributes: [] },
      ],
    }));
    const chain = new FunctionTable(fns);
    expect(chain.order()![0]!.name).toBe("f199999");
    expect(chain.cycles()).toEqual([]);
    expect(
      chain.reachable({ ...m.graph, nodes: [{ ...fns[0]!.nodes[0]!, opType: "f0" }] }).size,
    ).toBe(200_000);
    fns[199_999]!.nodes = [
      { opType: "f199998", domain: "local", inputs: ["p"], outputs: ["q"], attributes: [] },
    ];
    const looped = new FunctionTable(fns);
    expect(looped.order()).toBeUndefined();
    expect(looped.cycles().map((c) => c.map((f) => f.name))).toEqual([["f199998", "f199999"]]);
  });
});

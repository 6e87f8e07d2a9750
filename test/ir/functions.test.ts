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

// Inlining calls into a graph: fresh names, no collisions, same numbers.

import { describe, expect, it } from "vitest";
import { checkModel, inferTypes } from "../../src/check/index.js";
import { inlineCall } from "../../src/expand/inline.js";
import { fromFloat64, run, toFloat64 } from "../../src/interp/index.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { NameScope } from "../../src/ir/graph.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { SchemaRegistry } from "../../src/schema/index.js";

const reg = SchemaRegistry.default();

function inlineAll(m: Model, preferLoops: boolean): Model {
  const scope = new NameScope(m.graph);
  const opset = m.opsetImports[0]!.version;
  const types = inferTypes(m);
  const nodes = m.graph.nodes.flatMap((n) => {
    const v = reg.resolve("", n.opType, opset);
    if (!v.body) return [n];
    return inlineCall(
      n,
      v,
      n.inputs.map((i) => types.get(i)),
      scope,
      { preferLoops },
    ).nodes;
  });
  return { ...m, graph: { ...m.graph, nodes } };
}

describe("inlineCall", () => {
  for (const preferLoops of [false, true])
    it(`inlines several calls of the same ops into one graph without name clashes (preferLoops=${preferLoops})`, () => {
      const m = model(
        graph({
          name: "g",
          nodes: [
            node("ReduceLogSum", ["x", "axes"], ["a"], { keepdims: 1 }),
            node("ReduceLogSum", ["x", "axes"], ["b"], { keepdims: 1 }),
            node("LogCumSumExp", ["x"], ["c"], { axis: 1 }),
            node("LogCumSumExp", ["c"], ["d"], { axis: 0 }),
            node("Add", ["a", "b"], ["ab"]),
          ],
          inputs: [valueInfo("x", "float", [4, 6])],
          outputs: [valueInfo("ab", "float", [4, 1]), valueInfo("d", "float", [4, 6])],
          initializers: [Tensor.from(DataType.INT64, [1], [1n], "axes")],
        }),
        29,
        13,
      );
      const expanded = inlineAll(m, preferLoops);
      expect(expanded.graph.nodes.map((n) => n.opType)).not.toContain("LogCumSumExp");
      expect(expanded.graph.nodes.map((n) => n.opType)).not.toContain("ReduceLogSum");
      const outputs = expanded.graph.nodes.flatMap((n) => n.outputs);
      expect(new Set(outputs).size).toBe(outputs.length);
      expect(checkModel(expanded).problems).toEqual([]);
      const x = fromFloat64(
        DataType.FLOAT,
        [4, 6],
        Float64Array.from({ length: 24 }, (_, i) => 0.5 + (i % 7) * 0.75),
      );
      const want = run(m, { x });
      const got = run(expanded, { x });
      for (const name of ["ab", "d"]) {
        const w = toFloat64(want[name]!);
        const g = toFloat64(got[name]!);
        w.forEach((y, i) =>
          expect(Math.abs(g[i]! - y)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(y))),
        );
      }
    });
});

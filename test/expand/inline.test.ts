// Inlining calls into a graph: the body the schema gives, wired to the call's values, fresh names,
// no collisions, same numbers.

import { describe, expect, it } from "vitest";
import { checkModel, inferTypes } from "../../src/check/index.js";
import { inlineCall } from "../../src/expand/inline.js";
import { fromFloat64, run, toFloat64 } from "../../src/interp/index.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { NameScope } from "../../src/ir/graph.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Model } from "../../src/ir/types.js";
import type { Pass } from "../../src/passes/pass.js";
import { SchemaRegistry } from "../../src/schema/index.js";
import { expectPass } from "../helpers/pass.js";

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

/** Every call of an op with a function body in the main graph, inlined. */
function inlinePass(preferLoops = false): Pass {
  return {
    name: "inline-all",
    run(m) {
      const out = inlineAll(m, preferLoops);
      return { ok: true, model: out, modified: out.graph.nodes !== m.graph.nodes, notes: [] };
    },
  };
}

describe("inlineCall", () => {
  it("puts the schema's body in place of each call: the call's values in, fresh names inside, attributes bound", () => {
    expectPass(
      inlinePass(),
      `<ir_version: 10, opset_import: ["" : 29]>
      g (float[3,2] x) => (float[3] a, float[3,1] b, float[3,2] c) {
        axes = Constant <value = int64[1] {1}> ()
        a = ReduceLogSum <keepdims = 0> (x, axes)
        b = ReduceLogSum (x, axes)
        c = LogCumSumExp <axis = 1> (x)
      }`,
      // ReduceLogSum-18: ReduceSum then Log, keepdims from the call or the default 1. Every node put
      // in is named (after the call).
      // LogCumSumExp-29 over an axis of static length 2, loop-free: in float64, each element
      // log-add-exp'd with its predecessor (-inf padded in front), log1p(e) computed as
      // log(1 + e) * e / ((1 + e) - 1), exact where 1 + e rounds to 1.
      `<ir_version: 10, opset_import: ["" : 29]>
      g (float[3,2] x) => (float[3] a, float[3,1] b, float[3,2] c) {
        axes = Constant <value = int64[1] {1}> ()
        [n1] sa = ReduceSum <keepdims = 0, noop_with_empty_axes = 0> (x, axes)
        [n2] a = Log (sa)
        [n3] sb = ReduceSum <keepdims = 1, noop_with_empty_axes = 0> (x, axes)
        [n4] b = Log (sb)
        [n5] xd = Cast <to = 11> (x)
        [n6] zero = Constant <value = double {0.0}> ()
        [n7] one = Constant <value = double {1.0}> ()
        [n8] neginf = Constant <value = double {-inf}> ()
        [n9] axis = Constant <value = int64[1] {1}> ()
        [n10] start = Constant <value = int64[1] {0}> ()
        [n11] end = Constant <value = int64[1] {1}> ()
        [n12] head = Slice (xd, start, end, axis)
        [n13] pads = Constant <value = int64[2] {1, 0}> ()
        [n14] prev = Pad (head, pads, neginf, axis)
        [n15] hi = Max (xd, prev)
        [n16] same = Equal (xd, prev)
        [n17] diff = Sub (xd, prev)
        [n18] d = Where (same, zero, diff)
        [n19] ad = Abs (d)
        [n20] nd = Neg (ad)
        [n21] e = Exp (nd)
        [n22] ope = Add (e, one)
        [n23] ope1 = Sub (ope, one)
        [n24] l = Log (ope)
        [n25] le = Mul (l, e)
        [n26] q = Div (le, ope1)
        [n27] tiny = Equal (ope1, zero)
        [n28] log1p = Where (tiny, e, q)
        [n29] y = Add (hi, log1p)
        [n30] c = Cast <to = 1> (y)
      }`,
    );
  });

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

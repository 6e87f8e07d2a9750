// The benchmarks' chains: the expander's (bench/expand.ts, bench/infer.ts, bench/whole.ts) and the
// converter's (bench/convert.ts, bench/whole.ts). Models are plain
// data (no tensors here), so one built with src/'s builders also feeds the compiled library.

import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import type { Model, Node } from "../src/ir/types.js";

/** ReduceL1-18, a call to the local function `local.Square`, ReduceLogSum-18, in turn. */
export function expandChain(calls: number): Model {
  const nodes = [];
  let prev = "x";
  for (let i = 0; i < calls; i++) {
    const out = i === calls - 1 ? "y" : `v${i}`;
    const k = i % 3;
    if (k === 0) nodes.push(node("ReduceL1", [prev], [out], { keepdims: 1 }, { name: `n${i}` }));
    else if (k === 1)
      nodes.push(node("Square", [prev], [out], {}, { name: `n${i}`, domain: "local" }));
    else nodes.push(node("ReduceLogSum", [prev], [out], { keepdims: 1 }, { name: `n${i}` }));
    prev = out;
  }
  const m = model(
    graph({
      name: "chain",
      nodes,
      inputs: [valueInfo("x", "float", [1, 1])],
      outputs: [valueInfo("y", "float", [1, 1])],
    }),
    [
      { domain: "", version: 18 },
      { domain: "local", version: 1 },
    ],
  );
  m.functions = [
    {
      name: "Square",
      domain: "local",
      inputs: ["a"],
      outputs: ["b"],
      attributes: [],
      attributeProtos: [],
      nodes: [node("Mul", ["a", "a"], ["t"]), node("Abs", ["t"], ["b"])],
      opsetImports: [{ domain: "", version: 18 }],
      valueInfo: [],
    },
  ];
  return m;
}

/** A chain of n nodes at `opset`: ReduceSum only, or Reduce ops between elementwise ones. */
export function reduceChain(kind: "reducesum" | "mixed", n: number, opset: number): Model {
  const nodes: Node[] = [];
  let prev = "x";
  for (let i = 0; i < n; i++) {
    const out = `v${i}`;
    if (kind === "reducesum" || i % 4 === 0) {
      const op =
        kind === "reducesum"
          ? "ReduceSum"
          : ["ReduceSum", "ReduceLogSum", "ReduceL1"][(i >> 2) % 3]!;
      nodes.push(node(op, [prev], [out], { axes: [1], keepdims: 1 }, { name: `n${i}` }));
    } else {
      const op = ["Relu", "Neg", "Abs"][i % 3]!;
      nodes.push(node(op, [prev], [out], {}, { name: `n${i}` }));
    }
    prev = out;
  }
  const g = graph({
    name: "chain",
    nodes,
    inputs: [valueInfo("x", "float", [2, 3])],
    outputs: [valueInfo(prev, "float", [2, 1])],
  });
  return model(g, opset, opset <= 11 ? 6 : 7);
}

/** n ReduceLogSum-18 calls in a chain: `expand` makes each a ReduceSum and a Log (2n nodes). */
export function logSumChain(n: number): Model {
  const nodes: Node[] = [];
  let prev = "x";
  for (let i = 0; i < n; i++) {
    const out = i === n - 1 ? "y" : `v${i}`;
    nodes.push(node("ReduceLogSum", [prev], [out], { keepdims: 1 }, { name: `n${i}` }));
    prev = out;
  }
  return model(
    graph({
      name: "logsum_chain",
      nodes,
      inputs: [valueInfo("x", "float", [1, 1])],
      outputs: [valueInfo("y", "float", [1, 1])],
    }),
    18,
  );
}

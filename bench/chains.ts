// The expander's benchmark chain, shared by bench/expand.ts and bench/infer.ts. Models are plain
// data (no tensors here), so one built with src/'s builders also feeds the compiled library.

import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import type { Model } from "../src/ir/types.js";

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

// The inspector benchmark's models (issue 17): chains of primitive ops, with every third node a
// Relu (a function op since opset 14, so the CLI's expand turns each into Constant + Max: a chain of
// 1,000 becomes 1,334 nodes), and wide graphs of parallel chains summed at the end.

import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import type { Model, Node } from "../src/ir/types.js";

const OPS = ["Relu", "Abs", "Neg"];

function link(nodes: Node[], from: string, length: number, prefix: string, last?: string): string {
  let prev = from;
  for (let i = 0; i < length; i++) {
    const out = i === length - 1 && last ? last : `${prefix}v${i}`;
    nodes.push(node(OPS[i % 3]!, [prev], [out], {}, { name: `${prefix}n${i}` }));
    prev = out;
  }
  return prev;
}

/** A chain of `n` nodes from x to y. */
export function webChain(n: number): Model {
  const nodes: Node[] = [];
  link(nodes, "x", n, "", "y");
  return model(
    graph({
      name: `chain_${n}`,
      nodes,
      inputs: [valueInfo("x", "float", [1, 16])],
      outputs: [valueInfo("y", "float", [1, 16])],
    }),
    18,
  );
}

/** `branches` chains of `length` nodes from x, summed into y: branches × length + 1 nodes. */
export function webWide(branches: number, length: number): Model {
  const nodes: Node[] = [];
  const ends: string[] = [];
  for (let b = 0; b < branches; b++) ends.push(link(nodes, "x", length, `b${b}_`));
  nodes.push(node("Sum", ends, ["y"], {}, { name: "sum" }));
  return model(
    graph({
      name: `wide_${branches}`,
      nodes,
      inputs: [valueInfo("x", "float", [1, 16])],
      outputs: [valueInfo("y", "float", [1, 16])],
    }),
    18,
  );
}

// common-subexpressions: nodes of one graph that compute the same thing — the same op and
// domain, the same inputs, the same attributes — become one: what read a later one's outputs
// reads the first's. Never for ops with randomness, ops with subgraphs, or nodes without outputs;
// a node writing a graph output is kept (its name is the model's interface). Constant nodes are
// compared by their values when small (64 elements at most). In every graph (the main graph,
// each subgraph, each local function's body), within the graph: a subgraph's node is not merged
// with one of the graph around it.

import { printAttribute } from "../text/print.js";
import { hasGraphAttribute } from "../ir/visit.js";
import type { Node } from "../ir/types.js";
import { replaceUses } from "../ir/visit.js";
import { counted, type Pass } from "./pass.js";
import { scopePass } from "./scopes.js";

const RANDOM = /^(Random|Bernoulli|Multinomial|Dropout)/;

/** The node's computation as text, or undefined when it is not to be merged. */
function keyOf(n: Node): string | undefined {
  if (!n.outputs.length || RANDOM.test(n.opType) || hasGraphAttribute(n)) return undefined;
  const attrs: string[] = [];
  for (const a of n.attributes) {
    if (a.type === "TENSOR" && a.value && a.value.dims.reduce((p, d) => p * d, 1) > 64)
      return undefined;
    try {
      attrs.push(printAttribute(a));
    } catch {
      return undefined;
    }
  }
  return `${n.domain ?? ""}\u0000${n.opType}\u0000${n.overload ?? ""}\u0000${n.inputs.join("\u0001")}\u0000${attrs.sort().join("\u0001")}\u0000${n.outputs.length}`;
}

export function commonSubexpressions(): Pass {
  return scopePass(
    "common-subexpressions",
    (k) => `merged ${counted(k, "repeated node")}`,
    (g) => {
      const outputs = new Set(g.outputs.map((v) => v.name));
      const first = new Map<string, Node>();
      const alias = new Map<string, string>();
      const nodes: Node[] = [];
      let merged = 0;
      for (const n0 of g.nodes) {
        // Each node's inputs as the merges before it left them (one node renamed at a time).
        const n = alias.size ? replaceUses([n0], alias)[0]! : n0;
        const key = keyOf(n);
        const seen = key === undefined ? undefined : first.get(key);
        if (seen && !n.outputs.some((o) => outputs.has(o))) {
          n.outputs.forEach((o, k) => {
            if (o) alias.set(o, seen.outputs[k]!);
          });
          merged++;
          continue;
        }
        if (key !== undefined && !seen) first.set(key, n);
        nodes.push(n);
      }
      return { graph: nodes.length === g.nodes.length ? g : { ...g, nodes }, changed: merged };
    },
  );
}

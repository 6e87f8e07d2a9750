// eliminate-identity: an Identity node whose output is not its graph's output is removed, and
// what read its output reads its input (in later nodes and in subgraphs). In every graph: the
// main graph, each subgraph (an Identity reading a value from outside may go: what read its
// output reads that value; one writing the subgraph's output stays, as in the main graph) and
// each local function's body.

import type { Node } from "../ir/types.js";
import { replaceUses } from "../ir/visit.js";
import { counted, type Pass } from "./pass.js";
import { scopePass } from "./scopes.js";

export function eliminateIdentity(): Pass {
  return scopePass(
    "eliminate-identity",
    (k) => `removed ${counted(k, "Identity node")}`,
    (g) => {
      const outputs = new Set(g.outputs.map((v) => v.name));
      const alias = new Map<string, string>();
      const to = (x: string) => alias.get(x) ?? x;
      const kept: Node[] = [];
      for (const n of g.nodes) {
        const isIdentity =
          n.opType === "Identity" &&
          (n.domain ?? "") === "" &&
          n.inputs[0] &&
          n.outputs[0] &&
          !outputs.has(n.outputs[0]);
        if (isIdentity) alias.set(n.outputs[0]!, to(n.inputs[0]!));
        else kept.push(n);
      }
      if (kept.length === g.nodes.length) return { graph: g, changed: 0 };
      return {
        graph: { ...g, nodes: replaceUses(kept, alias) },
        changed: g.nodes.length - kept.length,
      };
    },
  );
}

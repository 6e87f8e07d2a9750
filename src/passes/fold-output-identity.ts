// fold-output-identity: an Identity whose output is an output of its graph, reading a value a node
// of the same graph writes, is removed, and that value renamed to the output's name (where it is
// written and wherever it is read, subgraphs included). In every graph: the main graph, each
// subgraph and each local function's body (passes/scopes.ts). Left as they are: an Identity
// reading a graph input, an initializer, a function input or a value from outside a subgraph
// (no node of this graph writes it, so there is nothing to rename), and one reading a value that
// is itself a graph output (the two outputs must stay two values).

import type { Node } from "../ir/types.js";
import { renameValues } from "../ir/visit.js";
import { counted, type Pass } from "./pass.js";
import { scopePass } from "./scopes.js";

const isIdentity = (n: Node): boolean =>
  n.opType === "Identity" && (n.domain ?? "") === "" && !!n.inputs[0] && !!n.outputs[0];

export function foldOutputIdentity(): Pass {
  return scopePass(
    "fold-output-identity",
    (k) => `folded ${counted(k, "Identity node")} into the graph outputs they wrote`,
    (g) => {
      const outputs = new Set(g.outputs.map((v) => v.name));
      const written = new Set<string>();
      for (const n of g.nodes) for (const o of n.outputs) if (o) written.add(o);
      // Each value renamed at most once: the first Identity that copies it to an output.
      const rename = new Map<string, string>();
      const gone = new Set<Node>();
      for (const n of g.nodes) {
        if (!isIdentity(n) || !outputs.has(n.outputs[0]!)) continue;
        const x = n.inputs[0]!;
        if (!written.has(x) || outputs.has(x) || rename.has(x)) continue;
        rename.set(x, n.outputs[0]!);
        gone.add(n);
      }
      if (!gone.size) return { graph: g, changed: 0 };
      const nodes = renameValues(
        g.nodes.filter((n) => !gone.has(n)),
        rename,
      );
      // A value info of a renamed value now names the output (kept only where the output has none).
      const described = new Set(g.valueInfo.map((v) => v.name));
      const valueInfo = g.valueInfo.flatMap((v) => {
        const to = rename.get(v.name);
        if (to === undefined) return [v];
        return described.has(to) || g.outputs.some((o) => o.name === to && o.type)
          ? []
          : [{ ...v, name: to }];
      });
      return { graph: { ...g, nodes, valueInfo }, changed: gone.size };
    },
  );
}

// remove-dead-values: nodes none of whose outputs is used removed, in the main graph, in each
// If/Loop/Scan body (whose roots are its own outputs) and in each local function (its formal
// outputs). A value is used by a later node's input, a subgraph that reads it from outside, or a
// graph output. Nodes without outputs are kept.

import { outerNamesUsedBy } from "../ir/graph.js";
import { mapNodeGraphs } from "../ir/visit.js";
import type { Graph, Model, Node } from "../ir/types.js";
import type { Pass } from "./pass.js";

/** The nodes that stay, subgraphs pruned too; the same array when none is removed. */
function prune(nodes: Node[], roots: Iterable<string>): Node[] {
  const used = new Set(roots);
  const keep = new Array<Node | undefined>(nodes.length);
  let changed = false;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i]!;
    if (n.outputs.length > 0 && !n.outputs.some((o) => o !== "" && used.has(o))) {
      changed = true;
      continue;
    }
    const m = mapNodeGraphs(n, pruneGraph);
    if (m !== n) changed = true;
    keep[i] = m;
    for (const x of m.inputs) if (x !== "") used.add(x);
    for (const x of outerNamesUsedBy(m)) used.add(x);
  }
  return changed ? keep.filter((n): n is Node => n !== undefined) : nodes;
}

function pruneGraph(g: Graph): Graph {
  const nodes = prune(
    g.nodes,
    g.outputs.map((o) => o.name),
  );
  return nodes === g.nodes ? g : { ...g, nodes };
}

export function removeDeadValues(): Pass {
  return {
    name: "remove-dead-values",
    run(model) {
      const graph = pruneGraph(model.graph);
      let changed = graph !== model.graph;
      const functions = model.functions.map((f) => {
        const nodes = prune(f.nodes, f.outputs);
        if (nodes === f.nodes) return f;
        changed = true;
        return { ...f, nodes };
      });
      if (!changed) return { ok: true, model, modified: false, notes: [] };
      const out: Model = { ...model, graph, functions };
      return { ok: true, model: out, modified: true, notes: [] };
    },
  };
}

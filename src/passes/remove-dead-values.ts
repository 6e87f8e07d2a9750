// remove-dead-values: nodes none of whose outputs is used removed, in the main graph, in each
// If/Loop/Scan body (whose roots are its own outputs) and in each local function (its formal
// outputs). A value is used by a later node's input, a subgraph that reads it from outside, or a
// graph output. Nodes without outputs are kept. Then the main graph's initializers nothing reads
// (no node, no subgraph from outside, no graph output) are dropped, unless they are graph inputs
// too (a default a caller may override): a rewrite that stopped reading a weight leaves no copy.

import { outerNamesUsedBy } from "../ir/graph.js";
import type { Model, Node } from "../ir/types.js";
import { visitModel, type GraphScope } from "../ir/visit.js";
import { modelPass, type Pass } from "./pass.js";

/**
 * The nodes of a scope that stay (its subgraphs already pruned by the walk); the same array
 * when none is removed.
 */
function prune(nodes: Node[], scope: GraphScope): Node[] {
  const o = scope.owner;
  const used = new Set("initializers" in o ? o.outputs.map((v) => v.name) : o.outputs);
  const keep = new Array<Node | undefined>(nodes.length);
  let changed = false;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i]!;
    if (n.outputs.length > 0 && !n.outputs.some((o) => o !== "" && used.has(o))) {
      changed = true;
      continue;
    }
    keep[i] = n;
    for (const x of n.inputs) if (x !== "") used.add(x);
    for (const x of outerNamesUsedBy(n)) used.add(x);
  }
  return changed ? keep.filter((n): n is Node => n !== undefined) : nodes;
}

/** The model without main-graph initializers that nothing reads; the same model when none. */
function pruneInitializers(model: Model): Model {
  const g = model.graph;
  const read = new Set<string>([...g.outputs, ...g.inputs].map((v) => v.name));
  for (const n of g.nodes) {
    for (const x of n.inputs) read.add(x);
    for (const x of outerNamesUsedBy(n)) read.add(x);
  }
  const initializers = g.initializers.filter((t) => read.has(t.name));
  return initializers.length === g.initializers.length
    ? model
    : { ...model, graph: { ...g, initializers } };
}

export const removeDeadValues = (): Pass =>
  modelPass("remove-dead-values", (model) =>
    pruneInitializers(visitModel(model, { nodes: prune }, undefined)),
  );

// name-nodes: every node without a name given one, `<OpType>` numbered where taken, unique
// across the main graph and its subgraphs (and within each local function's body), so that
// messages, diffs and origin records can name every node. Named nodes keep their names.

import { NameScope } from "../ir/graph.js";
import { visitModel } from "../ir/visit.js";
import { modelPass, type Pass } from "./pass.js";

export const nameNodes = (): Pass =>
  modelPass("name-nodes", (model) =>
    visitModel<NameScope>(model, {
      // One scope of names per graph with its subgraphs, and per function body.
      enter: (scope, parent) => parent ?? new NameScope(scope.owner),
      node: (node, _, __, names) =>
        node.name ? node : { ...node, name: names.fresh(node.opType) },
    }),
  );

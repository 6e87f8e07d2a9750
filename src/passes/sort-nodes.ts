// sort-nodes: every graph's nodes (the main graph, each subgraph, each local function) put in an
// order where each node comes after the producers of its inputs, the stored order kept where it
// already is one. ONNX asks for that order, and the passes that sweep a graph from its end
// (remove-dead-values, fold-constants' clean-up) rely on it; some converters append nodes out of
// order (a float16 conversion that keeps float32 inputs adds its input Casts last), which the
// checker and runtimes accept. A cycle is an error naming its nodes.

import { topologicalOrder } from "../ir/graph.js";
import { visitModel } from "../ir/visit.js";
import { modelPass, type Pass } from "./pass.js";

export const sortNodes = (): Pass =>
  modelPass("sort-nodes", (model) =>
    visitModel(
      model,
      {
        nodes: (nodes, scope) => {
          const order = topologicalOrder({ ...scope.owner, nodes } as typeof scope.owner);
          return order.every((v, i) => v === i) ? nodes : order.map((i) => nodes[i]!);
        },
      },
      undefined,
    ),
  );

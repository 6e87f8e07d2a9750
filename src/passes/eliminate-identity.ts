// eliminate-identity: an Identity node of the main graph whose output is not a graph output is
// removed, and what read its output reads its input (in later nodes and in subgraphs).

import type { Node } from "../ir/types.js";
import { renameNode } from "../ir/visit.js";
import type { Pass } from "./pass.js";

export function eliminateIdentity(): Pass {
  return {
    name: "eliminate-identity",
    run(model) {
      const g = model.graph;
      const outputs = new Set(g.outputs.map((v) => v.name));
      const alias = new Map<string, string>();
      const to = (x: string) => alias.get(x) ?? x;
      const nodes: Node[] = [];
      for (const n of g.nodes) {
        const isIdentity =
          n.opType === "Identity" &&
          (n.domain ?? "") === "" &&
          n.inputs[0] &&
          n.outputs[0] &&
          !outputs.has(n.outputs[0]);
        if (isIdentity) {
          alias.set(n.outputs[0]!, to(n.inputs[0]!));
          continue;
        }
        nodes.push(alias.size ? renameNode(n, { value: to, node: (s) => s }) : n);
      }
      if (nodes.length === g.nodes.length) return { ok: true, model, modified: false, notes: [] };
      const removed = g.nodes.length - nodes.length;
      return {
        ok: true,
        model: { ...model, graph: { ...g, nodes } },
        modified: true,
        notes: [
          { level: "info", message: `removed ${removed} Identity node${removed === 1 ? "" : "s"}` },
        ],
      };
    },
  };
}

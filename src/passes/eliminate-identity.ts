// eliminate-identity: an Identity node whose output is not its graph's output is removed, and
// what read its output reads its input (in later nodes and in subgraphs). In every graph: the
// main graph, each subgraph (an Identity reading a value from outside may go: what read its
// output reads that value; one writing the subgraph's output stays, as in the main graph) and
// each local function's body. One that writes its graph's output from a value a node of the same
// graph computes (not itself an output, nor read by another such Identity) is removed too: that
// node writes the output under its name, and what read the value reads the output.

import type { Node } from "../ir/types.js";
import { renameValues, replaceUses } from "../ir/visit.js";
import type { Pass } from "./pass.js";
import { eachScope } from "./scopes.js";

export function eliminateIdentity(): Pass {
  return {
    name: "eliminate-identity",
    run(model) {
      let removed = 0;
      const out = eachScope(model, (g) => {
        const outputs = new Set(g.outputs.map((v) => v.name));
        const alias = new Map<string, string>();
        const to = (x: string) => alias.get(x) ?? x;
        const computed = new Set(g.nodes.flatMap((n) => n.outputs));
        const rename = new Map<string, string>();
        const kept: Node[] = [];
        for (const n of g.nodes) {
          const [x, y] = [n.inputs[0] && to(n.inputs[0]), n.outputs[0]];
          if (
            n.opType === "Identity" &&
            (n.domain ?? "") === "" &&
            x &&
            y &&
            outputs.has(y) &&
            computed.has(x) &&
            !outputs.has(x) &&
            !rename.has(x)
          ) {
            rename.set(x, y);
            continue;
          }
          const isIdentity =
            n.opType === "Identity" &&
            (n.domain ?? "") === "" &&
            n.inputs[0] &&
            n.outputs[0] &&
            !outputs.has(n.outputs[0]);
          if (isIdentity) alias.set(n.outputs[0]!, to(n.inputs[0]!));
          else kept.push(n);
        }
        if (kept.length === g.nodes.length) return g;
        removed += g.nodes.length - kept.length;
        const nodes = renameValues(replaceUses(kept, alias), rename);
        const valueInfo = g.valueInfo.filter((v) => !rename.has(v.name));
        return { ...g, nodes, valueInfo };
      });
      if (!removed) return { ok: true, model, modified: false, notes: [] };
      return {
        ok: true,
        model: out,
        modified: true,
        notes: [
          { level: "info", message: `removed ${removed} Identity node${removed === 1 ? "" : "s"}` },
        ],
      };
    },
  };
}

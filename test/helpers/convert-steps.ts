// Applies adapter rows to the main graph of a model, one opset at a time, as the converter's
// driver does: a stand-in for adapter tests that must not depend on the driver's other choices.
// Steps without a row are taken as they are (the node keeps its form). The model is changed in place.

import { inferTypes, minIrVersionForOpset } from "../../src/check/index.js";
import type { AdapterContext, AdapterRow } from "../../src/convert/adapter.js";
import { NameScope } from "../../src/ir/graph.js";
import { getAttr } from "../../src/ir/attributes.js";
import type { Model, Node, Tensor } from "../../src/ir/types.js";
import { SchemaRegistry } from "../../src/schema/index.js";

export class Blocked extends Error {}

export function stepModel(model: Model, target: number, rows: readonly AdapterRow[]): Model {
  const reg = SchemaRegistry.default();
  const m = model; // changed in place
  const imp = m.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx")!;
  const dir = target > imp.version ? 1 : -1;
  while (imp.version !== target) {
    const at = imp.version;
    const next = at + dir;
    const types = inferTypes(m);
    const scope = new NameScope(m.graph);
    const g = m.graph;
    const consts = new Map<string, Tensor>();
    for (const t of g.initializers) consts.set(t.name, t);
    for (const n of g.nodes)
      if (n.opType === "Constant") {
        const v = getAttr(n, "value");
        if (v?.type === "TENSOR" && v.value) consts.set(n.outputs[0]!, v.value);
      }
    const out: Node[] = [];
    for (const n of g.nodes) {
      const from = reg.tryResolve(n.domain, n.opType, at);
      const to = reg.tryResolve(n.domain, n.opType, next);
      if (n.domain !== "" || !from || from === to) {
        out.push(n);
        continue;
      }
      const row = rows.find(
        (r) => r.op === n.opType && r.from === from.since && r.to === (to?.since ?? 0),
      );
      if (!row) {
        if (!to) throw new Blocked(`${n.opType} does not exist at opset ${next}`);
        out.push(n);
        continue;
      }
      const c: AdapterContext = {
        node: n,
        from,
        to: to ?? from,
        direction: dir > 0 ? "up" : "down",
        opset: next,
        where: `graph > node '${n.name ?? ""}' (${n.opType})`,
        inputType: (i) =>
          types.get(n.inputs[i] ?? "") ?? g.inputs.find((v) => v.name === n.inputs[i])?.type,
        constantInput: (i) => consts.get(n.inputs[i] ?? ""),
        fresh: (b) => scope.fresh(b),
        fail: (reason) => {
          throw new Blocked(reason);
        },
      };
      out.push(...(row.adapter(c) ?? [n]));
    }
    g.nodes = out;
    // Constants that an adapter stopped reading go, as the driver removes them.
    const read = new Set([...out.flatMap((n) => n.inputs), ...g.outputs.map((o) => o.name)]);
    const before = new Set(g.nodes.length ? [...consts.keys()] : []);
    g.nodes = out.filter(
      (n) => !(n.opType === "Constant" && before.has(n.outputs[0]!) && !read.has(n.outputs[0]!)),
    );
    g.initializers = g.initializers.filter((t) => read.has(t.name));
    imp.version = next;
  }
  m.irVersion = Math.max(m.irVersion, minIrVersionForOpset(target));
  return m;
}

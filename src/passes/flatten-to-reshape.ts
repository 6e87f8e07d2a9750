// flatten-to-reshape: a Flatten of the main graph becomes a Reshape to the same two dims, for a
// backend that has Reshape but not Flatten (`lower --target coreml`: its ML Program table lacks
// Flatten). The new shape is a constant: [product of the dims before `axis`, product of the rest],
// a product that is not known written as 0 (the dim kept: before an axis of 1 only) or -1 (the
// rest, when the leading dims are known and not 0). A Flatten whose input rank or needed dims
// are unknown is left as it is.

import { analysisOf } from "../check/infer.js";
import { node as makeNode } from "../ir/builder.js";
import { Tensor } from "../ir/tensor.js";
import { DataType, type Model, type Node } from "../ir/types.js";
import type { Pass } from "./pass.js";

const product = (ds: (number | string | null)[]) =>
  ds.every((d) => typeof d === "number") ? (ds as number[]).reduce((a, b) => a * b, 1) : undefined;

export function flattenToReshape(): Pass {
  return {
    name: "flatten-to-reshape",
    run(model: Model) {
      const g = model.graph;
      if (!g.nodes.some((n) => n.opType === "Flatten" && (n.domain ?? "") === ""))
        return { ok: true, model, modified: false, notes: [] };
      const types = analysisOf(model).types.get(g);
      const names = new Set([
        ...g.nodes.flatMap((n) => [...n.inputs, ...n.outputs]),
        ...g.initializers.map((t) => t.name),
        ...g.inputs.map((v) => v.name),
      ]);
      const added: Tensor[] = [];
      let changed = 0;
      const nodes: Node[] = g.nodes.map((n) => {
        if (n.opType !== "Flatten" || (n.domain ?? "") !== "" || !n.inputs[0]) return n;
        const t = types?.get(n.inputs[0]);
        const shape = t?.kind === "tensor" ? t.shape : undefined;
        if (!shape) return n;
        const r = shape.length;
        const a = Number(n.attributes.find((x) => x.name === "axis")?.value ?? 1);
        const axis = a < 0 ? a + r : a;
        if (axis < 0 || axis > r) return n;
        const lead = product(shape.slice(0, axis));
        const rest = product(shape.slice(axis));
        let dims: [number, number] | undefined;
        if (lead !== undefined && rest !== undefined) dims = [lead, rest];
        else if (lead !== undefined && lead > 0) dims = [lead, -1];
        else if (axis === 1 && rest !== undefined) dims = [0, rest];
        if (!dims) return n;
        let name = `${n.name || n.outputs[0]}_shape`;
        for (let k = 1; names.has(name); k++) name = `${n.name || n.outputs[0]}_shape_${k}`;
        names.add(name);
        added.push(Tensor.from(DataType.INT64, [2], dims.map(BigInt), name));
        changed++;
        return {
          ...makeNode("Reshape", [n.inputs[0], name], [...n.outputs]),
          ...(n.name ? { name: n.name } : {}),
        };
      });
      if (!changed) return { ok: true, model, modified: false, notes: [] };
      return {
        ok: true,
        model: { ...model, graph: { ...g, nodes, initializers: [...g.initializers, ...added] } },
        modified: true,
        notes: [{ level: "info", message: `${changed} Flatten made Reshape` }],
      };
    },
  };
}

// fix-dims: symbolic dims of the graph's inputs (and outputs) set to values by name
// ("batch=1,sequence=128", app/dims.ts), or by position (`input[axis]`), so that inference
// knows the shapes that follow and the shape arithmetic on them folds (fold-constants). Value
// info the model declares is dropped: what it said of the old dims is inferred anew.

import { OnnxError } from "../errors.js";
import type { Dim, Model, ValueInfo } from "../ir/types.js";
import type { Pass } from "./pass.js";

export function fixDims(dims: ReadonlyMap<string, number>): Pass {
  return {
    name: "fix-dims",
    run(model) {
      if (!dims.size) return { ok: true, model, modified: false, notes: [] };
      const g = model.graph;
      const seen = new Set<string>();
      const fix = (v: ValueInfo): ValueInfo => {
        const t = v.type;
        if (!t || t.kind !== "tensor" || !t.shape) return v;
        let changed = false;
        const shape: Dim[] = t.shape.map((d, axis) => {
          if (typeof d === "number") return d;
          const byPos = dims.get(`${v.name}[${axis}]`);
          const byName = d === null ? undefined : dims.get(d);
          const value = byPos ?? byName;
          if (value === undefined) return d;
          seen.add(byPos !== undefined ? `${v.name}[${axis}]` : d!);
          changed = true;
          return value;
        });
        return changed ? { ...v, type: { ...t, shape } } : v;
      };
      const inputs = g.inputs.map(fix);
      const outputs = g.outputs.map(fix);
      const unknown = [...dims.keys()].filter((k) => !seen.has(k));
      if (unknown.length)
        throw new OnnxError(
          "E_USAGE",
          `dim '${unknown[0]}' is not a symbolic dim of the model's inputs or outputs`,
        );
      const out: Model = { ...model, graph: { ...g, inputs, outputs, valueInfo: [] } };
      return {
        ok: true,
        model: out,
        modified: true,
        notes: [{ level: "info", message: `fixed ${[...seen].join(", ")}` }],
      };
    },
  };
}

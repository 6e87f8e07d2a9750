// refresh-output-types: the graph outputs' declared shapes brought up to what inference now
// knows. After fix-dims and folding, an output declared `[1, 4, past_sequence + sequence, 128]`
// is inferred `[1, 4, 24, 128]`: a dim that is not a number where inference gives one takes
// that number (a declared number is never changed: inference agreeing is the checker's concern).

import { analysisOf } from "../check/infer.js";
import type { Dim, ValueInfo } from "../ir/types.js";
import type { Pass } from "./pass.js";

export function refreshOutputTypes(): Pass {
  return {
    name: "refresh-output-types",
    run(model, ctx) {
      const g = model.graph;
      const symbolic = (v: ValueInfo) =>
        v.type?.kind === "tensor" && !!v.type.shape?.some((d) => typeof d !== "number");
      if (!g.outputs.some(symbolic)) return { ok: true, model, modified: false, notes: [] };
      const types = analysisOf(model, { registry: ctx.registry }).types.get(g);
      let changed = 0;
      const outputs = g.outputs.map((v) => {
        const t = v.type;
        const inferred = types?.get(v.name);
        if (!symbolic(v) || t?.kind !== "tensor" || inferred?.kind !== "tensor") return v;
        const got = inferred.shape;
        if (!got || got.length !== t.shape!.length) return v;
        let any = false;
        const shape: Dim[] = t.shape!.map((d, i) => {
          const k = got[i];
          if (typeof d !== "number" && typeof k === "number") {
            any = true;
            return k;
          }
          return d;
        });
        if (!any) return v;
        changed++;
        return { ...v, type: { ...t, shape } };
      });
      if (!changed) return { ok: true, model, modified: false, notes: [] };
      return {
        ok: true,
        model: { ...model, graph: { ...g, outputs } },
        modified: true,
        notes: [
          {
            level: "info",
            message: `${changed} output shape${changed === 1 ? "" : "s"} made static`,
          },
        ],
      };
    },
  };
}

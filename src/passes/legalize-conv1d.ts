// legalize-conv1d: a Conv over one spatial dim (input [N, C, L], weight [M, C/group, k]) that the
// target refuses although it has Conv (NNAPI takes only 2D Conv), as a 2D Conv over a dim of 1:
// Unsqueeze the input to [N, C, 1, L], the weight stored again as [M, C/group, 1, k] (the same
// bytes: the target wants it constant), kernel, strides and dilations given 1 in front and the
// pads 0 above and below, then Squeeze the dim of 1 away. Each output element is the same sum of
// the same products, so the numbers are the same (the interpreter's bits; onnxruntime's 1D and 2D
// kernels order the sum differently, so its last bits may differ). auto_pad carries over: SAME
// and VALID pad a dim of 1 under a kernel, stride and dilation of 1 by nothing.

import { attrInt, attrInts } from "../ir/attributes.js";
import { Tensor } from "../ir/tensor.js";
import type { Model, Node } from "../ir/types.js";
import { legalizePass, squeezeLike, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

const plainConv = (n: Node) => n.opType === "Conv" && (n.domain ?? "") === "";

export function legalizeConv1d(options: LegalizeOptions): Pass {
  return {
    name: "legalize-conv1d",
    run(model: Model, ctx) {
      const unchanged = { ok: true as const, model, modified: false, notes: [] };
      const g = model.graph;
      if (
        !options.refuses ||
        !options.has("Conv") ||
        !options.has("Unsqueeze") ||
        !options.has("Squeeze") ||
        !g.nodes.some(plainConv)
      )
        return unchanged;
      const inits = new Map(g.initializers.map((t) => [t.name, t] as const));
      const weight1d = (n: Node) => plainConv(n) && inits.get(n.inputs[1] ?? "")?.dims.length === 3;
      if (!g.nodes.some(weight1d)) return unchanged;
      const refuses = options.refuses(model);
      const inputs = new Set(g.inputs.map((v) => v.name));
      const names = new Set<string>([
        ...inputs,
        ...inits.keys(),
        ...g.nodes.flatMap((n) => n.outputs),
      ]);
      // Each refused Conv's constant rank-3 weight, stored again with a dim of 1 before the last.
      const weights = new Map<string, string>();
      const added: Tensor[] = [];
      for (const n of g.nodes) {
        const w = n.inputs[1];
        const t = w ? inits.get(w) : undefined;
        if (!weight1d(n) || !refuses(n) || !w || !t || inputs.has(w)) continue;
        if (weights.has(w)) continue;
        let name = `${w}_2d`;
        for (let k = 1; names.has(name); k++) name = `${w}_2d_${k}`;
        names.add(name);
        const [m, c, k] = t.dims as [number, number, number];
        added.push(new Tensor(t.dataType, [m, c, 1, k], t.data, name));
        weights.set(w, name);
      }
      if (!added.length) return unchanged;
      const rewrite = (site: Site): boolean => {
        const n = site.node;
        const [x, w, b] = n.inputs;
        const w2 = w ? weights.get(w) : undefined;
        if (!x || !w2 || site.shape(x)?.length !== 3) return false;
        const one = (name: string) => {
          const v = attrInts(n, name);
          return v === undefined ? {} : { [name]: [1, ...v] };
        };
        const pads = attrInts(n, "pads");
        const autoPad = n.attributes.find((a) => a.name === "auto_pad");
        const attrs = {
          ...one("kernel_shape"),
          ...one("strides"),
          ...one("dilations"),
          ...(pads?.length === 2 ? { pads: [0, pads[0]!, 0, pads[1]!] } : {}),
          group: attrInt(n, "group", 1),
          ...(autoPad?.value !== undefined ? { auto_pad: String(autoPad.value) } : {}),
        };
        const x2 = squeezeLike(site, "Unsqueeze", x, [2]);
        if (!x2) return false;
        const y2 = site.add("Conv", b ? [x2, w2, b] : [x2, w2], attrs);
        return !!squeezeLike(site, "Squeeze", y2, [2], [...site.out]);
      };
      const withWeights = {
        ...model,
        graph: { ...g, initializers: [...g.initializers, ...added] },
      };
      const r = legalizePass(
        "legalize-conv1d",
        ["Conv"],
        "1D Conv made 2D",
        rewrite,
        options,
        refuses,
      ).run(withWeights, ctx);
      return r.ok && !r.modified ? unchanged : r;
    },
  };
}

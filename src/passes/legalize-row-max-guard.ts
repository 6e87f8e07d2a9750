// legalize-row-max-guard: the guard of a softmax written out (Attention-23's body, for one),
// g = Where(Equal(m, -inf), z, m) with m = ReduceMax(s) over the row kept as a dim of 1, read
// only by Sub(s, g), for a target without Equal: g becomes Max(m, -max) (max the largest finite
// value of the type). Exact for every s, NaN and infinities included, for z neither NaN nor -inf:
// the two differ only where m is -inf, and there every element of s is -inf or NaN (whether the
// row maximum skips a NaN, as onnxruntime's does, or gives NaN, as ONNX's reference does), and
// -inf - z and -inf - (-max) are both -inf, NaN - either NaN; elsewhere Max(m, -max) is m, a NaN
// m too (Max propagates NaN: numpy's maximum, and onnxruntime). Its second guard,
// Where(Equal(t, 0), z, t) over the row sums t of e ≥ 0 (an Exp's output, or values shown so by
// finite-values) read only by Div(e, ·), becomes Max(t, least positive value) the same way: a sum
// of values ≥ 0 is 0 only where all are 0, and 0 divided by z > 0 or by it is 0; a positive, +inf
// or NaN t passes Max unchanged. The constants z and -inf (or 0) must not broadcast the result
// past m's (t's) shape.

import { attrInt } from "../ir/attributes.js";
import { DataType, type Model, type Node } from "../ir/types.js";
import { finiteBounds } from "./finite-values.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

const MAX = new Map<number, number>([
  [DataType.FLOAT, 3.4028234663852886e38],
  [DataType.FLOAT16, 65504],
  [DataType.DOUBLE, Number.MAX_VALUE],
]);

/** The least positive value of each float type (subnormal). */
const LEAST = new Map<number, number>([
  [DataType.FLOAT, 2 ** -149],
  [DataType.FLOAT16, 2 ** -24],
  [DataType.DOUBLE, Number.MIN_VALUE],
]);

const plain = (n: Node | undefined, op: string): n is Node =>
  !!n && n.opType === op && (n.domain ?? "") === "";

export function legalizeRowMaxGuard(options: LegalizeOptions): Pass {
  return {
    name: "legalize-row-max-guard",
    run(model: Model, ctx) {
      const g = model.graph;
      if (options.has("Equal") || !options.has("Max") || !g.nodes.some((n) => n.opType === "Equal"))
        return { ok: true, model, modified: false, notes: [] };
      const bounds = finiteBounds(model, ctx);
      const readers = new Map<string, Node[]>();
      for (const n of g.nodes)
        for (const i of n.inputs) if (i) readers.set(i, [...(readers.get(i) ?? []), n]);
      const outputs = new Set(g.outputs.map((v) => v.name));
      /**
       * Where(Equal(t, 0), z, t), t = ReduceSum(e) keeping dims, e ≥ 0 and finite, z > 0, read
       * only by Div(e, ·): Max(t, the least positive value). A t > 0 is at least that; a t of 0
       * has every e 0, and 0 / z and 0 / it are both 0.
       */
      /** x broadcasts to no more than m: every dim 1, and no more of them. */
      const unit = (site: Site, x: string, m: string) => {
        const [tx, tm] = [site.type(x), site.type(m)];
        return (
          tx?.kind === "tensor" &&
          tm?.kind === "tensor" &&
          !!tx.shape &&
          !!tm.shape &&
          tx.shape.length <= tm.shape.length &&
          tx.shape.every((d) => d === 1)
        );
      };
      /** Every value of e is ≥ 0 or NaN (never -0): an Exp's output, or shown so. */
      const nonNegative = (site: Site, e: string) =>
        plain(site.producer(e), "Exp") || (bounds.get(e)?.[0] ?? -1) >= 0;
      const sumGuard = (site: Site, y: string, z: string, t: string, eq: Node, rs: Node) => {
        const e = rs.inputs[0];
        const dt = site.elem(t);
        const least = dt === undefined ? undefined : LEAST.get(dt);
        const zero =
          eq.inputs[0] === t ? eq.inputs[1] : eq.inputs[1] === t ? eq.inputs[0] : undefined;
        if (
          !e ||
          !nonNegative(site, e) ||
          least === undefined ||
          attrInt(rs, "keepdims", 1) !== 1 ||
          !zero ||
          site.value(zero)?.values.every((v) => v === 0) !== true ||
          !unit(site, zero, t) ||
          !unit(site, z, t) ||
          !((bounds.get(z)?.[0] ?? 0) > 0) ||
          !(readers.get(y) ?? []).every(
            (r) => plain(r, "Div") && r.inputs[0] === e && r.inputs[1] === y,
          )
        )
          return false;
        site.add("Max", [t, site.constant("least", dt!, [], [least])], {}, [y]);
        return true;
      };
      const rewrite = (site: Site): boolean => {
        const n = site.node;
        const [c, z, m] = n.inputs;
        const y = n.outputs[0];
        const eq = c ? site.producer(c) : undefined;
        const rm = m ? site.producer(m) : undefined;
        if (!y || !z || !m || !plain(eq, "Equal") || outputs.has(y)) return false;
        if (rm?.opType === "ReduceSum" && (rm.domain ?? "") === "")
          return sumGuard(site, y, z, m, eq, rm);
        if (!plain(rm, "ReduceMax")) return false;
        const s = rm.inputs[0];
        const dt = site.elem(m);
        const max = dt === undefined ? undefined : MAX.get(dt);
        const ninf =
          eq.inputs[0] === m ? eq.inputs[1] : eq.inputs[1] === m ? eq.inputs[0] : undefined;
        const zb = bounds.get(z);
        if (
          !s ||
          max === undefined ||
          attrInt(rm, "keepdims", 1) !== 1 ||
          !ninf ||
          site.value(ninf)?.values.every((v) => v === -Infinity) !== true ||
          !unit(site, ninf, m) ||
          !unit(site, z, m) ||
          !zb ||
          !(zb[0] > -Infinity) ||
          !(readers.get(y) ?? []).every(
            (r) => plain(r, "Sub") && r.inputs[0] === s && r.inputs[1] === y,
          )
        )
          return false;
        site.add("Max", [m, site.constant("lowest", dt!, [], [-max])], {}, [y]);
        return true;
      };
      return legalizePass(
        "legalize-row-max-guard",
        ["Where"],
        "softmax row guard (Where of Equal to -inf or 0) made Max",
        rewrite,
        options,
        (n) =>
          plain(
            g.nodes.find((p) => p.outputs.includes(n.inputs[0] ?? "")),
            "Equal",
          ),
      ).run(model, ctx);
    },
  };
}

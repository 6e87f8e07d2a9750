// legalize-isnan: IsNaN of a value shown finite (finite-values: bounded for every input, as a
// decoder's attention probabilities are, a Softmax of bounded scores plus a mask of 0 and
// −3.4e38) is false everywhere, for a target without IsNaN: the IsNaN becomes a constant false,
// and a Where it chooses by gives its other branch (where that has the output's shape). Exact:
// such a value holds no NaN for any input.

import { DataType } from "../ir/types.js";
import { finite, finiteBounds, type Bound } from "./finite-values.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

const same = (a: number[] | undefined, b: number[] | undefined) =>
  !!a && !!b && a.length === b.length && a.every((d, i) => d === b[i]);

function rewrite(bounds: ReadonlyMap<string, Bound>) {
  /** The IsNaN computing c, when its input is shown finite. */
  const finiteIsNaN = (site: Site, c: string | undefined) => {
    const p = c ? site.producer(c) : undefined;
    return (
      p?.opType === "IsNaN" &&
      (p.domain ?? "") === "" &&
      !!p.inputs[0] &&
      finite(bounds, p.inputs[0])
    );
  };
  return (site: Site): boolean => {
    const n = site.node;
    const y = n.outputs[0];
    if (!y) return false;
    if (n.opType === "Where") {
      const [c, , other] = n.inputs;
      if (!other || !finiteIsNaN(site, c) || !same(site.shape(other), site.shape(y))) return false;
      site.add("Identity", [other], {}, [y]);
      return true;
    }
    const x = n.inputs[0];
    const shape = site.shape(y);
    if (!x || !finite(bounds, x) || !shape) return false;
    const count = shape.reduce((p, d) => p * d, 1);
    site.add(
      "Identity",
      [site.constant("false", DataType.BOOL, shape, new Array(count).fill(false))],
      {},
      [y],
    );
    return true;
  };
}

export function legalizeIsNaN(options: LegalizeOptions): Pass {
  return {
    name: "legalize-isnan",
    run(model, ctx) {
      if (options.has("IsNaN") || !model.graph.nodes.some((n) => n.opType === "IsNaN"))
        return { ok: true, model, modified: false, notes: [] };
      const bounds = finiteBounds(model, ctx);
      const producers = new Map(
        model.graph.nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)),
      );
      return legalizePass(
        "legalize-isnan",
        ["IsNaN", "Where"],
        "IsNaN of a finite value made false",
        rewrite(bounds),
        options,
        (n) =>
          n.opType === "IsNaN" ||
          (n.opType === "Where" && producers.get(n.inputs[0] ?? "")?.opType === "IsNaN"),
      ).run(model, ctx);
    },
  };
}

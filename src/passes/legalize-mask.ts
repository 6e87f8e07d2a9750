// legalize-mask: Where over a bool mask, for a target without Where (NNAPI), as arithmetic on
// the mask made float: m = Cast(c) (1 where c holds, else 0), And as m1·m2, Or as
// m1 + m2 − m1·m2, Not as 1 − m (followed through the And/Or/Not the target lacks, which then
// go dead), and Where(c, x, y) as m·x + (1 − m)·y, or (1 − m)·y where x is 0, m·x where y is 0.
// Applied only where x and y are shown finite: constants whose every value is finite (an
// attention mask's 0 and −3.4e38), or values finite-values bounds for every input. Then each product is a value times 1 or 0, exact, and each
// sum adds a zero: the same numbers, up to the sign of a zero result (Where's +0 may come out
// −0, which compares and adds as +0 does). A branch of -inf (a mask of 0 and -inf) is taken by
// Log of the mask instead, which gives 0 and -inf exactly: Where(c, x, -inf) as x + Log(m). The comparisons and logic
// behind c are followed as legalize-compare follows them (maskOf).

import type { ConstVal } from "../check/consts.js";
import { DataType } from "../ir/types.js";
import { finite, finiteBounds, type Bound } from "./finite-values.js";
import { maskOf } from "./legalize-compare.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

const FLOATS: readonly number[] = [DataType.FLOAT, DataType.FLOAT16, DataType.DOUBLE];

/** Whether a branch is shown finite: a constant of finite values, or bounded (finite-values). */
type Finite = (x: string, v: ConstVal | undefined) => boolean;

function where(site: Site, shownFinite: Finite): boolean {
  const [c, x, y] = site.node.inputs;
  if (!c || !x || !y || site.elem(c) !== DataType.BOOL) return false;
  const dt = site.elem(x);
  if (dt === undefined || !FLOATS.includes(dt) || site.elem(y) !== dt) return false;
  if (!["Cast", "Mul", "Add", "Sub"].every((op) => site.has(op))) return false;
  const [vx, vy] = [site.value(x), site.value(y)];
  const zero = (v: ConstVal | undefined) => !!v && v.values.every((k) => k === 0);
  if (!shownFinite(x, vx) || !shownFinite(y, vy)) return minusInf(site, dt, shownFinite);
  const m = maskOf(site, c, dt);
  if (zero(vx)) {
    const notM = site.add("Sub", [site.constant("one", dt, [], [1]), m]);
    site.add("Mul", [notM, y], {}, [...site.out]);
  } else if (zero(vy)) site.add("Mul", [m, x], {}, [...site.out]);
  else {
    const notM = site.add("Sub", [site.constant("one", dt, [], [1]), m]);
    site.add("Add", [site.add("Mul", [m, x]), site.add("Mul", [notM, y])], {}, [...site.out]);
  }
  return true;
}

/** Whether a constant holds one value (it broadcasts within any shape of its rank or more). */
const single = (v: ConstVal) => v.values.length === 1;

/**
 * Where(c, x, -inf) as x + Log(m) (Log(1) is 0, Log(0) is -inf, and x + 0 is x, x + -inf is -inf
 * for a finite x), Where(c, -inf, y) as y + Log(1 - m); Log(m) alone where x is a single 0. The
 * -inf must be a single constant value, so the output keeps the shape Where gives it.
 */
function minusInf(site: Site, dt: number, shownFinite: Finite): boolean {
  const [c, x, y] = site.node.inputs as [string, string, string];
  const [vx, vy] = [site.value(x), site.value(y)];
  const inf = (v: ConstVal | undefined) => !!v && single(v) && v.values[0] === -Infinity;
  const rankOf = (z: string) => {
    const t = site.type(z);
    return t?.kind === "tensor" ? t.shape?.length : undefined;
  };
  const [keep, gone, other] =
    inf(vy) && shownFinite(x, vx)
      ? [x, vy!, vx]
      : inf(vx) && shownFinite(y, vy)
        ? [y, vx!, vy]
        : [];
  const [rank, keepRank] = [rankOf(c), keep ? rankOf(keep) : undefined];
  if (!keep || !gone || rank === undefined || keepRank === undefined) return false;
  if (gone.dims.length > Math.max(rank, keepRank)) return false;
  if (!["Cast", "Log", "Add", "Sub"].every((op) => site.has(op))) return false;
  let m = maskOf(site, c, dt);
  if (keep === y) m = site.add("Sub", [site.constant("one", dt, [], [1]), m]);
  const alone =
    !!other &&
    single(other) &&
    Object.is(other.values[0], 0) &&
    Math.max(keepRank, gone.dims.length) <= rank;
  if (alone) site.add("Log", [m], {}, [...site.out]);
  else site.add("Add", [keep, site.add("Log", [m])], {}, [...site.out]);
  return true;
}

export function legalizeMask(options: LegalizeOptions): Pass {
  return {
    name: "legalize-mask",
    run(model, ctx) {
      if (options.has("Where") || !model.graph.nodes.some((n) => n.opType === "Where"))
        return { ok: true, model, modified: false, notes: [] };
      let bounds: ReadonlyMap<string, Bound> | undefined;
      const shownFinite: Finite = (x, v) =>
        v ? v.values.every(Number.isFinite) : finite((bounds ??= finiteBounds(model, ctx)), x);
      return legalizePass(
        "legalize-mask",
        ["Where"],
        "Where over a mask made arithmetic",
        (site) => where(site, shownFinite),
        options,
      ).run(model, ctx);
    },
  };
}

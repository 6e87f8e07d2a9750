// legalize-mask: Where over a bool mask, for a target without Where (NNAPI), as arithmetic on
// the mask made float: m = Cast(c) (1 where c holds, else 0), And as m1·m2, Or as
// m1 + m2 − m1·m2, Not as 1 − m (followed through the And/Or/Not the target lacks, which then
// go dead), and Where(c, x, y) as m·x + (1 − m)·y, or (1 − m)·y where x is 0, m·x where y is 0.
// Applied only where x and y are shown finite: constants whose every value is finite (an
// attention mask's 0 and −3.4e38). Then each product is a value times 1 or 0, exact, and each
// sum adds a zero: the same numbers, up to the sign of a zero result (Where's +0 may come out
// −0, which compares and adds as +0 does). A mask of −inf (Where(c, x, −inf), x a finite
// constant: the sequence-length masks of the attention bodies) is x + Log(m), where the target
// has Log: log(1) = 0 and log(0) = −inf, so x or −inf, exactly. The comparisons and logic
// behind c are followed as legalize-compare follows them (maskOf).

import { DataType } from "../ir/types.js";
import { maskOf } from "./legalize-compare.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

const FLOATS: readonly number[] = [DataType.FLOAT, DataType.FLOAT16, DataType.DOUBLE];

function where(site: Site): boolean {
  const [c, x, y] = site.node.inputs;
  if (!c || !x || !y || site.elem(c) !== DataType.BOOL) return false;
  const dt = site.elem(x);
  if (dt === undefined || !FLOATS.includes(dt) || site.elem(y) !== dt) return false;
  if (!["Cast", "Mul", "Add", "Sub"].every((op) => site.has(op))) return false;
  const [vx, vy] = [site.value(x), site.value(y)];
  if (!vx || !vy) return false;
  const zero = (v: { values: number[] }) => v.values.every((k) => k === 0);
  const ninf = (v: { values: number[] }) => v.values.every((k) => k === -Infinity);
  const finite = (v: { values: number[] }) => v.values.every(Number.isFinite);
  if ((ninf(vy) && finite(vx)) || (ninf(vx) && finite(vy))) {
    // a −inf mask: log(1) = 0 and log(0) = −inf, added to the other side
    if (!site.has("Log")) return false;
    const m = maskOf(site, c, dt);
    const [keep, other, v] = ninf(vy)
      ? [m, x, vx]
      : [site.add("Sub", [site.constant("one", dt, [], [1]), m]), y, vy];
    if (zero(v)) site.add("Log", [keep], {}, [...site.out]);
    else site.add("Add", [other, site.add("Log", [keep])], {}, [...site.out]);
    return true;
  }
  if (![...vx.values, ...vy.values].every(Number.isFinite)) return false;
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

export function legalizeMask(options: LegalizeOptions) {
  return legalizePass(
    "legalize-mask",
    ["Where"],
    "Where over a mask made arithmetic",
    where,
    options,
  );
}

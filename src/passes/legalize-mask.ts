// legalize-mask: Where over a bool mask, for a target without Where (NNAPI), as arithmetic on
// the mask made float: m = Cast(c) (1 where c holds, else 0), And as m1·m2, Or as
// m1 + m2 − m1·m2, Not as 1 − m (followed through the And/Or/Not the target lacks, which then
// go dead), and Where(c, x, y) as m·x + (1 − m)·y, or (1 − m)·y where x is 0, m·x where y is 0.
// Applied only where x and y are shown finite: constants whose every value is finite (an
// attention mask's 0 and −3.4e38). Then each product is a value times 1 or 0, exact, and each
// sum adds a zero: the same numbers, up to the sign of a zero result (Where's +0 may come out
// −0, which compares and adds as +0 does).

import { DataType } from "../ir/types.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

const FLOATS: readonly number[] = [DataType.FLOAT, DataType.FLOAT16, DataType.DOUBLE];

/** The mask c as 0/1 values of type dt, following And/Or/Not the target lacks. */
function maskOf(site: Site, c: string, dt: number, depth = 0): string {
  const p = site.producer(c);
  const op = p && (p.domain ?? "") === "" ? p.opType : "";
  const one = () => site.constant("one", dt, [], [1]);
  if (depth < 16 && p && ["And", "Or", "Not"].includes(op) && !site.has(op)) {
    const [a, b] = p.inputs;
    if (op === "Not" && a) return site.add("Sub", [one(), maskOf(site, a, dt, depth + 1)]);
    if (a && b) {
      const [ma, mb] = [maskOf(site, a, dt, depth + 1), maskOf(site, b, dt, depth + 1)];
      const both = site.add("Mul", [ma, mb]);
      if (op === "And") return both;
      return site.add("Sub", [site.add("Add", [ma, mb]), both]);
    }
  }
  const v = site.value(c);
  if (v) return site.constant("mask", dt, v.dims, v.values);
  return site.add("Cast", [c], { to: dt });
}

function where(site: Site): boolean {
  const [c, x, y] = site.node.inputs;
  if (!c || !x || !y || site.elem(c) !== DataType.BOOL) return false;
  const dt = site.elem(x);
  if (dt === undefined || !FLOATS.includes(dt) || site.elem(y) !== dt) return false;
  if (!["Cast", "Mul", "Add", "Sub"].every((op) => site.has(op))) return false;
  const [vx, vy] = [site.value(x), site.value(y)];
  if (!vx || !vy || ![...vx.values, ...vy.values].every(Number.isFinite)) return false;
  const zero = (v: { values: number[] }) => v.values.every((k) => k === 0);
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

// legalize-expand: Expand with a constant shape over an input of static shape, for a target
// without it (CoreML, NNAPI). To the shape the input already has: an Identity (simplify removes
// it). Otherwise, for numbers, a Mul by a constant of ones shaped to broadcast the input to the
// result (1 where the input's dim is kept): x·1 is x for every value, -0, infinities and NaN
// included, and Mul broadcasts as Expand does. Where the target lacks Mul, or for bool and other
// non-numbers, a Tile (after a Reshape adding the leading dims Expand adds): copies, exactly.

import { FLOAT_TYPES, INTEGER_TYPES } from "../ir/dtype.js";
import { DataType } from "../ir/types.js";
import { ints, legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

const NUMBERS: readonly number[] = [...FLOAT_TYPES, ...INTEGER_TYPES];

function expand(site: Site): boolean {
  const [x, s] = site.node.inputs;
  if (!x || !s) return false;
  const shape = site.shape(x);
  const target = site.value(s)?.values;
  const dt = site.elem(x);
  if (!shape || !target || dt === undefined) return false;
  const r = Math.max(shape.length, target.length);
  const padded = [...new Array<number>(r - shape.length).fill(1), ...shape];
  const want = [...new Array<number>(r - target.length).fill(1), ...target];
  const out: number[] = [];
  for (let i = 0; i < r; i++) {
    const [a, b] = [padded[i]!, want[i]!];
    if (a !== b && a !== 1 && b !== 1) return false; // Expand itself refuses
    out.push(a === 1 ? b : a);
  }
  if (r === shape.length && out.every((d, i) => d === shape[i])) {
    if (!site.has("Identity")) return false;
    site.add("Identity", [x], {}, [...site.out]);
    return true;
  }
  if (NUMBERS.includes(dt) && site.has("Mul")) {
    const ones = out.map((d, i) => (padded[i] === 1 ? d : 1));
    const count = ones.reduce((p, d) => p * d, 1);
    const one = dt === DataType.INT64 || dt === DataType.UINT64 ? 1n : 1;
    site.add("Mul", [x, site.constant("ones", dt, ones, new Array(count).fill(one))], {}, [
      ...site.out,
    ]);
    return true;
  }
  if (!site.has("Tile") || (r > shape.length && !site.has("Reshape"))) return false;
  const src = r > shape.length ? site.add("Reshape", [x, ints(site, "shape", padded)]) : x;
  const repeats = out.map((d, i) => (padded[i] === 1 ? d : 1));
  site.add("Tile", [src, ints(site, "repeats", repeats)], {}, [...site.out]);
  return true;
}

export function legalizeExpand(options: LegalizeOptions) {
  return legalizePass("legalize-expand", ["Expand"], "Expand made Mul or Tile", expand, options);
}

// reduce-transpose-rank: a Transpose of rank above 4 over a static shape, for backends that
// take fewer dims (CoreML's at most 5, NNAPI's 4), as the same permutation of fewer dims: dims
// of size 1 dropped, and dims that stay next to each other in the same order merged into one.
// Reshape to those dims, Transpose, Reshape to the output's dims: the same elements in the same
// order (a Reshape moves no data), so the same numbers. Swin's window partition,
// [1, 8, 7, 8, 7, 96] by [0, 1, 3, 2, 4, 5], becomes [8, 7, 8, 672] by [0, 2, 1, 3]; the
// Reshapes either side then merge with the model's own (remove-no-ops).

import { attrInts } from "../ir/attributes.js";
import { ints, legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

/** Transposes of more dims than this are reduced. */
const MAX_RANK = 4;

function reduce(site: Site): boolean {
  const n = site.node;
  const x = n.inputs[0];
  const y = n.outputs[0];
  if (!x || !y || !site.has("Reshape")) return false;
  const shape = site.shape(x);
  const out = site.shape(y);
  if (!shape || !out || shape.length <= MAX_RANK) return false;
  const r = shape.length;
  const perm = attrInts(n, "perm") ?? Array.from({ length: r }, (_, i) => r - 1 - i);
  if (perm.length !== r) return false;
  const kept = Array.from({ length: r }, (_, i) => i).filter((i) => shape[i] !== 1);
  const pos = new Map(kept.map((i, k) => [i, k] as const));
  const order = perm.filter((i) => shape[i] !== 1).map((i) => pos.get(i)!);
  // groups of kept positions, in output order; each a run start..end of input positions
  const groups: [number, number][] = [];
  for (const p of order) {
    const last = groups[groups.length - 1];
    if (last && last[1] + 1 === p) last[1] = p;
    else groups.push([p, p]);
  }
  if (groups.length >= r) return false;
  const byInput = [...groups].sort((a, b) => a[0] - b[0]);
  const dims = byInput.map(([s, e]) => kept.slice(s, e + 1).reduce((a, i) => a * shape[i]!, 1));
  const newPerm = groups.map((g) => byInput.indexOf(g));
  const flat = site.add("Reshape", [x, ints(site, "shape", dims)]);
  const moved = newPerm.every((p, i) => p === i)
    ? flat
    : site.add("Transpose", [flat], { perm: newPerm });
  site.add("Reshape", [moved, ints(site, "shape", out)], {}, [y]);
  return true;
}

export function reduceTransposeRank(options: LegalizeOptions) {
  return legalizePass(
    "reduce-transpose-rank",
    ["Transpose"],
    `Transpose of more than ${MAX_RANK} dims made fewer`,
    reduce,
    options,
    () => true,
  );
}

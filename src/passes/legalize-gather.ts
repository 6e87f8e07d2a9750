// legalize-gather: Gather, for a target without it (CoreML's ML Program), as Slice or GatherND.
// A constant index that picks one element along the axis is a Slice of width 1 and a Squeeze
// of that axis (or a Reshape to the output's static shape); a constant run of ascending indices
// a, a+1, …, b is one Slice; any other index (a run-time one: token ids into an embedding) is a
// GatherND over the indices with a last axis of 1 added, on the data with the gathered axis
// moved first (a Transpose, and one after to put the index dims back where Gather puts them).
// Each form picks the same elements, so the numbers are the same. Negative constant indices are
// counted from the end first; GatherND takes negative run-time indices as Gather does.

import { DataType } from "../ir/types.js";
import { attrInt } from "../ir/attributes.js";
import {
  ints,
  legalizePass,
  normAxis,
  slice,
  squeezeLike,
  type LegalizeOptions,
  type Site,
} from "./legalize-kit.js";

function gather(site: Site): boolean {
  const n = site.node;
  const [data, idx] = n.inputs;
  if (!data || !idx || !n.outputs[0]) return false;
  const dshape = site.type(data);
  const rank = dshape?.kind === "tensor" ? dshape.shape?.length : undefined;
  if (rank === undefined) return false;
  const axis = normAxis(attrInt(n, "axis", 0), rank);
  if (axis === undefined) return false;
  const dims = site.shape(data);
  const c = site.value(idx);
  if (c && dims) {
    const d = dims[axis]!;
    const ks = c.values.map((k) => (k < 0 ? k + d : k));
    if (ks.every((k) => k >= 0 && k < d) && ks.length > 0) {
      const run = ks.every((k, i) => k === ks[0]! + i);
      if (c.dims.length === 0) {
        // one element: Slice of width 1, then the axis dropped
        if (site.has("Slice") && (site.has("Squeeze") || site.has("Reshape"))) {
          const s = slice(site, data, [ks[0]!], [ks[0]! + 1], [axis]);
          if (!s) return false;
          if (squeezeLike(site, "Squeeze", s, [axis], [...site.out])) return true;
          const out = site.shape(n.outputs[0]);
          if (!out) return false;
          site.add("Reshape", [s, ints(site, "shape", out)], {}, [...site.out]);
          return true;
        }
      } else if (c.dims.length === 1 && run && site.has("Slice")) {
        return !!slice(site, data, [ks[0]!], [ks[0]! + ks.length], [axis], undefined, [
          ...site.out,
        ]);
      }
    }
  }
  return gatherND(site, data, idx, rank, axis);
}

/** Gather as GatherND on the data with `axis` first. */
function gatherND(site: Site, data: string, idx: string, rank: number, axis: number): boolean {
  if (!site.has("GatherND") || site.opset < 11) return false;
  const it = site.type(idx);
  const q = it?.kind === "tensor" ? it.shape?.length : undefined;
  if (q === undefined) return false;
  if (axis !== 0 && !site.has("Transpose")) return false;
  const c = site.value(idx);
  let indices: string | undefined;
  // GatherND's indices are int64 only (Gather's may be int32).
  if (c) indices = site.constant("indices", DataType.INT64, [...c.dims, 1], c.values.map(BigInt));
  else if (site.elem(idx) === DataType.INT64) indices = squeezeLike(site, "Unsqueeze", idx, [q]);
  else if (site.has("Cast"))
    indices = squeezeLike(site, "Unsqueeze", site.add("Cast", [idx], { to: DataType.INT64 }), [q]);
  if (!indices) return false;
  if (axis === 0) {
    site.add("GatherND", [data, indices], {}, [...site.out]);
    return true;
  }
  const perm = [axis, ...Array.from({ length: rank }, (_, i) => i).filter((i) => i !== axis)];
  const moved = site.add("Transpose", [data], { perm });
  const picked = site.add("GatherND", [moved, indices]);
  // picked: [idx dims (q), the other data dims (rank - 1)]; Gather puts the idx dims at `axis`.
  const back = [
    ...Array.from({ length: axis }, (_, i) => q + i),
    ...Array.from({ length: q }, (_, i) => i),
    ...Array.from({ length: rank - 1 - axis }, (_, i) => q + axis + i),
  ];
  site.add("Transpose", [picked], { perm: back }, [...site.out]);
  return true;
}

export function legalizeGather(options: LegalizeOptions) {
  return legalizePass(
    "legalize-gather",
    ["Gather"],
    "Gather made Slice or GatherND",
    gather,
    options,
  );
}

// legalize-gathernd: GatherND with constant indices, for a target without it (NNAPI), as a
// Gather on the data with its first k dims flattened into one (k the indices' last dim): each
// index tuple (i1, …, ik) becomes the one flat index i1·s1 + … + ik, s the strides of those dims,
// negative entries counted from the end first. The same elements, so the same numbers. Needs a
// static data shape and batch_dims 0.

import { attrInt } from "../ir/attributes.js";
import { DataType } from "../ir/types.js";
import { ints, legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

function gatherND(site: Site): boolean {
  const n = site.node;
  const [data, idx] = n.inputs;
  if (!data || !idx || attrInt(n, "batch_dims", 0) !== 0) return false;
  if (!site.has("Gather") || !site.has("Reshape")) return false;
  const shape = site.shape(data);
  const c = site.value(idx);
  if (!shape || !c || c.dims.length < 1) return false;
  const k = c.dims[c.dims.length - 1]!;
  if (k < 1 || k > shape.length) return false;
  const lead = shape.slice(0, k);
  const strides = lead.map((_, i) => lead.slice(i + 1).reduce((a, d) => a * d, 1));
  const flat: number[] = [];
  for (let p = 0; p < c.values.length; p += k) {
    let f = 0;
    for (let j = 0; j < k; j++) {
      const d = lead[j]!;
      const v = c.values[p + j]!;
      const i = v < 0 ? v + d : v;
      if (i < 0 || i >= d) return false; // GatherND itself refuses
      f += i * strides[j]!;
    }
    flat.push(f);
  }
  const rows = lead.reduce((a, d) => a * d, 1);
  const flatData = site.add("Reshape", [data, ints(site, "shape", [rows, ...shape.slice(k)])]);
  const where = site.constant(
    "flat_indices",
    DataType.INT64,
    c.dims.slice(0, -1),
    flat.map(BigInt),
  );
  site.add("Gather", [flatData, where], { axis: 0 }, [...site.out]);
  return true;
}

export function legalizeGatherND(options: LegalizeOptions) {
  return legalizePass(
    "legalize-gathernd",
    ["GatherND"],
    "GatherND with constant indices made Gather",
    gatherND,
    options,
  );
}

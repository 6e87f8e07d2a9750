// remove-no-ops: nodes that move no data, and Reshapes said in more steps or less plainly than
// the static shapes allow, in the main graph (`simplify`, and so `lower`). A Cast to the type its
// input has, a Reshape or Expand to the shape its input has, a Pad by zeros: an Identity (which
// eliminate-identity then removes). A Reshape whose output's dims are all static gets them as
// its shape, its 0 and -1 made explicit (a backend that takes a constant shape with no 0 and at
// most one -1 then takes it); a Reshape of a Reshape reshapes the first one's input (the first
// is then dead unless something else reads it). A Concat drops its inputs that are empty along
// its axis; a Split drops its outputs empty along its axis (each then an empty constant, dead
// unless read: onnxruntime-web's WebGPU kernels take no zero-sized tensor). Each gives the same
// values as before.

import { attrInt } from "../ir/attributes.js";
import { ints, legalizePass, type Site } from "./legalize-kit.js";

const same = (a: number[] | undefined, b: number[] | undefined) =>
  !!a && !!b && a.length === b.length && a.every((d, i) => d === b[i]);

/** A Split by constant sizes, some 0: the others split, each empty part a constant. */
function splitDroppingEmpty(site: Site): boolean {
  const n = site.node;
  const [x, sizes] = n.inputs;
  const shape = x ? site.shape(x) : undefined;
  const dt = x ? site.elem(x) : undefined;
  const split = site.opset >= 13 && sizes ? site.value(sizes)?.values.map(Number) : undefined;
  if (!x || !shape || dt === undefined || !split || split.length !== n.outputs.length) return false;
  if (!split.includes(0) || split.every((k) => k === 0)) return false;
  const axis = attrInt(n, "axis") ?? 0;
  const a = axis < 0 ? axis + shape.length : axis;
  const kept = n.outputs.filter((_, i) => split[i] !== 0);
  const keptSizes = split.filter((k) => k !== 0);
  if (kept.length === 1) site.add("Identity", [x], {}, [kept[0]!]);
  else site.add("Split", [x, ints(site, "split", keptSizes)], { axis }, kept);
  n.outputs.forEach((o, i) => {
    if (split[i] !== 0 || !o) return;
    const dims = shape.map((d, k) => (k === a ? 0 : d));
    site.add("Identity", [site.constant("empty", dt, dims, [])], {}, [o]);
  });
  return true;
}

function noOp(site: Site): boolean {
  const n = site.node;
  if (n.opType === "Split") return splitDroppingEmpty(site);
  const x = n.inputs[0];
  const y = n.outputs[0];
  if (!x || !y || n.outputs.length !== 1) return false;
  const identity = () => {
    site.add("Identity", [x], {}, [y]);
    return true;
  };
  switch (n.opType) {
    case "Concat": {
      // inputs empty along the axis add nothing (a rotary embedding's "keep" part when every
      // dim rotates); a backend's checker may count such a value as not of fixed size
      const shape = site.shape(y);
      const axis = attrInt(n, "axis");
      if (!shape || axis === undefined) return false;
      const a = axis < 0 ? axis + shape.length : axis;
      const kept = n.inputs.filter((i) => !(i && site.shape(i)?.[a] === 0));
      if (kept.length === n.inputs.length || kept.length === 0) return false;
      if (kept.length === 1) site.add("Identity", [kept[0]!], {}, [y]);
      else site.add("Concat", kept, { axis }, [y]);
      return true;
    }
    case "Cast": {
      const to = attrInt(n, "to");
      return to !== undefined && site.elem(x) === to && identity();
    }
    case "Expand":
      return same(site.shape(x), site.shape(y)) && identity();
    case "Pad": {
      const pads = site.opset < 11 ? undefined : n.inputs[1] && site.value(n.inputs[1])?.values;
      return !!pads && pads.every((p) => p === 0) && !!site.shape(x) && identity();
    }
    case "Reshape": {
      const out = site.shape(y);
      if (!out || out.includes(0) || !n.inputs[1]) return false;
      if (same(site.shape(x), out)) return identity();
      const inner = site.producer(x);
      const innerIn =
        inner?.opType === "Reshape" && (inner.domain ?? "") === "" ? inner.inputs[0] : undefined;
      const given = site.value(n.inputs[1])?.values;
      const explicit = same(given, out);
      if (!innerIn && explicit) return false;
      site.add("Reshape", [innerIn ?? x, explicit ? n.inputs[1] : ints(site, "shape", out)], {}, [
        y,
      ]);
      return true;
    }
  }
  return false;
}

export function removeNoOps() {
  return legalizePass(
    "remove-no-ops",
    ["Cast", "Concat", "Expand", "Pad", "Reshape", "Split"],
    "no-op or chained Cast/Concat/Expand/Pad/Reshape/Split made plain",
    noOp,
    { has: () => true },
    () => true,
  );
}

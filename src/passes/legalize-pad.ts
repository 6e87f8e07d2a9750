// legalize-pad: Pad, for a target without it (CoreML's ML Program) or without its mode (NNAPI
// takes constant mode only), as Slice and Concat over the input's static shape. Axis by axis:
// a negative pad crops (a Slice); constant mode puts constant blocks of the pad's width on either
// side (a Concat); reflect puts the mirrored rows beside the edge (a Slice with step -1 on each
// side); edge repeats the first and the last row (a width-1 Slice, Concat'ed as often as the pad
// is wide). Pads all 0 make an Identity (which simplify removes). Every form places the same
// values where Pad does, so the numbers are the same. Needs constant pads (and value) and a
// static input shape; wrap mode is left.

import { attrInts, attrString } from "../ir/attributes.js";
import { DataType } from "../ir/types.js";
import { legalizePass, normAxis, slice, type LegalizeOptions, type Site } from "./legalize-kit.js";

function pad(site: Site): boolean {
  const n = site.node;
  const x = n.inputs[0];
  if (!x) return false;
  const shape = site.shape(x);
  const dt = site.elem(x);
  if (!shape || dt === undefined) return false;
  const r = shape.length;
  const mode = attrString(n, "mode", "constant");
  if (mode !== "constant" && mode !== "reflect" && mode !== "edge") return false;
  // Where the target has Pad, only the modes it lacks are rewritten (NNAPI: constant only).
  if (site.has("Pad") && mode === "constant") return false;
  let pads: number[] | undefined;
  let value = 0;
  let axes = Array.from({ length: r }, (_, i) => i);
  if (site.opset < 11) {
    pads = attrInts(n, "pads");
    const v = n.attributes.find((a) => a.name === "value");
    if (v?.type === "FLOAT" && v.value !== undefined) value = v.value;
  } else {
    pads = n.inputs[1] ? site.value(n.inputs[1])?.values : undefined;
    if (n.inputs[2]) {
      const v = site.value(n.inputs[2]);
      if (!v || v.values.length !== 1) return false;
      value = v.values[0]!;
    }
    if (n.inputs[3]) {
      const a = site.value(n.inputs[3]);
      if (!a) return false;
      const norm = a.values.map((k) => normAxis(k, r));
      if (norm.some((k) => k === undefined)) return false;
      axes = norm as number[];
    }
  }
  if (!pads || pads.length !== 2 * axes.length) return false;
  const begin = new Array<number>(r).fill(0);
  const end = new Array<number>(r).fill(0);
  axes.forEach((a, i) => {
    begin[a] = pads![i]!;
    end[a] = pads![i + axes.length]!;
  });
  if (begin.every((p) => p === 0) && end.every((p) => p === 0)) {
    if (!site.has("Identity")) return false;
    site.add("Identity", [x], {}, [...site.out]);
    return true;
  }
  // What each axis needs, checked before anything is made.
  const dims = [...shape];
  for (let a = 0; a < r; a++) {
    const [b, e] = [begin[a]!, end[a]!];
    if ((b < 0 || e < 0) && !site.has("Slice")) return false;
    const d = dims[a]! + Math.min(b, 0) + Math.min(e, 0);
    if (d < 0) return false;
    if (b > 0 || e > 0) {
      if (!site.has("Concat")) return false;
      if (mode !== "constant" && (!site.has("Slice") || site.opset < 10 || d === 0)) return false;
      if (mode === "reflect" && (b > d - 1 || e > d - 1)) return false;
    }
    dims[a] = d + Math.max(b, 0) + Math.max(e, 0);
  }
  const last = lastChanged(begin, end);
  let cur = x;
  const now = [...shape];
  for (let a = 0; a < r; a++) {
    const [b, e] = [begin[a]!, end[a]!];
    if (b === 0 && e === 0) continue;
    const final = a === last ? [...site.out] : undefined;
    if (b < 0 || e < 0) {
      const grows = b > 0 || e > 0;
      cur = slice(
        site,
        cur,
        [Math.max(-b, 0)],
        [now[a]! - Math.max(-e, 0)],
        [a],
        undefined,
        grows ? undefined : final,
      )!;
      now[a] = now[a]! + Math.min(b, 0) + Math.min(e, 0);
      if (!grows) continue;
    }
    const d = now[a]!;
    const parts: string[] = [];
    const side = (w: number, atStart: boolean) => {
      if (w <= 0) return;
      if (mode === "constant") {
        const blockDims = now.map((k, i) => (i === a ? w : k));
        const count = blockDims.reduce((p, k) => p * k, 1);
        const v =
          dt === DataType.INT64 || dt === DataType.UINT64
            ? BigInt(Math.trunc(value))
            : dt === DataType.BOOL
              ? value !== 0
              : value;
        parts.push(site.constant("pad_block", dt, blockDims, new Array(count).fill(v)));
      } else if (mode === "reflect") {
        // rows w, w-1, …, 1 before; d-2, d-3, …, d-1-w after (the edge row not repeated)
        const [s, e2] = atStart ? [w, 0] : [d - 2, d - 2 - w];
        parts.push(slice(site, cur, [s], [e2 < 0 ? -(d + 1) : e2], [a], [-1])!);
      } else {
        const row = atStart
          ? slice(site, cur, [0], [1], [a])!
          : slice(site, cur, [d - 1], [d], [a])!;
        for (let k = 0; k < w; k++) parts.push(row);
      }
    };
    side(Math.max(b, 0), true);
    parts.push(cur);
    side(Math.max(e, 0), false);
    cur = site.add("Concat", parts, { axis: a }, final);
    now[a] = d + Math.max(b, 0) + Math.max(e, 0);
  }
  return true;
}

/** The last axis that changes (where the result gets the Pad's own output name). */
function lastChanged(begin: number[], end: number[]): number {
  let k = -1;
  begin.forEach((b, i) => {
    if (b !== 0 || end[i] !== 0) k = i;
  });
  return k;
}

export function legalizePad(options: LegalizeOptions) {
  return legalizePass(
    "legalize-pad",
    ["Pad"],
    "Pad made Slice and Concat",
    pad,
    options,
    (n) =>
      // a target with Pad in constant mode only (NNAPI) gets the other modes rewritten
      !options.has("Pad") || attrString(n, "mode", "constant") !== "constant",
  );
}

// remove-no-ops: nodes that move no data, and Reshapes said in more steps or less plainly than
// the static shapes allow, in the main graph (`simplify`, and so `lower`). A Cast to the type its
// input has, a Reshape or Expand to the shape its input has (an Expand to the Shape of its own
// input, or to ones no longer than its rank, whatever the dims), a Pad by zeros, a Concat of one
// input: an Identity (which eliminate-identity then removes). A Reshape whose output's dims are
// all static gets them as its shape, its 0 and -1 made explicit (a backend that takes a constant
// shape with no 0 and at most one -1 then takes it); a Reshape of a chain of Reshapes reshapes
// the chain's input wherever its own shape does not read the dims it is given (a constant with no
// 0, or one 0 that becomes a -1 where it has no -1); an Unsqueeze of a chain of Unsqueezes is one
// Unsqueeze of the chain's input, the axes composed (each earlier one is then dead unless
// something else reads it). A Concat drops its inputs that are empty along its axis; a Split drops
// its outputs empty along its axis (each then an empty constant, dead unless read: onnxruntime-web's
// WebGPU kernels take no zero-sized tensor). An arithmetic node with a constant that leaves
// every value as it is, bit for bit: x · 1 and 1 · x, x / 1, x − (+0), x + (−0) and (−0) + x on
// floats (x + (+0) is left: it makes −0 +0), x + 0 and x − 0 on integers, where the constant's
// broadcast changes no dim (the output's static dims those of x, or the constant of dims all 1
// and of no higher rank than x): an Identity of x. Only a one-element constant: a tensor of ones
// is a weight (an untrained RMSNorm's scale), and without it onnxruntime no longer fuses the norm,
// computing it otherwise (on an int4 Llama, 6e-4 apart after its quantized MatMuls). Each gives
// the same values as before.

import { attrInt, attrInts } from "../ir/attributes.js";
import type { Node } from "../ir/types.js";
import { isIntegerType } from "../check/consts.js";
import { ints, legalizePass, squeezeLike, type Site } from "./legalize-kit.js";

const same = (a: number[] | undefined, b: number[] | undefined) =>
  !!a && !!b && a.length === b.length && a.every((d, i) => d === b[i]);

const plain = (n: Node | undefined, op: string): n is Node =>
  !!n && n.opType === op && (n.domain ?? "") === "";

/** The first input of the chain of `op` nodes above x (x itself when none computes it). */
function chainInput(site: Site, x: string, op: string): string {
  const seen = new Set<string>();
  for (
    let p = site.producer(x);
    plain(p, op) && p.inputs[0] && !seen.has(x);
    p = site.producer(x)
  ) {
    seen.add(x);
    x = p.inputs[0];
  }
  return x;
}

/** An Unsqueeze's axes (the attribute before opset 13, the constant input from 13 on). */
function unsqueezeAxes(site: Site, n: Node): number[] | undefined {
  if (site.opset < 13) return attrInts(n, "axes");
  return n.inputs[1] ? site.value(n.inputs[1])?.values : undefined;
}

/**
 * The axes of one Unsqueeze of x that makes what Unsqueeze(Unsqueeze(x, inner), outer) makes
 * (undefined where an axis is out of range or the rank, needed for a negative axis, is unknown).
 */
function composeUnsqueeze(
  rank: number | undefined,
  inner: number[],
  outer: number[],
): number[] | undefined {
  const norm = (axes: number[], r: number | undefined) => {
    if (axes.some((a) => a < 0) && r === undefined) return undefined;
    const out = axes.map((a) => (a < 0 ? a + r! : a));
    return out.every((a) => a >= 0 && (r === undefined || a < r)) &&
      new Set(out).size === out.length
      ? out
      : undefined;
  };
  const mid = rank === undefined ? undefined : rank + inner.length;
  const a1 = norm(inner, mid);
  const a2 = norm(outer, mid === undefined ? undefined : mid + outer.length);
  if (!a1 || !a2) return undefined;
  // the dims of the middle value, in order, land on the final positions the outer axes leave
  const free: number[] = [];
  const taken = new Set(a2);
  for (let p = 0; free.length <= Math.max(...a1); p++) if (!taken.has(p)) free.push(p);
  return [...a2, ...a1.map((a) => free[a]!)].sort((a, b) => a - b);
}

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

/** Whether every value of a constant leaves the other operand of an arithmetic op as it is. */
function neutral(op: string, integer: boolean, first: boolean, values: number[]): boolean {
  const all = (f: (v: number) => boolean) => values.length > 0 && values.every(f);
  switch (op) {
    case "Mul":
      return all((v) => v === 1);
    case "Div":
      return !first && all((v) => v === 1);
    case "Sub":
      // x − (+0) is x for −0 too (−0 − +0 = −0); x − (−0) is not
      return !first && all((v) => (integer ? v === 0 : Object.is(v, 0)));
    case "Add":
      // x + (−0) is x for +0 and −0; x + (+0) makes −0 +0
      return all((v) => (integer ? v === 0 : Object.is(v, -0)));
  }
  return false;
}

/** Add, Sub, Mul or Div of x by a neutral one-element constant whose broadcast changes no dim: x. */
function arithmeticNoOp(site: Site): boolean {
  const n = site.node;
  const y = n.outputs[0];
  if (!y || n.inputs.length !== 2 || n.outputs.length !== 1) return false;
  for (const k of [1, 0]) {
    const [c, x] = [n.inputs[k], n.inputs[1 - k]];
    const v = c ? site.value(c) : undefined;
    if (!c || !x || !v || v.values.length !== 1) continue;
    if (!neutral(n.opType, isIntegerType(v.elemType), k === 0, v.values)) continue;
    const t = site.type(x);
    const rank = t?.kind === "tensor" && t.shape ? t.shape.length : undefined;
    const outDims = site.shape(y);
    const kept =
      (!!outDims && same(site.shape(x), outDims)) ||
      (rank !== undefined && v.dims.length <= rank && v.dims.every((d) => d === 1));
    if (!kept) continue;
    site.add("Identity", [x], {}, [y]);
    return true;
  }
  return false;
}

function noOp(site: Site): boolean {
  const n = site.node;
  if (n.opType === "Split") return splitDroppingEmpty(site);
  if (["Add", "Sub", "Mul", "Div"].includes(n.opType)) return arithmeticNoOp(site);
  const x = n.inputs[0];
  const y = n.outputs[0];
  if (!x || !y || n.outputs.length !== 1) return false;
  const identity = () => {
    site.add("Identity", [x], {}, [y]);
    return true;
  };
  switch (n.opType) {
    case "Concat": {
      if (n.inputs.length === 1) return identity();
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
    case "Expand": {
      if (same(site.shape(x), site.shape(y))) return identity();
      const to = n.inputs[1];
      if (!to) return false;
      const shaper = site.producer(to);
      // Expand(x, Shape(x)): x's own dims, whatever they are
      if (plain(shaper, "Shape") && shaper.inputs[0] === x && shaper.attributes.length === 0)
        return identity();
      const t = site.type(x);
      const ones = site.value(to)?.values;
      return (
        !!ones &&
        t?.kind === "tensor" &&
        !!t.shape &&
        ones.length <= t.shape.length &&
        ones.every((d) => d === 1) &&
        identity()
      );
    }
    case "Pad": {
      const pads = site.opset < 11 ? undefined : n.inputs[1] && site.value(n.inputs[1])?.values;
      return !!pads && pads.every((p) => p === 0) && !!site.shape(x) && identity();
    }
    case "Reshape": {
      if (!n.inputs[1]) return false;
      const out = site.shape(y);
      const start = chainInput(site, x, "Reshape");
      const innerIn = start === x ? undefined : start;
      const given = site.value(n.inputs[1])?.values;
      if (!out || out.includes(0)) {
        // dims not all known: the chain is skipped where the shape does not copy the dims it is
        // given (a 0 without allowzero); one 0 beside no -1 is the one dim the count leaves
        if (!innerIn || !given || (given.includes(0) && attrInt(n, "allowzero", 0) === 1))
          return false;
        const zeros = given.filter((d) => d === 0).length;
        if (zeros === 0) {
          site.add("Reshape", [innerIn, n.inputs[1]], {}, [y]);
          return true;
        }
        if (zeros > 1 || given.includes(-1)) return false;
        const shape = given.map((d) => (d === 0 ? -1 : d));
        site.add("Reshape", [innerIn, ints(site, "shape", shape)], {}, [y]);
        return true;
      }
      if (same(site.shape(x), out)) return identity();
      const explicit = same(given, out);
      if (!innerIn && explicit) return false;
      site.add("Reshape", [innerIn ?? x, explicit ? n.inputs[1] : ints(site, "shape", out)], {}, [
        y,
      ]);
      return true;
    }
    case "Unsqueeze": {
      // up the chain of Unsqueezes, composing the axes of each with those after it
      let axes = unsqueezeAxes(site, n);
      let from = x;
      const seen = new Set<Node>();
      for (
        let p = site.producer(from);
        plain(p, "Unsqueeze") && !seen.has(p);
        p = site.producer(from)
      ) {
        seen.add(p);
        const inner = unsqueezeAxes(site, p);
        const t = p.inputs[0] ? site.type(p.inputs[0]) : undefined;
        const rank = t?.kind === "tensor" && t.shape ? t.shape.length : undefined;
        const merged = axes && inner && composeUnsqueeze(rank, inner, axes);
        if (!merged) break;
        [axes, from] = [merged, p.inputs[0]!];
      }
      return from !== x && !!squeezeLike(site, "Unsqueeze", from, axes!, [y]);
    }
  }
  return false;
}

export function removeNoOps() {
  return legalizePass(
    "remove-no-ops",
    [
      "Add",
      "Cast",
      "Concat",
      "Div",
      "Expand",
      "Mul",
      "Pad",
      "Reshape",
      "Split",
      "Sub",
      "Unsqueeze",
    ],
    "no-op or chained Add/Cast/Concat/Div/Expand/Mul/Pad/Reshape/Split/Sub/Unsqueeze made plain",
    noOp,
    { has: () => true },
    () => true,
  );
}

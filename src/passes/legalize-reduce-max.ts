// legalize-reduce-max: ReduceMax (ReduceMin) over static axes, for a target without it (NNAPI),
// as a tree of Max (Min) over Slices: along each reduced axis of n elements the first ⌈n/2⌉ and
// the last ⌈n/2⌉ are taken elementwise (they overlap by one when n is odd, which the maximum
// does not mind), halving the axis until one is left: 3·⌈log2 n⌉ nodes an axis, Squeeze at the
// end for keepdims = 0. Exact: a maximum is one of its inputs, whatever the order of comparison,
// so the result is ReduceMax's for every input free of NaN; a NaN reaches the output through Max
// (onnxruntime's Max propagates it, as the interpreter's ReduceMax does), where onnxruntime's
// ReduceMax skips it.

import { attrInt, attrInts } from "../ir/attributes.js";
import {
  legalizePass,
  normAxis,
  slice,
  squeezeLike,
  type LegalizeOptions,
  type Site,
} from "./legalize-kit.js";

/** The axes a Reduce* node reduces (normalized, sorted), or undefined when not constant. */
export function reducedAxes(site: Site, rank: number): number[] | undefined {
  const n = site.node;
  let axes: number[] | undefined;
  const input = n.inputs[1];
  if (input) {
    const v = site.value(input);
    if (!v) return undefined;
    axes = v.values;
  } else axes = attrInts(n, "axes");
  if (!axes || axes.length === 0) {
    // no axes: all of them, unless noop_with_empty_axes makes the node an Identity
    if (attrInt(n, "noop_with_empty_axes", 0) === 1) return undefined;
    axes = [...Array(rank).keys()];
  }
  const norm = axes.map((a) => normAxis(a, rank));
  if (norm.some((a) => a === undefined) || new Set(norm).size !== norm.length) return undefined;
  return (norm as number[]).sort((a, b) => a - b);
}

function reduceByTree(site: Site): boolean {
  const n = site.node;
  const x = n.inputs[0];
  const shape = x ? site.shape(x) : undefined;
  const op = n.opType === "ReduceMax" ? "Max" : "Min";
  if (!x || !shape || !site.has(op) || !site.has("Slice") || site.opset < 10) return false;
  const axes = reducedAxes(site, shape.length);
  if (!axes || axes.some((a) => shape[a] === 0)) return false;
  const keep = attrInt(n, "keepdims", 1) === 1;
  if (!keep && !site.has("Squeeze")) return false;
  // the halvings: (axis, length before)
  const steps: [number, number][] = [];
  for (const a of axes)
    for (let len = shape[a]!; len > 1; len = Math.ceil(len / 2)) steps.push([a, len]);
  if (!steps.length && keep) return false; // nothing to reduce: simplify's no-op removal
  let cur = x;
  steps.forEach(([a, len], k) => {
    const h = Math.ceil(len / 2);
    const lo = slice(site, cur, [0], [h], [a])!;
    const hi = slice(site, cur, [len - h], [len], [a])!;
    const last = k === steps.length - 1 && keep;
    cur = site.add(op, [lo, hi], {}, last ? [...site.out] : undefined);
  });
  if (!keep) return squeezeLike(site, "Squeeze", cur, axes, [...site.out]) !== undefined;
  return true;
}

export function legalizeReduceMax(options: LegalizeOptions) {
  return legalizePass(
    "legalize-reduce-max",
    ["ReduceMax", "ReduceMin"],
    "ReduceMax/ReduceMin made a tree of Max/Min over Slices",
    reduceByTree,
    options,
  );
}

// legalize-compare: the comparisons and logic a target lacks (CoreML and NNAPI have no Less,
// Greater, Equal or Not) computed as a float mask of 0 and 1, then cast to bool: the key and
// sequence-length masks of the attention bodies (a position t < a row's length, a raw mask ≠ 0).
// An integer x compared with a constant k of integers below 2^24 in magnitude: x cast to float
// keeps its order against k (rounding is monotone, and k − 1, k, k + 1 are floats), so
// Less(x, k) is Clip(k − x, 0, 1) in float, exactly 0 or 1 (an integer-valued difference ≥ 1
// rounds to ≥ 1, one ≤ 0 to ≤ 0); Greater swaps the sides, Equal is 1 − Clip(x − k) − Clip(k − x),
// LessOrEqual and GreaterOrEqual are 1 − Greater and 1 − Less, Not is 1 − m, And m1·m2, Or
// m1 + m2 − m1·m2. A chain of them is followed from its last node (the one whose result leaves
// the chain), so one Cast to bool ends it; a Where the target lacks is left to legalize-mask,
// which follows the same chain into its arithmetic. Comparisons of floats, or of two values
// neither of which is such a constant, are left.

import { INTEGER_TYPES } from "../ir/dtype.js";
import { DataType, type Node } from "../ir/types.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

const COMPARE = ["Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Equal"];
const LOGIC = ["Not", "And", "Or"];
/** The ops this pass (and legalize-mask, through maskOf) follows where the target lacks them. */
export const MASK_OPS: readonly string[] = [...COMPARE, ...LOGIC];
const EXACT = 2 ** 24;

/** What the arithmetic needs. */
const needs = (site: Site) => ["Cast", "Sub", "Clip", "Mul", "Add"].every((op) => site.has(op));

/** Clip(x, 0, 1) in the form the opset takes. */
function unit(site: Site, x: string, dt: number): string {
  if (site.opset < 11) return site.add("Clip", [x], { min: 0, max: 1 });
  return site.add("Clip", [
    x,
    site.constant("zero", dt, [], [0]),
    site.constant("one", dt, [], [1]),
  ]);
}

/** An integer value of type dt: a small-integer constant as a constant, else cast. */
function asFloat(site: Site, x: string, dt: number): string {
  const v = site.value(x);
  if (v) return site.constant("k", dt, v.dims, v.values);
  return site.add("Cast", [x], { to: dt });
}

/** Whether x is a constant of integers within ±(2^24 − 1). */
function smallConstant(site: Site, x: string): boolean {
  const v = site.value(x);
  return !!v && v.values.every((k) => Number.isInteger(k) && Math.abs(k) < EXACT);
}

/** [1 where a < b, else 0] in dt, for integers a, b one of which is a small constant. */
function less(site: Site, a: string, b: string, dt: number): string {
  return unit(site, site.add("Sub", [asFloat(site, b, dt), asFloat(site, a, dt)]), dt);
}

/** Whether a comparison's inputs are integers, one a small constant (the exact case). */
function comparable(site: Site, n: Node): boolean {
  const [a, b] = n.inputs;
  if (!a || !b) return false;
  const [ea, eb] = [site.elem(a), site.elem(b)];
  if (ea === undefined || ea !== eb || !INTEGER_TYPES.includes(ea)) return false;
  return smallConstant(site, a) || smallConstant(site, b);
}

/** Whether maskOf follows the producer of c (an op of the chain the target lacks, buildable). */
export function followed(site: Site, p: Node | undefined): p is Node {
  if (!p || ((p.domain ?? "") !== "" && p.domain !== "ai.onnx")) return false;
  if (!MASK_OPS.includes(p.opType) || site.has(p.opType)) return false;
  return !COMPARE.includes(p.opType) || (site.has("Clip") && comparable(site, p));
}

/**
 * The bool c as 0/1 values of type dt, following the comparisons and logic the target lacks
 * (which then go dead); any other bool is cast.
 */
export function maskOf(site: Site, c: string, dt: number, depth = 0): string {
  const p = site.producer(c);
  const one = () => site.constant("one", dt, [], [1]);
  const v = site.value(c);
  if (v) return site.constant("mask", dt, v.dims, v.values);
  if (depth < 16 && followed(site, p)) {
    const [a, b] = p.inputs as [string, string];
    const m = (x: string) => maskOf(site, x, dt, depth + 1);
    switch (p.opType) {
      case "Not":
        return site.add("Sub", [one(), m(a)]);
      case "And":
        return site.add("Mul", [m(a), m(b)]);
      case "Or": {
        const [ma, mb] = [m(a), m(b)];
        return site.add("Sub", [site.add("Add", [ma, mb]), site.add("Mul", [ma, mb])]);
      }
      case "Less":
        return less(site, a, b, dt);
      case "Greater":
        return less(site, b, a, dt);
      case "GreaterOrEqual":
        return site.add("Sub", [one(), less(site, a, b, dt)]);
      case "LessOrEqual":
        return site.add("Sub", [one(), less(site, b, a, dt)]);
      case "Equal": {
        const differ = site.add("Add", [less(site, a, b, dt), less(site, b, a, dt)]);
        return site.add("Sub", [one(), differ]);
      }
    }
  }
  return site.add("Cast", [c], { to: dt });
}

export function legalizeCompare(options: LegalizeOptions): Pass {
  return {
    name: "legalize-compare",
    run(model, ctx) {
      // Each chain is rewritten from its last node: one whose result some node reads that is
      // not itself followed (nor a Where the target lacks: legalize-mask takes that), or a graph
      // output.
      const g = model.graph;
      const readers = new Map<string, Node[]>();
      for (const n of g.nodes)
        for (const x of n.inputs) if (x) readers.set(x, [...(readers.get(x) ?? []), n]);
      const outputs = new Set(g.outputs.map((o) => o.name));
      const lacks = (n: Node) =>
        ((n.domain ?? "") === "" || n.domain === "ai.onnx") && !options.has(n.opType);
      const absorbs = (n: Node) =>
        lacks(n) && (MASK_OPS.includes(n.opType) || n.opType === "Where");
      const last = (n: Node) =>
        outputs.has(n.outputs[0]!) || (readers.get(n.outputs[0]!) ?? []).some((r) => !absorbs(r));
      const pass = legalizePass(
        "legalize-compare",
        MASK_OPS,
        "comparisons and logic made a float mask",
        (site) => {
          if (
            !needs(site) ||
            !followed(site, site.node) ||
            site.elem(site.node.outputs[0]!) !== DataType.BOOL
          )
            return false;
          // the chain's own values, in float, cast to bool once
          const m = maskOf(site, site.node.outputs[0]!, DataType.FLOAT);
          site.add("Cast", [m], { to: DataType.BOOL }, [...site.out]);
          return true;
        },
        options,
        (n) => !options.has(n.opType) && last(n),
      );
      return pass.run(model, ctx);
    },
  };
}

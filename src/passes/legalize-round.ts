// legalize-round: Round, for a target without it (NNAPI), where its input is clipped to at most
// 2^22 in magnitude, as (t + M) - M with M = 1.5 · 2^23 in float32. Exact there: t + M lies in
// [2^23, 2^24], where float32 holds exactly the integers, so the addition rounds t half to even
// (M is even) and the subtraction is exact. Only the sign of a zero differs (Round(-0.3) is -0,
// the sum +0), so the rewrite is taken only where nothing sees it: every use adds a constant with
// no -0 (x + 0 is +0 for either zero), or casts to an integer type, or adds or subtracts it to or
// from anything and casts the result to an integer type (y ± (±0) differs at most in its zero's
// sign, which the Cast loses).
//
// The clip is either the Round's input (a Clip with constant bounds), or the saturation after it,
// as QuantizeLinear's arithmetic writes it (Round, an Add of the zero point c, a Clip to [lo, hi]
// with integer bounds): there Round(v) + c clipped equals Round(Clip(v, lo - c, hi - c)) + c
// clipped (the bounds are integers and rounding is monotone), so the clip is moved before the
// Round (a Clip, or Max and Min for a zero point per axis), and the Round then rewritten.

import { attrInt } from "../ir/attributes.js";
import { GraphIndex } from "../ir/graph.js";
import { DataType, type Node } from "../ir/types.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

const F = DataType.FLOAT;
/** 1.5 · 2^23: (t + MAGIC) - MAGIC is t rounded half to even for |t| ≤ 2^22. */
export const MAGIC = 1.5 * 2 ** 23;
const LIMIT = 2 ** 22;
const INTEGERS: readonly number[] = [
  DataType.UINT8,
  DataType.INT8,
  DataType.UINT16,
  DataType.INT16,
  DataType.UINT32,
  DataType.INT32,
  DataType.UINT64,
  DataType.INT64,
];

/** A constant's values, float32 and finite. */
function floats(site: Site, x: string | undefined): number[] | undefined {
  const k = x ? site.value(x) : undefined;
  return k && k.elemType === F && k.values.every(Number.isFinite) ? k.values : undefined;
}

/** A Clip's constant scalar bounds (inputs from opset 11, attributes before). */
function clipBounds(site: Site, n: Node): [number, number] | undefined {
  if (n.opType !== "Clip" || (n.domain ?? "") !== "") return undefined;
  if (site.opset < 11) {
    const a = (name: string) => n.attributes.find((x) => x.name === name)?.value;
    const [lo, hi] = [a("min"), a("max")];
    return typeof lo === "number" && typeof hi === "number" ? [lo, hi] : undefined;
  }
  const [lo, hi] = [floats(site, n.inputs[1]), floats(site, n.inputs[2])];
  return lo?.length === 1 && hi?.length === 1 ? [lo[0]!, hi[0]!] : undefined;
}

export function legalizeRound(options: LegalizeOptions): Pass {
  return {
    name: "legalize-round",
    run(model, ctx) {
      const index = new GraphIndex(model.graph);
      const outputs = new Set(model.graph.outputs.map((v) => v.name));
      const uses = (x: string) => (outputs.has(x) ? undefined : index.usesOf(x));
      /** Every use casts to an integer type. */
      const castsOnly = (x: string) =>
        uses(x)?.every(
          (u) =>
            u.slot === 0 &&
            u.node.opType === "Cast" &&
            INTEGERS.includes(attrInt(u.node, "to") ?? 0),
        ) ?? false;
      /** The constant c every use adds (no -0, integers), when every use adds the same. */
      const addend = (site: Site, x: string): number[] | undefined => {
        const us = uses(x);
        let c: number[] | undefined;
        for (const u of us ?? []) {
          const n = u.node;
          if (n.opType !== "Add" || u.slot < 0) return undefined;
          const k = floats(site, n.inputs[1 - u.slot]);
          if (!k || k.some((v) => !Number.isInteger(v) || Object.is(v, -0))) return undefined;
          if (c && (c.length !== k.length || c.some((v, i) => v !== k[i]))) return undefined;
          c = k;
        }
        return us?.length ? c : undefined;
      };
      /** Every use adds or subtracts it (either side), each result cast to an integer type. */
      const summedThenCast = (x: string) => {
        const us = uses(x);
        return (
          !!us?.length &&
          us.every(
            (u) =>
              u.slot >= 0 &&
              (u.node.opType === "Add" || u.node.opType === "Sub") &&
              (u.node.domain ?? "") === "" &&
              castsOnly(u.node.outputs[0]!),
          )
        );
      };
      const round = (site: Site): boolean => {
        const v = site.node.inputs[0];
        if (!v || site.elem(v) !== F || !site.has("Add") || !site.has("Sub")) return false;
        const magic = (t: string) => {
          const m = site.constant("magic", F, [], [MAGIC]);
          site.add("Sub", [site.add("Add", [t, m]), m], {}, [...site.out]);
          return true;
        };
        const out = site.out[0]!;
        const blind = castsOnly(out) || addend(site, out) !== undefined || summedThenCast(out);
        // The input clipped already.
        const p = site.producer(v);
        const b = p && clipBounds(site, p);
        if (b && blind && Math.max(Math.abs(b[0]), Math.abs(b[1])) <= LIMIT) return magic(v);
        // The saturation after it: Round → Add c → Clip [lo, hi] (or Round → Clip → integer Cast).
        const c = addend(site, out);
        const sums = c ? index.usesOf(out).map((u) => u.node.outputs[0]!) : [out];
        let lo = Infinity;
        let hi = -Infinity;
        for (const s of sums)
          for (const u of uses(s) ?? [undefined]) {
            const bounds = u && u.slot === 0 ? clipBounds(site, u.node) : undefined;
            if (!bounds || !bounds.every(Number.isInteger)) return false;
            if (!c && !castsOnly(u!.node.outputs[0]!)) return false;
            [lo, hi] = [Math.min(lo, bounds[0]), Math.max(hi, bounds[1])];
          }
        const shift = c ?? [0];
        const los = shift.map((z) => lo - z);
        const his = shift.map((z) => hi - z);
        if ([...los, ...his].some((x) => Math.abs(x) > LIMIT)) return false;
        let t: string;
        if (shift.length === 1 && site.has("Clip") && site.opset >= 11)
          t = site.add("Clip", [
            v,
            site.constant("lo", F, [], los),
            site.constant("hi", F, [], his),
          ]);
        else if (shift.length === 1 && site.has("Clip"))
          t = site.add("Clip", [v], { min: los[0]!, max: his[0]! });
        else {
          // Per axis: the bounds broadcast as the zero point does, and must not widen v.
          const dims = c
            ? site.shape(index.usesOf(out)[0]!.node.inputs.find((x) => x !== out)!)
            : [];
          const vDims = site.shape(v);
          if (!dims || !vDims || !site.has("Max") || !site.has("Min")) return false;
          if (dims.length > vDims.length) return false;
          if (dims.some((d, i) => d !== 1 && d !== vDims[vDims.length - dims.length + i]))
            return false;
          const m = site.add("Max", [v, site.constant("lo", F, dims, los)]);
          t = site.add("Min", [m, site.constant("hi", F, dims, his)]);
        }
        return magic(t);
      };
      return legalizePass(
        "legalize-round",
        ["Round"],
        "Round made Add and Sub",
        round,
        options,
      ).run(model, ctx);
    },
  };
}

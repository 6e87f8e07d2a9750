// Per-operator type and shape rules (ai.onnx), one file per op family. Each rule reads the
// node's input types, known constant inputs and attributes, fills in output types (and
// constants, for the ops that compute shapes), and reports static impossibilities (axis out of
// range, shapes that cannot broadcast) as problems naming the reason.

import { freshActive, mintFresh } from "../fresh-dims.js";
import { attentionRules } from "./attention.js";
import { castRules } from "./cast.js";
import type { Rule } from "./common.js";
import { contribRules, simplifiedLayerNorm } from "./contrib.js";
import { controlRules } from "./control.js";
import { convRules } from "./conv.js";
import { elementwiseRules } from "./elementwise.js";
import { generatorRules } from "./generator.js";
import { miscRules } from "./misc.js";
import { geometryRules } from "./geometry.js";
import { nnRules } from "./nn.js";
import { reduceRules } from "./reduce.js";
import { shapeRules } from "./shape.js";
import { sliceRules } from "./slice.js";

export type { Rule, RuleCtx } from "./common.js";

const FAMILIES: Readonly<Record<string, Rule>>[] = [
  elementwiseRules,
  castRules,
  generatorRules,
  shapeRules,
  sliceRules,
  reduceRules,
  nnRules,
  controlRules,
  attentionRules,
  geometryRules,
  convRules,
  miscRules,
  // onnxruntime's own registration in the ONNX domain (no ai.onnx op has this name)
  { SimplifiedLayerNormalization: simplifiedLayerNorm },
];

/** A rule that also names the dimensions it leaves unknown, when that is asked for. */
function withFreshDims(rule: Rule): Rule {
  return (c) => {
    rule(c);
    if (freshActive()) mintFresh(c);
  };
}

/** ai.onnx op type → its rule (each op in one family only). */
export const RULES: ReadonlyMap<string, Rule> = (() => {
  const all = new Map<string, Rule>();
  for (const family of FAMILIES)
    for (const [op, rule] of Object.entries(family)) {
      if (all.has(op)) throw new Error(`check rules: ${op} has a rule in two families`);
      all.set(op, withFreshDims(rule));
    }
  return all;
})();

/** onnxruntime's com.microsoft ops: op type → rule. */
const CONTRIB: ReadonlyMap<string, Rule> = new Map(
  Object.entries(contribRules).map(([op, rule]) => [op, withFreshDims(rule)]),
);

/** The rule of an op of a domain ("" is ai.onnx), if the checker has one. */
export function ruleFor(domain: string, op: string): Rule | undefined {
  if (domain === "") return RULES.get(op);
  if (domain === "com.microsoft") return CONTRIB.get(op);
  return undefined;
}

/** The ai.onnx ops whose outputs the checker infers from its own rules. */
export function hasRule(op: string): boolean {
  return RULES.has(op);
}

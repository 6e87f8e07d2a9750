// The deployed corpus (test/data/deployed, made by `npm run corpus:deployed`): its models with
// their inputs and onnxruntime's two references (all graph optimizations on: test_data_set_0;
// off: ort_disable_all/), and the rule that judges a run against them. Shared by the tests
// (test/interp/deployed.test.ts, test/corpus/deployed.test.ts) and the report
// (scripts/corpus/deployed-report.ts).
//
// The rule: each float output is compared with both references and the nearer one counts. It
// passes when its norm-wise error is within CORPUS_TOLERANCE (1e-4), or within onnxruntime's own
// spread, the largest difference between its two modes on that output (a quantized network moves
// by a quantum when onnxruntime fuses its QDQ pairs: recipe.json records it). Integer outputs must
// equal one reference. float16 models are judged by the float16 rule (docs/semantics.md, "float16
// models"): against a float64 reference rounded to float16 at each op boundary.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { floatErrors } from "../../src/interp/backend-test.js";
import { decodeTensorProto } from "../../src/interp/value-proto.js";
import type { RTensor, RValue } from "../../src/interp/types.js";
import { toFloat64 } from "../../src/interp/tensor.js";
import { loadCorpusModel, type CorpusModel } from "../convert-corpus.js";
import { REPO_ROOT } from "./python.js";

export const DEPLOYED_DIR = join(REPO_ROOT, "test", "data", "deployed");

/** The norm-wise error a float output may have against the nearer reference. */
export const DEPLOYED_NORM_TOLERANCE = 1e-4;

export interface Recipe {
  name: string;
  tool: string;
  opsets: Record<string, number>;
  ops: Record<string, number>;
  /** Per output: onnxruntime with and without graph optimizations. */
  ort_optimization_spread: Record<string, { max_abs: number; norm_rel: number }>;
}

export interface DeployedModel extends CorpusModel {
  recipe: Recipe;
  /** onnxruntime's outputs without graph optimizations, by output name. */
  plain: Record<string, RTensor>;
}

/** The corpus's model names (folders with a model and its data), sorted. */
export function deployedNames(root = DEPLOYED_DIR): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) => existsSync(join(root, d, "recipe.json")))
    .sort();
}

export function loadDeployed(name: string, root = DEPLOYED_DIR): DeployedModel {
  const dir = join(root, name);
  const m = loadCorpusModel(dir);
  if (!m) throw new Error(`${dir}: no test data`);
  const recipe = JSON.parse(readFileSync(join(dir, "recipe.json"), "utf8")) as Recipe;
  const plain: Record<string, RTensor> = {};
  const plainDir = join(dir, "ort_disable_all");
  if (existsSync(plainDir))
    m.model.graph.outputs.forEach((o, i) => {
      const f = join(plainDir, `output_${i}.pb`);
      if (existsSync(f)) plain[o.name] = decodeTensorProto(readFileSync(f)).tensor;
    });
  return { ...m, name, recipe, plain };
}

export interface Verdict {
  ok: boolean;
  /** The worst output's norm-wise error against its nearer reference. */
  worstNorm: number;
  /** One line: why it failed, or how it passed. */
  detail: string;
}

function isFloat(t: RTensor): boolean {
  return floatErrors(t, t) !== undefined;
}

/** Judges outputs (by name) against the model's references and onnxruntime's spread. */
export function judgeDeployed(m: DeployedModel, got: Record<string, RValue>): Verdict {
  const refs = m.sets[0]!.outputs as Record<string, RTensor>;
  let worstNorm = 0;
  const notes: string[] = [];
  for (const o of m.model.graph.outputs) {
    const a = got[o.name] as RTensor | undefined;
    if (!a || !("dtype" in a))
      return { ok: false, worstNorm: Infinity, detail: `${o.name}: missing` };
    const candidates = [refs[o.name], m.plain[o.name]].filter((t): t is RTensor => !!t);
    if (!isFloat(candidates[0]!)) {
      const same = candidates.some((r) => {
        const x = toFloat64(a);
        const y = toFloat64(r);
        return x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
      });
      if (!same) return { ok: false, worstNorm: Infinity, detail: `${o.name}: integers differ` };
      continue;
    }
    const errs = candidates.map((r) => floatErrors(a, r)).filter((e) => e !== undefined);
    if (errs.length === 0)
      return { ok: false, worstNorm: Infinity, detail: `${o.name}: shape or type differs` };
    const best = errs.reduce((x, y) => (y.norm < x.norm ? y : x));
    worstNorm = Math.max(worstNorm, best.norm);
    if (best.nonFinite)
      return { ok: false, worstNorm, detail: `${o.name}: non-finite values differ` };
    if (best.norm <= DEPLOYED_NORM_TOLERANCE) continue;
    const spread = m.recipe.ort_optimization_spread[o.name];
    if (spread && spread.max_abs > 0 && best.maxAbs <= spread.max_abs) {
      notes.push(
        `${o.name}: within onnxruntime's spread (${best.maxAbs.toPrecision(2)} <= ${spread.max_abs.toPrecision(2)})`,
      );
      continue;
    }
    return {
      ok: false,
      worstNorm,
      detail: `${o.name}: norm-wise error ${best.norm.toPrecision(2)}, max abs ${best.maxAbs.toPrecision(2)} (onnxruntime's spread ${spread?.max_abs ?? 0})`,
    };
  }
  return { ok: true, worstNorm, detail: notes.join("; ") || "within 1e-4" };
}

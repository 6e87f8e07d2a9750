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
import { fromIRTensor } from "../../src/interp/ir-tensors.js";
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
  /** A float16 model's reference: float64 rounded to float16 at each op boundary, by output name. */
  fp16?: Record<string, RTensor>;
}

/**
 * The norm-wise error a float16 model's output may have against its float64 reference rounded at
 * each op boundary: 2^-10, two units of float16's roundoff (onnxruntime: 8e-5 to 4.5e-4 on the
 * corpus; ONNX's reference evaluator: 1.3e-4 to 7.7e-4).
 */
export const FLOAT16_NORM_TOLERANCE = 2 ** -10;

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
  const outputs = (sub: string): Record<string, RTensor> | undefined => {
    const folder = join(dir, sub);
    if (!existsSync(folder)) return undefined;
    const out: Record<string, RTensor> = {};
    m.model.graph.outputs.forEach((o, i) => {
      const f = join(folder, `output_${i}.pb`);
      if (existsSync(f)) out[o.name] = decodeTensorProto(readFileSync(f)).tensor;
    });
    return out;
  };
  const fp16 = outputs("fp16_reference");
  return { ...m, name, recipe, plain: outputs("ort_disable_all") ?? {}, ...(fp16 ? { fp16 } : {}) };
}

export interface Verdict {
  ok: boolean;
  /** The worst output's norm-wise error against its nearer reference. */
  worstNorm: number;
  /** One line: why it failed, or how it passed. */
  detail: string;
}

/**
 * The quantum of an output a DequantizeLinear writes with a constant scale (its largest scale), or
 * undefined: a quantized output may be one quantum off (a rounding tie decided otherwise).
 */
function quantumOf(m: DeployedModel, output: string): number | undefined {
  const n = m.model.graph.nodes.find((x) => x.outputs.includes(output));
  if (!n || n.opType !== "DequantizeLinear") return undefined;
  const init = m.model.graph.initializers.find((t) => t.name === n.inputs[1]);
  if (init) return Math.max(...toFloat64(fromIRTensor(init)));
  const k = m.model.graph.nodes.find(
    (x) => x.opType === "Constant" && x.outputs[0] === n.inputs[1],
  );
  const v = k?.attributes.find((a) => a.name === "value");
  return v && v.type === "TENSOR" && v.value
    ? Math.max(...toFloat64(fromIRTensor(v.value)))
    : undefined;
}

/**
 * Ops whose bodies approximate onnxruntime (docs/semantics.md): a transformed model holding them
 * whose outputs differ beyond the tolerance is "approximate" with this reason, not wrong, while its
 * norm-wise error stays within APPROXIMATE_NORM.
 */
export const APPROXIMATE_OPS: Readonly<Record<string, string>> = {
  "com.microsoft.DynamicQuantizeLSTM":
    "DynamicQuantizeLSTM's body with sequence_lens, peepholes, clip, input_forget or other activations dequantizes the weights; onnxruntime also quantizes the activations at each step",
};
export const APPROXIMATE_NORM = 2e-2;

/** The approximate ops of a model (`domain.op` keys of APPROXIMATE_OPS it holds). */
export function approximateOps(m: DeployedModel): string[] {
  return Object.keys(APPROXIMATE_OPS).filter((k) => (m.recipe.ops[k] ?? 0) > 0);
}

function isFloat(t: RTensor): boolean {
  return floatErrors(t, t) !== undefined;
}

/** Judges outputs (by name) against the model's references and onnxruntime's spread. */
export function judgeDeployed(m: DeployedModel, got: Record<string, RValue>): Verdict {
  if (m.fp16) return judgeFloat16(m, m.fp16, got);
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
    const q = quantumOf(m, o.name);
    if (q !== undefined && best.maxAbs <= q * (1 + 1e-6)) {
      notes.push(
        `${o.name}: within one quantum (${best.maxAbs.toPrecision(2)} <= ${q.toPrecision(2)})`,
      );
      continue;
    }
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

/** A float16 model's outputs against its rounded float64 reference (FLOAT16_NORM_TOLERANCE). */
function judgeFloat16(
  m: DeployedModel,
  ref: Record<string, RTensor>,
  got: Record<string, RValue>,
): Verdict {
  let worstNorm = 0;
  for (const o of m.model.graph.outputs) {
    const a = got[o.name] as RTensor | undefined;
    const r = ref[o.name];
    const e = a && r && "dtype" in a ? floatErrors(a, r) : undefined;
    if (!e)
      return { ok: false, worstNorm: Infinity, detail: `${o.name}: missing or of another shape` };
    worstNorm = Math.max(worstNorm, e.norm);
    if (e.nonFinite || e.norm > FLOAT16_NORM_TOLERANCE)
      return {
        ok: false,
        worstNorm,
        detail: `${o.name}: norm-wise error ${e.norm.toPrecision(2)} against the float16 reference (max abs ${e.maxAbs.toPrecision(2)})`,
      };
  }
  return { ok: true, worstNorm, detail: `within 2^-10 of the float16 reference` };
}

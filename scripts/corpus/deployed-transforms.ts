// Each step of the deployed corpus on one model, judged as scripts/corpus/deployed-judge.ts says:
// `check`, the interpreter against onnxruntime, `expand` to ai.onnx only run on onnxruntime (the
// interpreter where onnxruntime cannot run the original), `convert` to an opset likewise. Shared by
// the report (deployed-report.ts) and the test (test/corpus/deployed.test.ts).

import { checkModel } from "../../src/check/index.js";
import { convert, expand } from "../../src/app/transform.js";
import { runValues } from "../../src/interp/executor.js";
import type { RTensor, RValue } from "../../src/interp/types.js";
import type { Model } from "../../src/ir/types.js";
import { runOrt } from "../../test/helpers/ort.js";
import {
  APPROXIMATE_NORM,
  APPROXIMATE_OPS,
  approximateOps,
  judgeDeployed,
  type DeployedModel,
} from "./deployed-judge.js";

export type Outcome = "pass" | "reported" | "approximate" | "refused" | "wrong" | "error";

export interface StepResult {
  outcome: Outcome;
  /** Why (refused, wrong, error, approximate) or how it passed. */
  detail: string;
  worstNorm?: number;
}

/**
 * onnxruntime's intra-op threads for the corpus, as scripts/corpus/deployed.py records the
 * references: its DynamicQuantizeLSTM quantizes together the hidden-state rows one thread computes,
 * so its numbers follow the thread count, and the default is the machine's (one here on a 2-core AMD
 * EPYC, where lstm_dynamic's y moved 3.8e-3 from the references; docs/semantics.md). Two gives the
 * corpus's one quantized LSTM (batch 2) a thread per row.
 */
export const DEPLOYED_ORT_THREADS = 2;

/** Whether onnxruntime runs the original (BiasAdd has no CPU kernel): else the interpreter judges. */
export async function ortRunsOriginal(m: DeployedModel): Promise<boolean> {
  try {
    await runOrt(m.model, m.sets[0]!.inputs as Record<string, RTensor>, {
      threads: DEPLOYED_ORT_THREADS,
    });
    return true;
  } catch {
    return false;
  }
}

/** A transformed model's run judged against the references. */
export async function judgeRun(
  m: DeployedModel,
  model: Model,
  onOrt: boolean,
  /** Why an approximate result is approximate (default: the reasons of APPROXIMATE_OPS). */
  approxWhy?: string,
): Promise<StepResult> {
  let got: Record<string, RValue>;
  try {
    got = onOrt
      ? await runOrt(model, m.sets[0]!.inputs as Record<string, RTensor>, {
          threads: DEPLOYED_ORT_THREADS,
        })
      : runValues(model, m.sets[0]!.inputs);
  } catch (e) {
    const msg = (e as Error).message.split("\n")[0]!;
    return {
      outcome: "error",
      detail: `${onOrt ? "onnxruntime" : "interpreter"}: ${msg.slice(0, 200)}`,
    };
  }
  const v = judgeDeployed(m, got);
  if (v.ok) return { outcome: "pass", detail: v.detail, worstNorm: v.worstNorm };
  const approx = approximateOps(m);
  if (approx.length && v.worstNorm <= APPROXIMATE_NORM)
    return {
      outcome: "approximate",
      detail: `${v.detail}; ${approxWhy ?? approx.map((k) => APPROXIMATE_OPS[k]).join("; ")}`,
      worstNorm: v.worstNorm,
    };
  return { outcome: "wrong", detail: v.detail, worstNorm: v.worstNorm };
}

/**
 * `check` on the original: clean (warnings allowed), or "reported" for the one invalid model of
 * the corpus (onnxruntime's mul_1.onnx, IR 3 with an initializer that is not a graph input, which
 * ONNX's checker rejects too); any other problem is wrong.
 */
export function checkStep(m: DeployedModel): StepResult {
  const r = checkModel(m.model);
  if (r.ok) return { outcome: "pass", detail: `${r.warnings.length} warnings` };
  const first = r.problems[0]!.message;
  if (r.problems.every((p) => /is not a graph input, which IR version 3 requires/.test(p.message)))
    return { outcome: "reported", detail: first };
  return { outcome: "wrong", detail: `${r.problems.length} problems: ${first}` };
}

export async function interpreterStep(m: DeployedModel): Promise<StepResult> {
  return judgeRun(
    m,
    m.model,
    false,
    "DynamicQuantizeLSTM itself matches onnxruntime to 6e-8; a DynamicQuantizeLinear after it turns last-bit differences of its float32 activations into one quantum on some values",
  );
}

/** Domains other than ai.onnx the model's nodes use (main graph and subgraphs). */
function foreignOps(model: Model): string[] {
  const ops = new Set<string>();
  const walk = (nodes: Model["graph"]["nodes"]) => {
    for (const n of nodes) {
      if (n.domain && n.domain !== "ai.onnx") ops.add(`${n.domain}.${n.opType}`);
      for (const a of n.attributes) if (a.type === "GRAPH" && a.value) walk(a.value.nodes);
    }
  };
  walk(model.graph.nodes);
  return [...ops].sort();
}

/** The runtime's own ai.onnx registrations left in a model (onnxruntime's SimplifiedLayerNormalization). */
function runtimeOps(model: Model): string[] {
  const check = checkModel(model);
  return check.warnings
    .filter((w) => /registers in ai\.onnx/.test(w.message))
    .map((w) => w.message.split(" ")[0]!);
}

export async function expandStep(m: DeployedModel, onOrt: boolean): Promise<StepResult> {
  let r;
  try {
    r = expand(m.model);
  } catch (e) {
    return { outcome: "error", detail: `expand: ${(e as Error).message.split("\n")[0]}` };
  }
  if (!r.ok) {
    const n = r.notes.find((x) => x.level === "error") ?? r.notes[0];
    return { outcome: "refused", detail: n?.message ?? "refused" };
  }
  const left = [...foreignOps(r.model), ...runtimeOps(r.model)];
  if (left.length) {
    const why = r.notes.find((x) => x.level === "warning")?.message ?? "";
    return { outcome: "refused", detail: `left ${left.join(", ")}: ${why}` };
  }
  return judgeRun(m, r.model, onOrt);
}

export async function convertStep(
  m: DeployedModel,
  target: number,
  onOrt: boolean,
): Promise<StepResult> {
  let r;
  try {
    r = convert(m.model, target);
  } catch (e) {
    return { outcome: "error", detail: `convert: ${(e as Error).message.split("\n")[0]}` };
  }
  if (!r.ok) {
    const n = r.notes.find((x) => x.level === "error") ?? r.notes[0];
    return {
      outcome: "refused",
      detail: `${n?.where ? `${n.where}: ` : ""}${n?.message ?? "refused"}`,
    };
  }
  return judgeRun(m, r.model, onOrt);
}

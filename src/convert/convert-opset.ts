// The convert-opset pass: the opset converter (driver.ts) as a pass, and the pipeline the
// `convert` command runs.

import { pipeline } from "../passes/manager.js";
import type { Note, Pass } from "../passes/pass.js";
import { validateModel } from "../passes/validate-model.js";
import { convertModel, type ConvertOptions } from "./driver.js";
import { blockedNotes, stepLabel } from "./index.js";

/**
 * The model's ai.onnx opset (main graph, every subgraph, every model-local function) becomes
 * `targetOpset`. All or nothing: when any node is blocked, the pass fails with an error note
 * naming each blocked node. Each adapted node step is an info note, each behaviour warning a
 * warning note.
 */
export function convertPass(targetOpset: number, options: PassConvertOptions = {}): Pass {
  return {
    name: `convert(opset ${targetOpset})`,
    run(model, ctx) {
      const result = convertModel(model, targetOpset, {
        ...options,
        registry: ctx.registry,
        progress: ctx.progress,
      });
      if (!result.model) return { ok: false, notes: blockedNotes(result.plan) };
      const p = result.plan;
      const notes: Note[] = [
        ...(p.lowered ?? []).map((a) => ({
          level: "info" as const,
          where: a.where,
          message: `${stepLabel(a)}: ${a.message}`,
        })),
        ...p.adapted.map((a) => ({
          level: "info" as const,
          where: a.where,
          message: `${stepLabel(a)}: ${a.message}`,
        })),
        ...p.warnings.map((w) => ({
          level: "warning" as const,
          where: w.where,
          message: `${stepLabel(w)}: ${w.message}`,
        })),
      ];
      const m = result.model;
      const modified =
        m.graph !== model.graph ||
        m.functions !== model.functions ||
        m.irVersion !== model.irVersion ||
        m.opsetImports.some((o, i) => o.version !== model.opsetImports[i]?.version);
      return { ok: true, model: m, modified, notes };
    },
  };
}

/** What `convert --opset N` runs: the model validated (refused when a rewrite would be wrong), then converted. */
export function convertPipeline(targetOpset: number, options: PassConvertOptions = {}): Pass {
  return pipeline("convert", [validateModel(), convertPass(targetOpset, options)]);
}

/** What a convert pass takes beyond the target: lowering and its bound (ConvertOptions). */
export type PassConvertOptions = Pick<
  ConvertOptions,
  "lower" | "maxNodes" | "maxMemory" | "origin"
>;

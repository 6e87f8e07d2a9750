// The convert-opset pass: the opset converter (driver.ts) as a pass, and the pipeline the
// `convert` command runs.

import { minIrVersionForFeatures } from "./ir-version.js";
import { pipeline } from "../passes/manager.js";
import type { Note, Pass } from "../passes/pass.js";
import { validateModel } from "../passes/validate-model.js";
import type { ConvertOptions } from "./driver.js";
import { convertModel } from "./convert-model.js";
import { blockedNotes, stepLabel } from "./index.js";
import type { StepRecord } from "./plan.js";

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
      const { infoNotes: _, ...convertOptions } = options;
      const result = convertModel(model, targetOpset, {
        ...convertOptions,
        registry: ctx.registry,
        progress: ctx.progress,
      });
      if (!result.model) return { ok: false, notes: blockedNotes(result.plan) };
      const p = result.plan;
      // One note per adapted node (100,000 on a 100,000-node chain), each saying where and what
      // only when read; none with `infoNotes: false` (the notes and the pass manager's copies
      // of the list were ~5% of a whole `convert -o` that reads none of them).
      const notes: Note[] = [];
      if (options.infoNotes !== false) {
        for (const a of p.lowered ?? []) notes.push(new StepNote("info", a));
        for (const a of p.adapted) notes.push(new StepNote("info", a));
      }
      for (const w of p.warnings) notes.push(new StepNote("warning", w));
      // A model the conversion left at an IR version its features do not allow (IR 3 with an
      // initializer that is not a graph input, when nothing had to change) gets the one they need.
      const need = minIrVersionForFeatures(result.model);
      const m = need > result.model.irVersion ? { ...result.model, irVersion: need } : result.model;
      const modified =
        m.graph !== model.graph ||
        m.functions !== model.functions ||
        m.irVersion !== model.irVersion ||
        m.opsetImports.some((o, i) => o.version !== model.opsetImports[i]?.version);
      return { ok: true, model: m, modified, notes };
    },
  };
}

/** The note of a step record: `where` and `message` built when first read. */
class StepNote implements Note {
  private text: string | undefined;
  constructor(
    readonly level: "info" | "warning",
    private readonly record: StepRecord,
  ) {}
  get where(): string {
    return this.record.where;
  }
  get message(): string {
    return (this.text ??= `${stepLabel(this.record)}: ${this.record.message}`);
  }
  toJSON(): Note {
    return { level: this.level, where: this.where, message: this.message };
  }
}

/** What `convert --opset N` runs: the model validated (refused when a rewrite would be wrong), then converted. */
export function convertPipeline(targetOpset: number, options: PassConvertOptions = {}): Pass {
  return pipeline("convert", [validateModel(), convertPass(targetOpset, options)]);
}

/** What a convert pass takes beyond the target: lowering and its bound (ConvertOptions). */
export type PassConvertOptions = Pick<
  ConvertOptions,
  "lower" | "maxNodes" | "maxMemory" | "origin"
> & {
  /** false: no info note per adapted or lowered node, for a caller that reads none (warnings stay). */
  infoNotes?: boolean;
};

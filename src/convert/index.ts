// Opset conversion: the plan (which node needs which version step, and how), the adapters, and
// the driver that applies them, as a pass (convertPass) and as a library call (convertModel).

import { OnnxError } from "../errors.js";
import type { Pass, Note } from "../passes/pass.js";
import { convertModel, type ConversionResult } from "./driver.js";
import type { ConversionPlan, StepRecord } from "./plan.js";

export type { Adapter, AdapterContext, AdapterRow, Direction } from "./adapter.js";
export { ADAPTER_ROWS, adapterTable, stepKey } from "./adapters/index.js";
export * as patterns from "./adapters/kit.js";
export { convertModel, Converter, type ConvertOptions, type ConversionResult } from "./driver.js";
export { convertedIrVersion, minIrVersionForFeatures } from "./ir-version.js";
export {
  adapterRow,
  behaviourBreak,
  blockedStep,
  breaksBeyondTypes,
  stepDiff,
  type ConversionPlan,
  type StepRecord,
} from "./plan.js";
export { BLOCKED_STEPS, behaviourBreaks, type StepData } from "./steps.js";

/** "ReduceSum 13 -> 11" (an op's version step; 0 is "does not exist"). */
export function stepLabel(r: Pick<StepRecord, "op" | "from" | "to">): string {
  return `${r.op} ${r.from || "-"} -> ${r.to || "-"}`;
}

/** One line per blocked node: where, step, reason. */
export function blockedNotes(plan: ConversionPlan): Note[] {
  return plan.blocked.map((b) => ({
    level: "error" as const,
    where: b.where,
    message: `${stepLabel(b)} (opset ${b.opsetFrom} -> ${b.opsetTo}): ${b.message}`,
  }));
}

/** The error a blocked conversion raises: the first blocked node named, with the count. */
export function conversionError(result: ConversionResult): OnnxError {
  const notes = blockedNotes(result.plan);
  const first = notes[0]!;
  const more =
    notes.length > 1
      ? ` (and ${notes.length - 1} more blocked node${notes.length > 2 ? "s" : ""})`
      : "";
  const err = new OnnxError(
    "E_UNSUPPORTED",
    `cannot convert to opset ${result.plan.to}: ${first.where}: ${first.message}${more}`,
  );
  return Object.assign(err, { notes, plan: result.plan });
}

/**
 * The converter as a pass: the model's ai.onnx opset (main graph, every subgraph, every
 * model-local function) becomes `targetOpset`. All or nothing: when any node is blocked, the
 * pass throws an OnnxError (E_UNSUPPORTED) whose `notes` name every blocked node.
 */
export function convertPass(targetOpset: number): Pass {
  return {
    name: `convert(opset ${targetOpset})`,
    run(model, ctx) {
      const result = convertModel(model, targetOpset, {
        registry: ctx.registry,
        progress: ctx.progress,
      });
      if (!result.model) throw conversionError(result);
      const p = result.plan;
      const report: Note[] = [
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
      const changed =
        m.graph !== model.graph ||
        m.functions !== model.functions ||
        m.irVersion !== model.irVersion ||
        m.opsetImports.some((o, i) => o.version !== model.opsetImports[i]?.version);
      return { model: result.model, changed, report };
    },
  };
}

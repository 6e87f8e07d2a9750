// Opset conversion: the plan (which node needs which version step, and how), the adapters, and
// the driver that applies them, as a pass (convertPass, convert-opset.ts) and as a library call
// (convertModel).

import { OnnxError } from "../errors.js";
import type { Note } from "../passes/pass.js";
import type { ConversionResult } from "./driver.js";
import type { ConversionPlan, StepRecord } from "./plan.js";

export type { Adapter, AdapterContext, AdapterRow, Direction } from "./adapter.js";
export { ADAPTER_ROWS, adapterTable, stepKey } from "./adapters/index.js";
export * as patterns from "./adapters/kit.js";
export { Converter, type ConvertOptions, type ConversionResult } from "./driver.js";
export { convertModel } from "./convert-model.js";
export { convertedIrVersion, minIrVersionForFeatures } from "./ir-version.js";
export { targetOpset } from "./target.js";
export {
  adapterRow,
  behaviourBreak,
  blockedStep,
  breaksBeyondTypes,
  breakingSteps,
  stepDiff,
  type BreakingStep,
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
  return new OnnxError(
    "E_UNSUPPORTED",
    `cannot convert to opset ${result.plan.to}: ${first.where}: ${first.message}${more}`,
  );
}

export { convertPass, convertPipeline, type PassConvertOptions } from "./convert-opset.js";
export type { Lowered, Lowering, LowerRequest } from "./lowering.js";

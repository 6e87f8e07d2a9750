// The checks of a model as a whole: its IR version against its opsets, its opset imports, its
// local functions (defined once, no cycles of calls, attributes declared once), each function's
// body on its own.

import { FunctionTable, cyclePath, functionWhere } from "../ir/functions.js";
import { normaliseDomain, opsetMap } from "../ir/opsets.js";
import type { Function, Model, OpsetId } from "../ir/types.js";
import {
  MAX_IR_VERSION,
  MIN_IR_VERSION_FOR_FUNCTIONS,
  minIrVersionForOpset,
} from "../schema/ir-versions.js";
import { domainLabel } from "../schema/registry.js";
import type { Analyzer } from "./analyze.js";
import type { CheckWarning, OpRegistry, Problem } from "./report.js";

/**
 * The opset map of imports (see opsetMap), each import checked: a domain imported twice, an
 * opset below 1 or newer than the registry knows. `owner` names whose imports they are.
 */
export function checkedOpsets(
  imports: OpsetId[],
  owner: string,
  registry: OpRegistry,
  sink: Problem[],
): Map<string, number> {
  const map = opsetMap(imports);
  const seen = new Set<string>();
  for (const o of imports) {
    const d = normaliseDomain(o.domain);
    if (seen.has(d)) {
      sink.push({
        code: "opset-import",
        where: owner,
        message: `domain '${domainLabel(d)}' is imported twice (opsets ${map.get(d)} and ${o.version})`,
      });
      continue;
    }
    seen.add(d);
    if (!Number.isInteger(o.version) || o.version < 1) {
      sink.push({
        code: "opset-import",
        where: owner,
        message: `domain '${domainLabel(d)}' is imported at opset ${o.version}; opset versions start at 1`,
      });
    }
    const newest = registry.maxOpset(d);
    if (newest > 0 && o.version > newest) {
      sink.push({
        code: "opset-import",
        where: owner,
        message: `domain '${domainLabel(d)}' is imported at opset ${o.version}, newer than any this tool knows (${newest})`,
      });
    }
  }
  return map;
}

/** The model's IR version: known, and new enough for its ai.onnx opset and its functions. */
export function checkIrVersion(
  model: Model,
  opsets: Map<string, number>,
  problems: Problem[],
  warnings: CheckWarning[] = [],
): void {
  const ir = model.irVersion;
  if (!ir || ir < 3) {
    problems.push({
      code: "ir-version",
      where: "model",
      message: `IR version ${ir || "(not set)"} is not valid: models with opset imports need IR version 3 or later`,
    });
    return;
  }
  if (ir > MAX_IR_VERSION) {
    problems.push({
      code: "ir-version",
      where: "model",
      message: `IR version ${ir} is newer than this tool knows (${MAX_IR_VERSION})`,
    });
  }
  const onnx = opsets.get("");
  if (onnx !== undefined) {
    const need = minIrVersionForOpset(onnx);
    // onnxruntime's quantizer writes opset 21 into IR 7 and 8 models; ONNX's checker and
    // onnxruntime accept them, so this is said, not refused (converting writes the IR needed).
    if (ir < need) {
      warnings.push({
        where: "model",
        message: `IR version ${ir} is too old for ai.onnx opset ${onnx}, which needs IR version ${need} or later (ONNX's checker and onnxruntime accept it; convert and expand write IR ${need})`,
      });
    }
  }
  if (ir < 4) {
    // IR 3 requires every initializer to be a graph input (IR 4 made them constants of their own).
    const inputs = new Set(model.graph.inputs.map((i) => i.name));
    for (const t of model.graph.initializers)
      if (!inputs.has(t.name))
        problems.push({
          code: "ir-version",
          where: "model",
          message: `initializer '${t.name}' is not a graph input, which IR version ${ir} requires (IR 4 and later allow it)`,
        });
  }
  if (model.functions.length > 0 && ir < MIN_IR_VERSION_FOR_FUNCTIONS) {
    problems.push({
      code: "ir-version",
      where: "model",
      message: `IR version ${ir} does not allow model-local functions (they need IR version ${MIN_IR_VERSION_FOR_FUNCTIONS} or later)`,
    });
  }
}

/** A local function defined twice (same domain, name and overload): the later definitions. */
export function checkDuplicateFunctions(table: FunctionTable, problems: Problem[]): void {
  for (const f of table.duplicates)
    problems.push({
      code: "function",
      where: functionWhere(f),
      message: "a model-local function with this domain, name and overload is defined twice",
    });
}

/** A function that calls itself, directly or through others, is reported once per cycle. */
export function checkFunctionCycles(table: FunctionTable, problems: Problem[]): void {
  for (const cycle of table.cycles())
    problems.push({
      code: "function-cycle",
      where: functionWhere(cycle[0]!),
      message:
        cycle.length === 1
          ? `the function calls itself (${cyclePath(cycle)}); recursion is not allowed`
          : `the function calls itself indirectly (${cyclePath(cycle)}); recursion is not allowed`,
    });
}

/** Checks a local function on its own: its imports, its declared attributes, its body. */
export function analyzeFunction(an: Analyzer, f: Function, modelOpsets: Map<string, number>): void {
  const where = functionWhere(f);
  const opsets = f.opsetImports.length
    ? checkedOpsets(f.opsetImports, where, an.registry, an.problems)
    : modelOpsets;
  const declared = new Set<string>();
  for (const n of [...f.attributes, ...f.attributeProtos.map((a) => a.name)]) {
    if (declared.has(n)) {
      an.problems.push({
        code: "function",
        where,
        message: `attribute '${n}' is declared twice`,
      });
    }
    declared.add(n);
  }
  an.analyzeBody(f, undefined, { where, opsets, fn: f, sink: an.problems, record: true });
}

// The pipelines the commands run. `expand`: local functions inlined (callee-first), the functions
// no longer called removed, older versions lowered, schema function ops expanded, and, when
// anything changed, opset imports trimmed to the domains still used; with a target op list, its
// postcondition is that every node left is one the backend has.

import { modelFunctions } from "../check/index.js";
import { nodeLabel } from "../errors.js";
import { functionKey } from "../ir/functions.js";
import { walkGraphNodes } from "../ir/visit.js";
import type { Function, Graph, Model } from "../ir/types.js";
import { pipeline } from "../passes/manager.js";
import { modelPass, type Note, type Pass, type PassContext } from "../passes/pass.js";
import { removeUnusedFunctions } from "../passes/remove-unused-functions.js";
import { trimOpsetImports } from "../passes/trim-opset-imports.js";
import { validateModel } from "../passes/validate-model.js";
import { normaliseDomain } from "../schema/registry.js";
import { hasNodeOrigins, originsFromTable, placeOrigins } from "../inline/origin.js";
import {
  expandedNote,
  functionOpsets,
  functionWhere,
  opsetMap,
  type ExpandOptions,
} from "./context.js";
import { expandSchemaFunctions } from "./expand-schema-functions.js";
import { inlineLocalFunctions } from "./inline-local-functions.js";
import { lowerOlderVersions } from "./lower-older-versions.js";
import { OpSet, opName } from "./select.js";
import { minIrVersionForFeatures } from "../convert/ir-version.js";
import { minIrVersionForOpset } from "../schema/ir-versions.js";

/** The notes of several expansion passes with their "expanded N calls" added up, first. */
function sumExpanded(notes: Note[]): Note[] {
  let calls = 0;
  const rest: Note[] = [];
  for (const n of notes) {
    if (n.level === "info" && n.calls !== undefined) calls += n.calls;
    else rest.push(n);
  }
  return calls ? [expandedNote(calls), ...rest] : rest;
}

/**
 * The model with its IR version raised to what its features and its ai.onnx opset need (an IR-3
 * model whose initializers are not graph inputs needs 4; onnxruntime's quantizer writes opset 21
 * into IR 7 models), so that what expand writes is valid; the model itself when it needs nothing.
 */
function withIrVersionNeeded(model: Model): Model {
  const opset = opsetMap(model.opsetImports).get("");
  const need = Math.max(
    minIrVersionForFeatures(model),
    opset !== undefined ? minIrVersionForOpset(opset) : 0,
  );
  return need > model.irVersion ? { ...model, irVersion: need } : model;
}

/**
 * The expander: every selected function op (schema functions and model-local functions) replaced
 * by its body, all the way down. Never mutates its input.
 */
export function expandPipeline(options: ExpandOptions = {}): Pass {
  const steps = pipeline("expand", [
    validateModel(),
    inlineLocalFunctions(options),
    removeUnusedFunctions(),
    lowerOlderVersions(options),
    expandSchemaFunctions(options),
  ]);
  const targetOps = options.targetOps;
  return {
    name: "expand",
    run(model, ctx) {
      // Below IR 10, the origins of an earlier expansion go back on their nodes while it runs.
      const origin = options.origin !== false;
      // Records on the result's nodes are then all put there by this run, on nodes it made.
      const ownRecords = origin && !options.deferOrigins && !hasNodeOrigins(model);
      const r = steps.run(origin ? originsFromTable(model) : model, ctx);
      if (!r.ok) return { ...r, notes: sumExpanded(r.notes) };
      if (!r.modified) {
        // Nothing expanded; an IR version too old for what the model holds is still raised.
        const raised = withIrVersionNeeded(model);
        return { ok: true, model: raised, modified: raised !== model, notes: sumExpanded(r.notes) };
      }
      let out = trimOpsetImports(r.model);
      if (origin && !options.deferOrigins) out = placeOrigins(out, ownRecords);
      return {
        ok: true,
        model: withIrVersionNeeded(out),
        modified: true,
        notes: sumExpanded(r.notes),
      };
    },
    ...(targetOps && options.targetResidue !== "none"
      ? {
          ensures: (_: Model, after: Model, ctx: PassContext) =>
            targetCheck(
              after,
              new OpSet(targetOps, ctx.registry),
              ctx,
              options.targetResidue === "warning" ? "warning" : "error",
            ),
        }
      : {}),
  };
}

/**
 * Origins left on the nodes (ExpandOptions.deferOrigins) placed for the model's IR version: a
 * pipeline's last pass when it converts after expanding.
 */
export const placeOriginsPass = (): Pass => modelPass("place-origins", (m) => placeOrigins(m));

/** With a target op list: an error note for each node left (per place and op) the backend lacks. */
export function targetCheck(
  model: Model,
  target: OpSet,
  ctx: PassContext,
  level: "error" | "warning" = "error",
): Note[] {
  const table = modelFunctions(model, ctx.registry);
  const notes: Note[] = [];
  const seen = new Set<string>();
  const check = (
    owner: Graph | Function,
    opsets: Map<string, number>,
    where: string,
    fnKey?: string,
  ) => {
    for (const { node, index, owner: o } of walkGraphNodes(owner)) {
      const fn = table.called(node);
      const domain = normaliseDomain(node.domain);
      const op = fn
        ? undefined
        : ctx.registry.tryResolve(domain, node.opType, opsets.get(domain) ?? 0);
      if (target.has(domain, node.opType, op?.since)) continue;
      const name = opName(domain, node.opType, op?.since);
      const key = `${where}\u0000${name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const why = fn
        ? "a local function that is kept"
        : op?.function || op?.body
          ? "a function op whose body could not be used here"
          : op
            ? "not a function op"
            : "an op unknown at this opset";
      notes.push({
        level,
        where: `${where}${o === owner ? "" : " (in a subgraph)"} > ${nodeLabel(node, index)}`,
        ...(fnKey !== undefined ? { function: fnKey } : {}),
        message: `${level === "warning" ? "left: " : ""}${name} is not in the target op list and cannot be lowered to it (${why})`,
      });
    }
  };
  const modelOpsets = opsetMap(model.opsetImports);
  check(model.graph, modelOpsets, "graph");
  for (const f of model.functions)
    check(
      f,
      functionOpsets(f, modelOpsets),
      functionWhere(f),
      functionKey(f.domain, f.name, f.overload),
    );
  return notes;
}

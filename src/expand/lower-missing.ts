// Lowering on the way of a conversion (src/convert/lowering.ts): the nodes of function ops that
// do not exist at the target opset — and only those — are expanded by the expander's own
// pipeline, selected by op and version (`only`), at the model's opset; the converter then takes
// the result to the target like any other model. Bodies holding function ops the target lacks
// too are lowered in a further round. Where a function op inside a local function cannot be
// lowered because the function's calls disagree on the types its body needs, the functions are
// copied per call signature and lowered again (src/inline/specialize.ts). The app layer passes it to
// the converter (ConvertOptions.lower).

import type { Lowered, LowerRequest } from "../convert/lowering.js";
import { reworded, withNodeId, type StepRecord } from "../convert/plan.js";
import { modelFunctions } from "../check/index.js";
import { functionKey } from "../ir/functions.js";
import { functionOpsets, opsetMap } from "../ir/opsets.js";
import type { Model, Node } from "../ir/types.js";
import { visitModel, type GraphScope } from "../ir/visit.js";
import { runPass } from "../passes/manager.js";
import { errorNotes, noteText, passContext, type Note } from "../passes/pass.js";
import { hasFunctionBody } from "../schema/body.js";
import type { SchemaRegistry } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import { expandPipeline } from "./pipeline.js";
import type { OpSelector } from "./select.js";
import { specializeFunctions } from "../inline/specialize.js";

/** Rounds of lowering at most (a body holding a function op the target lacks takes one more). */
const MAX_ROUNDS = 4;

/** Where a missing function op is, as a value: the key of the local function holding it, if any. */
interface MissingSite {
  /** functionKey of the model-local function whose body (or a subgraph of it) holds the node. */
  function?: string;
  /** Why the node is lowered (its record's message, before ": lowered to its function body"). */
  reason: string;
}

/** A record's message, from its site: the reason, how the calls were copied if they were. */
function loweredMessage(site: MissingSite, copied?: string): string {
  return `${site.reason}${copied ? `; ${copied}` : ""}: lowered to its function body`;
}

/**
 * The nodes of function ops the target opset lacks: a record each, and the ops as selectors;
 * `sites` gives each record's place and reason as values, for decisions (no message is parsed).
 */
export function missingFunctionOps(
  model: Model,
  target: number,
  registry: SchemaRegistry,
): { records: StepRecord[]; only: OpSelector[]; sites: Map<StepRecord, MissingSite> } {
  const table = modelFunctions(model, registry);
  const records: StepRecord[] = [];
  const sites = new Map<StepRecord, MissingSite>();
  const only = new Map<string, OpSelector>();
  const look = (opsets: Map<string, number>) => {
    const opset = opsets.get("");
    // Per op type: its version with a body that the target lacks, else null (asked once each).
    const missing = new Map<string, OpVersion | null>();
    return (node: Node, index: number, scope: GraphScope) => {
      if (node.domain !== "" && node.domain !== "ai.onnx") return node;
      if (table.size && table.called(node)) return node;
      if (opset === undefined || opset === target) return node;
      let op = missing.get(node.opType);
      if (op === undefined) {
        const v = registry.tryResolve("", node.opType, opset);
        // A runtime's own registration (onnxruntime's LayerNormalization-1) is lowered at any target.
        const lacks = v?.registeredBy || !registry.tryResolveStandard("", node.opType, target);
        op = v && lacks && hasFunctionBody(v) ? v : null;
        missing.set(node.opType, op);
      }
      if (op === null) return node;
      only.set(`${op.name}-${op.since}`, { domain: "", op: op.name, version: op.since });
      let root = scope;
      while (root.parent) root = root.parent;
      const fn = "initializers" in root.owner ? undefined : root.owner;
      const site: MissingSite = {
        ...(fn ? { function: functionKey(fn.domain, fn.name, fn.overload) } : {}),
        reason: op.registeredBy
          ? `${node.opType} is ${op.registeredBy}'s own ${op.name}-${op.since}`
          : `${node.opType} does not exist at opset ${target}`,
      };
      const record: StepRecord = {
        where: scope.nodeWhere(node, index),
        op: node.opType,
        domain: node.domain,
        from: op.since,
        to: 0,
        opsetFrom: opset,
        opsetTo: target,
        message: loweredMessage(site),
        ...(site.function !== undefined ? { function: site.function } : {}),
      };
      records.push(withNodeId(record, scope.nodeId(node, index)));
      sites.set(record, site);
      return node;
    };
  };
  const modelOpsets = opsetMap(model.opsetImports);
  visitModel<ReturnType<typeof look>>(model, {
    enter: (scope, parent) => parent ?? look(functionOpsets(scope.owner, modelOpsets)),
    node: (node, index, scope, seen) => seen(node, index, scope),
  });
  return { records, only: [...only.values()], sites };
}

/** The converter's lowering: missing function ops expanded, round by round; undefined: none. */
export function lowerMissing(
  model: Model,
  target: number,
  request: LowerRequest,
): Lowered | undefined {
  const { registry } = request;
  let found = missingFunctionOps(model, target, registry);
  if (found.records.length === 0) return undefined;
  const lowered: StepRecord[] = [];
  const notes: Note[] = [];
  const tried = new Set<string>();
  let current = model;
  const bound = {
    ...(request.maxNodes !== undefined ? { maxNodes: request.maxNodes } : {}),
    ...(request.maxMemory !== undefined ? { maxMemory: request.maxMemory } : {}),
  };
  for (let round = 0; round < MAX_ROUNDS && found.records.length; round++) {
    // Ops a round could not lower are left for the converter, which refuses them.
    const only = found.only.filter((s) => !tried.has(`${s.op}-${s.version}`));
    if (only.length === 0) break;
    for (const s of only) tried.add(`${s.op}-${s.version}`);
    const expand = (m: Model) =>
      runPass(
        expandPipeline({
          only,
          deferOrigins: true,
          ...(request.origin === false ? { origin: false } : {}),
          ...bound,
        }),
        m,
        passContext({ registry }),
      );
    let r = expand(current);
    let mine = found.records.filter((x) => only.some((s) => s.op === x.op));
    if (!r.ok) {
      // Inside local functions whose calls disagree on the types a body needs: the functions
      // copied per call signature (src/inline/specialize.ts), and lowered again.
      const failing = failingFunctions(current, r.notes);
      if (failing.keys.size) {
        const s = specializeFunctions(current, failing.keys, registry, bound);
        if (!s.ok) r = s;
        else if (s.copies.length) {
          r = expand(s.model);
          const copied = `the calls of its function differ in type: copied per signature (${s.copies.join(", ")})`;
          mine = mine.map((x) => {
            const site = found.sites.get(x)!;
            return site.function !== undefined && failing.keys.has(site.function)
              ? reworded(x, loweredMessage(site, copied))
              : x;
          });
        }
      }
    }
    if (!r.ok) {
      const first = errorNotes(r.notes)[0];
      const reason = first ? noteText(first) : "the expansion failed";
      const failed = mine.map((x) =>
        reworded(
          x,
          `${x.op} does not exist at opset ${target}, and lowering it to its function body failed: ${reason}`,
        ),
      );
      return { ok: false, lowered: failed, reason };
    }
    for (const n of mine) lowered.push(n);
    for (const n of r.notes) if (n.level !== "info") notes.push(n);
    current = r.model;
    found = missingFunctionOps(current, target, registry);
  }
  return { ok: true, model: current, lowered, notes };
}

/** The keys of the local functions where an expansion failed: those its error notes are in. */
function failingFunctions(model: Model, notes: Note[]): { keys: Set<string> } {
  const failed = new Set(errorNotes(notes).map((n) => n.function));
  const keys = new Set<string>();
  for (const f of model.functions) {
    const key = functionKey(f.domain, f.name, f.overload);
    if (failed.has(key)) keys.add(key);
  }
  return { keys };
}

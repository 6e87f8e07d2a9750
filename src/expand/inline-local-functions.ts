// inline-local-functions: every selected call of a model-local function (FunctionProto) replaced
// by the function's body, in the main graph, in If/Loop/Scan bodies at any depth, and inside the
// local functions themselves. Callee-first: the functions are taken in reverse topological order
// of their call graph, each with the calls inside it already inlined, so that inlining a call
// puts in a body with nothing left to inline. No rounds, and no limit on how deep calls nest; a
// cycle of calls is refused by the precondition. Functions no longer called stay (see
// remove-unused-functions).

import { inferScopeTypes, modelFunctions } from "../check/index.js";
import { cyclePath, functionKey, type FunctionTable } from "../ir/functions.js";
import { someGraphNode } from "../ir/visit.js";
import type { Function, Model, Node } from "../ir/types.js";
import { boundNodes, callPrefix, inlineBody } from "../inline/inline.js";
import { localFunctionName, markOrigin } from "../inline/origin.js";
import { GraphScope, rewriteNodes } from "../ir/visit.js";
import { passContext, type Note, type Pass, type PassContext } from "../passes/pass.js";
import {
  convertOpset,
  expandedNote,
  functionOpsets,
  functionWhere,
  makeUnit,
  noteFailures,
  Notes,
  opsetMap,
  Selection,
  withImports,
  type ExpandOptions,
  type ScopeTypes,
  type Unit,
} from "./context.js";
import { biggest, budgetNotes, tally, type Contributor } from "../inline/bounds.js";
import { fitOpsets, type FitContext } from "./fit.js";

/**
 * What the precondition works out for the run: the model's local functions, callee-first (none
 * when calls form a cycle, which the precondition refuses).
 */
export interface InlinePlan {
  table: FunctionTable;
  order: Function[] | undefined;
}

/** The plan of a model: its function table and order (ir/functions). */
export function inlinePlan(model: Model, ctx: PassContext): InlinePlan {
  const table = modelFunctions(model, ctx.registry);
  return { table, order: table.order() };
}

/** The precondition of inlining: no cycle of local function calls. */
function noCycle(plan: InlinePlan): Note[] {
  if (plan.order) return [];
  const cycle = plan.table.cycles()[0]!;
  return [
    {
      level: "error",
      message: `local functions call each other in a cycle (${cyclePath(cycle)}); they cannot be expanded`,
    },
  ];
}

/**
 * What inlining the selected calls makes, counted on the call graph before any inlining: the
 * nodes of the main graph and of each reached function that holds a selected call, each call
 * counted as its callee's size once inlined (exact, subgraphs included), with the function whose
 * instances make the most of them.
 */
export function inlinedCount(
  model: Model,
  selected: (f: Function) => boolean,
  plan: InlinePlan = inlinePlan(model, passContext()),
): { total: number; top?: Contributor } {
  const { table } = plan;
  const order = plan.order ?? [];
  const sizes = table.inlinedSizes(selected);
  const inlines = new Set<Function>();
  /** Selected calls per owner: the callee and how many times. */
  const callsIn = new Map<Model["graph"] | Function, Map<Function, number>>();
  for (const owner of [model.graph, ...order]) {
    const calls = new Map<Function, number>();
    someGraphNode(owner, (node) => {
      const f = table.called(node);
      if (f && selected(f)) calls.set(f, (calls.get(f) ?? 0) + 1);
    });
    callsIn.set(owner, calls);
  }
  const graphSize = table.inlinedSize(model.graph, sizes, selected);
  const reached = table.reachable(model.graph);
  // How many times each function's body is put in, callers first: the graph once, and a kept
  // function once (it stays, with its own calls inlined).
  const instances = new Map<Function, number>();
  const put = (owner: Model["graph"] | Function, times: number) => {
    for (const [g, k] of callsIn.get(owner)!) instances.set(g, (instances.get(g) ?? 0) + k * times);
  };
  put(model.graph, 1);
  for (let i = order.length - 1; i >= 0; i--) {
    const f = order[i]!;
    if (!reached.has(f)) continue;
    put(f, selected(f) ? (instances.get(f) ?? 0) : 1);
    if (callsIn.get(f)!.size) inlines.add(f);
  }
  let total = graphSize;
  for (const f of inlines) total += sizes.get(f)!;
  const by = new Map<string, Contributor>();
  for (const [f, k] of instances) if (k > 0) tally(by, functionWhere(f), k, k * sizes.get(f)!);
  const top = biggest(by.values());
  return { total, ...(top ? { top } : {}) };
}

export function inlineLocalFunctions(options: ExpandOptions = {}): Pass<InlinePlan> {
  return {
    name: "inline-local-functions",
    requires: (model, ctx) => {
      const plan = inlinePlan(model, ctx);
      const cycle = noCycle(plan);
      if (cycle.length || model.functions.length === 0) return { notes: cycle, plan };
      // The bound: the nodes inlining makes, within budget (bounds.ts).
      const selection = new Selection(options, ctx.registry);
      const { total, top } = inlinedCount(model, (f) => selection.has(f.domain, f.name), plan);
      return { notes: budgetNotes(total, top, options), plan };
    },
    run(model, ctx) {
      const plan = ctx.plan ?? inlinePlan(model, ctx);
      const order = plan.order;
      if (!order) return { ok: false, notes: noCycle(plan) };
      const selection = new Selection(options, ctx.registry);
      const table = plan.table;
      const converter =
        options.converter === null ? undefined : (options.converter ?? convertOpset);
      const fit: FitContext = {
        ctx,
        functions: table,
        irVersion: model.irVersion,
        ...(converter ? { converter } : {}),
      };
      const notes = new Notes();
      let analysis: ScopeTypes | undefined;
      const types = () =>
        (analysis ??= inferScopeTypes(model, { registry: ctx.registry }) as ScopeTypes);
      const modelOpsets = opsetMap(model.opsetImports);
      /** Each function with its calls inlined, and how many calls that took (nested included). */
      const done = new Map<Function, { fn: Function; calls: number }>();

      const inlineIn = (nodes: Node[], unit: Unit, scope: GraphScope) => {
        let calls = 0;
        const out = rewriteNodes(nodes, scope, (node, index, s, original) => {
          const fn = table.called(node);
          if (!fn || !selection.has(fn.domain, fn.name)) return node;
          const label = () => s.nodeWhere(original, index);
          const callee = done.get(fn)!;
          const replaced = noteFailures(
            notes,
            selection.only !== undefined,
            () => {
              const body = inlineBody(
                node,
                {
                  inputs: fn.inputs,
                  outputs: fn.outputs,
                  nodes: boundNodes(callee.fn, node.attributes),
                },
                unit.scope(),
                callPrefix(node, fn.name),
              );
              if (options.origin !== false) markOrigin(body, node, localFunctionName(fn));
              return fitOpsets(fit, node, body, callee.fn.opsetImports, unit);
            },
            { label, function: unit.function },
          );
          if (!replaced) return node;
          calls += 1 + callee.calls;
          return replaced;
        });
        return { nodes: out, calls };
      };

      const reached = table.reachable(model.graph);
      for (const f of order) {
        if (!reached.has(f)) {
          done.set(f, { fn: f, calls: 0 });
          continue;
        }
        const unit: Unit = {
          ...makeUnit(functionWhere(f), f, functionOpsets(f, modelOpsets), types),
          function: functionKey(f.domain, f.name, f.overload),
        };
        const r = inlineIn(f.nodes, unit, GraphScope.function(f));
        let g = f;
        if (r.nodes !== f.nodes) {
          g = { ...f, nodes: r.nodes };
          if (unit.added.size)
            g.opsetImports = withImports(
              f.opsetImports.length ? f.opsetImports : model.opsetImports,
              unit.added,
            );
        }
        done.set(f, { fn: g, calls: r.calls });
      }
      const main = makeUnit("graph", model.graph, modelOpsets, types);
      const r = inlineIn(model.graph.nodes, main, GraphScope.main(model));
      if (notes.list.some((n) => n.level === "error")) return { ok: false, notes: notes.list };

      const functions = model.functions.map((f) => done.get(f)!.fn);
      const functionsChanged = functions.some((g, i) => g !== model.functions[i]);
      const graphChanged = r.nodes !== model.graph.nodes;
      if (!graphChanged && !functionsChanged && main.added.size === 0)
        return { ok: true, model, modified: false, notes: notes.list };
      const out: Model = {
        ...model,
        graph: graphChanged ? { ...model.graph, nodes: r.nodes } : model.graph,
        functions: functionsChanged ? functions : model.functions,
        opsetImports: main.added.size
          ? withImports(model.opsetImports, main.added)
          : model.opsetImports,
      };
      // Calls inlined: those in the graph, and those inside the functions the graph still calls.
      let calls = r.calls;
      for (const f of modelFunctions(out).reachable(out.graph))
        calls += done.get(model.functions[out.functions.indexOf(f)]!)?.calls ?? 0;
      return {
        ok: true,
        model: out,
        modified: true,
        notes: calls ? [expandedNote(calls), ...notes.list] : notes.list,
      };
    },
  };
}

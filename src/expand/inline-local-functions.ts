// inline-local-functions: every selected call of a model-local function (FunctionProto) replaced
// by the function's body, in the main graph, in If/Loop/Scan bodies at any depth, and inside the
// local functions themselves. Callee-first: the functions are taken in reverse topological order
// of their call graph, each with the calls inside it already inlined, so that inlining a call
// puts in a body with nothing left to inline. No rounds, and no limit on how deep calls nest; a
// cycle of calls is refused by the precondition. Functions no longer called stay (see
// remove-unused-functions).

import { inferScopeTypes, modelFunctions } from "../check/index.js";
import { cyclePath, type FunctionTable } from "../ir/functions.js";
import { someGraphNode } from "../ir/traverse.js";
import type { Function, Model, Node } from "../ir/types.js";
import { boundNodes, callPrefix, inlineBody } from "../inline/inline.js";
import { localFunctionName, markOrigin } from "../inline/origin.js";
import type { Note, Pass, PassContext } from "../passes/pass.js";
import { reachableFunctions } from "../passes/remove-unused-functions.js";
import {
  convertOpset,
  expandedNote,
  functionOpsets,
  functionWhere,
  makeUnit,
  noteFailures,
  Notes,
  opsetMap,
  rewriteNodes,
  Selection,
  withImports,
  type ExpandOptions,
  type ScopeTypes,
  type Unit,
} from "./context.js";
import { biggest, budgetNotes, tally, type Contributor } from "./bounds.js";
import { fitOpsets, type FitContext } from "./fit.js";

/** The model's local functions as a call graph. */
export interface CallGraph {
  table: FunctionTable;
  /** The functions, each after every function it calls (empty when there is a cycle). */
  order: Function[];
  /** The first cycle of calls (ir/functions' FunctionTable.cycles); absent when there is none. */
  cycle?: Function[];
  /**
   * Nodes once every call is inlined: per function, and for the main graph (a call counts as its
   * callee's size; Infinity on a cycle). What a later limit on inlining will be checked against.
   */
  sizes: Map<Function, number>;
  graphSize: number;
}

const graphs = new WeakMap<Model, CallGraph>();

/** The model's call graph of local functions (worked out once per model object). */
export function callGraph(model: Model): CallGraph {
  const known = graphs.get(model);
  if (known) return known;
  const table = modelFunctions(model);
  const cycle = table.cycles()[0];
  const sizes = new Map<Function, number>();
  const sizeOf = (owner: Model["graph"] | Function): number => {
    let n = 0;
    someGraphNode(owner, (node) => {
      const f = table.called(node);
      n += f ? (sizes.get(f) ?? Infinity) : 1;
    });
    return n;
  };
  const order: Function[] = [];
  if (!cycle) {
    // Post-order, with an explicit stack: a chain of calls may be deeper than the call stack.
    const done = new Set<Function>();
    for (const root of table.functions) {
      if (done.has(root)) continue;
      done.add(root);
      const work: { f: Function; next: number }[] = [{ f: root, next: 0 }];
      while (work.length) {
        const top = work[work.length - 1]!;
        const callees = table.callees(top.f);
        if (top.next < callees.length) {
          const g = callees[top.next++]!;
          if (!done.has(g)) {
            done.add(g);
            work.push({ f: g, next: 0 });
          }
        } else {
          work.pop();
          order.push(top.f);
          sizes.set(top.f, sizeOf(top.f));
        }
      }
    }
  }
  const result: CallGraph = {
    table,
    order,
    sizes,
    graphSize: cycle ? Infinity : sizeOf(model.graph),
    ...(cycle ? { cycle } : {}),
  };
  graphs.set(model, result);
  return result;
}

/** The precondition of inlining: no cycle of local function calls. */
export function noCycle(model: Model): Note[] {
  const { cycle } = callGraph(model);
  if (!cycle) return [];
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
): { total: number; top?: Contributor } {
  const { table, order } = callGraph(model);
  const sizes = new Map<Function, number>();
  const inlines = new Set<Function>();
  /** Selected calls per owner: the callee and how many times. */
  const callsIn = new Map<Model["graph"] | Function, Map<Function, number>>();
  const sizeOf = (owner: Model["graph"] | Function): number => {
    let n = 0;
    const calls = new Map<Function, number>();
    someGraphNode(owner, (node) => {
      const f = table.called(node);
      if (f && selected(f)) {
        n += sizes.get(f)!;
        calls.set(f, (calls.get(f) ?? 0) + 1);
      } else n += 1;
    });
    callsIn.set(owner, calls);
    return n;
  };
  for (const f of order) sizes.set(f, sizeOf(f));
  const graphSize = sizeOf(model.graph);
  const reached = reachableFunctions(model);
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

/** The precondition's bound: the nodes inlining makes, within budget (bounds.ts). */
export function inlineBudget(model: Model, options: ExpandOptions, ctx: PassContext): Note[] {
  if (model.functions.length === 0) return [];
  const selection = new Selection(options, ctx.registry);
  const { total, top } = inlinedCount(model, (f) => selection.has(f.domain, f.name));
  return budgetNotes(total, top, options);
}

export function inlineLocalFunctions(options: ExpandOptions = {}): Pass {
  return {
    name: "inline-local-functions",
    requires: (model, ctx) => {
      const cycle = noCycle(model);
      return cycle.length ? cycle : inlineBudget(model, options, ctx);
    },
    run(model, ctx) {
      const graph = callGraph(model);
      if (graph.cycle) return { ok: false, notes: noCycle(model) };
      const selection = new Selection(options, ctx.registry);
      const table = graph.table;
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

      const inlineIn = (nodes: Node[], unit: Unit, where: string) => {
        let calls = 0;
        const out = rewriteNodes(nodes, where, (node, label) => {
          const fn = table.called(node);
          if (!fn || !selection.has(fn.domain, fn.name)) return undefined;
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
            label,
          );
          if (replaced) calls += 1 + callee.calls;
          return replaced;
        });
        return { nodes: out, calls };
      };

      const reached = reachableFunctions(model);
      for (const f of graph.order) {
        if (!reached.has(f)) {
          done.set(f, { fn: f, calls: 0 });
          continue;
        }
        const unit = makeUnit(functionWhere(f), f, functionOpsets(f, modelOpsets), types);
        const r = inlineIn(f.nodes, unit, functionWhere(f));
        let g = f;
        if (r.nodes) {
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
      const r = inlineIn(model.graph.nodes, main, "graph");
      if (notes.list.some((n) => n.level === "error")) return { ok: false, notes: notes.list };

      const functions = model.functions.map((f) => done.get(f)!.fn);
      const functionsChanged = functions.some((g, i) => g !== model.functions[i]);
      if (!r.nodes && !functionsChanged && main.added.size === 0)
        return { ok: true, model, modified: false, notes: notes.list };
      const out: Model = {
        ...model,
        graph: r.nodes ? { ...model.graph, nodes: r.nodes } : model.graph,
        functions: functionsChanged ? functions : model.functions,
        opsetImports: main.added.size
          ? withImports(model.opsetImports, main.added)
          : model.opsetImports,
      };
      // Calls inlined: those in the graph, and those inside the functions the graph still calls.
      let calls = r.calls;
      for (const f of reachableFunctions(out))
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

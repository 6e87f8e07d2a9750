// One walk over a model that both checks it and infers the types of its values: graphs in
// dependency order with outer scopes visible to subgraphs, every node against its schema
// (or model-local function), types propagated from inputs, initializers and value_info.
// It never changes the model.
//
// The jobs, one module each: the values of a graph in scope (scope.ts), the model as a whole
// (model.ts), calls of local functions (instantiate.ts), graphs and their order (walk.ts), one
// node (node.ts), and the memo of nodes alike (memo.ts). The Analyzer holds what they share.

import type { FunctionTable } from "../ir/functions.js";
import type { Function, Graph, Model, Type } from "../ir/types.js";
import { modelFunctions, shadowedWarning } from "./functions.js";
import { Instantiator } from "./instantiate.js";
import { MemoKeys, type MemoEntry } from "./memo.js";
import {
  analyzeFunction,
  checkDuplicateFunctions,
  checkFunctionCycles,
  checkIrVersion,
  checkedOpsets,
} from "./model.js";
import type { CheckWarning, OpRegistry, Problem } from "./report.js";
import * as walk from "./walk.js";

export interface AnalyzeOptions {
  registry: OpRegistry;
}

export interface Analysis {
  problems: Problem[];
  /** What is valid but surely not meant (a local function an operator shadows). */
  warnings: CheckWarning[];
  /** Inferred (and declared) types of the values of each graph, subgraph and function body. */
  types: Map<Graph | Function, Map<string, Type>>;
}

/** One analysis of one model: what its steps share. */
export class Analyzer {
  readonly problems: Problem[] = [];
  readonly types = new Map<Graph | Function, Map<string, Type>>();
  /**
   * While a call's body is instantiated: each scope whose types it records, with its types
   * before (see Instantiator.agree), so that the scopes it changed are known without a copy of
   * every scope's types.
   */
  journal: Map<Graph | Function, Map<string, Type> | undefined> | undefined;
  readonly functions: FunctionTable;
  /** Analyses of nodes that reported nothing, by memo key (see MemoKeys.memoKey). */
  readonly memo = new Map<string, MemoEntry>();
  readonly keys = new MemoKeys();
  readonly inst = new Instantiator(this);
  readonly registry: OpRegistry;
  /** A warning per op that resolved to a runtime's own registration (runtimeOpWarning). */
  readonly runtimeOps = new Map<string, CheckWarning>();

  constructor(
    readonly model: Model,
    opts: AnalyzeOptions,
  ) {
    this.registry = opts.registry;
    this.functions = modelFunctions(model, this.registry);
  }

  run(): Analysis {
    const m = this.model;
    const opsets = checkedOpsets(m.opsetImports, "model", this.registry, this.problems);
    const irWarnings: CheckWarning[] = [];
    checkIrVersion(m, opsets, this.problems, irWarnings);
    checkDuplicateFunctions(this.functions, this.problems);
    checkFunctionCycles(this.functions, this.problems);
    for (const f of m.functions) analyzeFunction(this, f, opsets);
    this.analyzeGraph(m.graph, undefined, { where: "", opsets, sink: this.problems, record: true });
    const warnings = [
      ...irWarnings,
      ...this.functions.shadowed.map(shadowedWarning),
      ...this.runtimeOps.values(),
    ];
    return { problems: this.problems, warnings, types: this.types };
  }

  /** Records the types of a scope (and, while a body is instantiated, what they were before). */
  setTypes(owner: Graph | Function, types: Map<string, Type>): void {
    const j = this.journal;
    if (j && !j.has(owner)) j.set(owner, this.types.get(owner));
    this.types.set(owner, types);
  }

  /** Checks a graph; returns the types of its outputs (see walk.ts). */
  analyzeGraph(...args: Rest<typeof walk.analyzeGraph>): (Type | undefined)[] {
    return walk.analyzeGraph(this, ...args);
  }

  /** Checks a function body; returns the types of its outputs (see walk.ts). */
  analyzeBody(...args: Rest<typeof walk.analyzeBody>): (Type | undefined)[] {
    return walk.analyzeBody(this, ...args);
  }
}

/** The parameters of a step after the analyzer. */
type Rest<F> = F extends (an: Analyzer, ...rest: infer R) => unknown ? R : never;

/** Checks and infers a whole model. */
export function analyzeModel(model: Model, opts: AnalyzeOptions): Analysis {
  return new Analyzer(model, opts).run();
}

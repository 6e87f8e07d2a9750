// Calls of model-local functions: the body instantiated with the call's input types and
// attributes gives the call's output types. Instantiations are cached by (function, input
// types, attributes), and what a body gets wrong on its own is told apart from what it gets
// wrong only for this call.

import { functionKey, functionWhere } from "../ir/functions.js";
import { functionOpsets } from "../ir/opsets.js";
import type { Attribute, Function, Graph, Node, Type } from "../ir/types.js";
import type { Analyzer } from "./analyze.js";
import { formatProblem, type Problem, type ProblemCode } from "./report.js";
import { isTensor, joinTypes, mergeTypes } from "./types.js";
import { problemKey, type Ctx } from "./scope.js";

/**
 * How deep calls of local functions are instantiated for their callers' types: a call nested
 * deeper (a chain of calls, 64 levels below the graph or a function checked alone) is not, and
 * its outputs stay untyped (docs/semantics.md, "Nesting").
 */
export const MAX_CALL_DEPTH = 64;

export class Instantiator {
  private readonly instCache = new Map<
    string,
    { outs: (Type | undefined)[]; problems: Problem[] }
  >();
  private readonly standalone = new Map<Function, Set<string>>();
  /** The functions being instantiated now: a node inside one gets no memo key. */
  private readonly stack = new Set<Function>();
  /**
   * Per function body (and subgraph of one): the types every instantiation so far agrees on
   * (of a tensor whose shape they disagree on, its element type and the dims they share),
   * recorded as the body's types, so that a body's values are typed by its calls (at any depth:
   * a call inside a body is instantiated with the types its caller's instantiation gives).
   */
  private readonly called = new Map<Graph | Function, Map<string, Type>>();
  /** The types of each such scope from the body alone (before any instantiation). */
  private readonly base = new Map<Graph | Function, Map<string, Type> | undefined>();

  constructor(private readonly an: Analyzer) {}

  /** Whether a function body is being instantiated for a call now. */
  get active(): boolean {
    return this.stack.size > 0;
  }

  /** Output types of a call to a model-local function, from its body instantiated with the call's types. */
  instantiate(
    f: Function,
    node: Node,
    inputTypes: (Type | undefined)[],
    ctx: Ctx,
    attr: (n: string) => Attribute | undefined,
    report: (code: ProblemCode, message: string) => void,
  ): (Type | undefined)[] {
    // Recursion is refused by the checker (function-cycle); calls nested deeper than
    // MAX_CALL_DEPTH are not instantiated: their outputs stay untyped, and the walk's stack
    // stays bounded however long a chain of calls is.
    if (this.stack.has(f) || this.stack.size >= MAX_CALL_DEPTH) return [];
    const env = new Map<string, Attribute>();
    for (const a of f.attributeProtos) env.set(a.name, a);
    for (const a of node.attributes) {
      const r = attr(a.name);
      if (r) env.set(a.name, r);
    }
    let key: string | undefined;
    try {
      key = JSON.stringify(
        [
          functionKey(f.domain, f.name, f.overload),
          inputTypes,
          [...env.values()].map((a) => [a.name, a.type, a.value]),
        ],
        (_k, v) => {
          if (typeof v === "bigint") return v.toString();
          if (v && typeof v === "object" && !Array.isArray(v) && "nodes" in v)
            throw new Error("graph");
          if (v && typeof v === "object" && "dataType" in v && "dims" in v)
            throw new Error("tensor");
          return v;
        },
      );
    } catch {
      key = undefined;
    }
    let inst = key !== undefined ? this.instCache.get(key) : undefined;
    if (!inst) {
      const sink: Problem[] = [];
      this.stack.add(f);
      // A call typed by the model (in the main graph, or in a body instantiated for a call) types
      // the body; one in a function checked on its own, with no caller, does not.
      const typed = ctx.fn === undefined || ctx.env !== undefined;
      const outer = this.an.journal;
      const changed = new Map<Graph | Function, Map<string, Type> | undefined>();
      if (typed) this.an.journal = changed;
      const outs = this.an.analyzeBody(f, inputTypes, {
        where: functionWhere(f),
        opsets: functionOpsets(f, ctx.opsets),
        fn: f,
        env,
        sink,
        record: typed,
      });
      this.stack.delete(f);
      if (typed) {
        this.an.journal = outer;
        // What this instantiation changed is changed for the one around it too.
        if (outer) for (const [o, was] of changed) if (!outer.has(o)) outer.set(o, was);
        this.agree(changed);
      }
      // What the body gets wrong only with this call's types and attributes is the call's problem.
      const own = this.standaloneProblems(f, ctx);
      const problems = sink.filter((p) => !own.has(problemKey(p)));
      inst = { outs, problems };
      if (key !== undefined) this.instCache.set(key, inst);
    }
    const first = inst.problems[0];
    if (first) {
      const n = inst.problems.length;
      const more = n > 1 ? ` (and ${n - 1} more in the body)` : "";
      report(first.code, `with this call's types and attributes, ${formatProblem(first)}${more}`);
    }
    return inst.outs;
  }

  /**
   * After an instantiation recorded its scopes' types (`changed`: each with its types before):
   * each scope keeps the types
   * all its instantiations agree on. A tensor they disagree on only in its shape keeps its
   * element type and the dims they share (with what the body alone knows of it); any other
   * value they disagree on keeps its type of the body alone (the standalone analysis), if any.
   */
  private agree(changed: Map<Graph | Function, Map<string, Type> | undefined>): void {
    const types = this.an.types;
    for (const [owner, was] of changed) {
      const now = types.get(owner);
      if (now === was || now === undefined) continue;
      const seen = this.called.get(owner);
      if (!seen) {
        // The first instantiation: its types, over those of the body alone.
        const merged = new Map(was ?? []);
        for (const [k, v] of now) merged.set(k, v);
        this.base.set(owner, was);
        this.called.set(owner, merged);
        types.set(owner, merged);
        continue;
      }
      for (const [k, v] of seen) {
        const t = now.get(k);
        if (t === v || (t !== undefined && sameType(t, v))) continue;
        const alone = this.base.get(owner)?.get(k);
        const joined =
          isTensor(t) && isTensor(v) && t.elemType === v.elemType ? joinTypes(v, t) : undefined;
        const both = joined && alone ? mergeTypes(alone, joined) : undefined;
        const best = both && !both.conflict ? both.type : (alone ?? joined);
        if (best === undefined) seen.delete(k);
        else seen.set(k, best);
      }
      types.set(owner, seen);
    }
  }

  /** Problems of a function body on its own (no caller), as keys; computed once per function. */
  private standaloneProblems(f: Function, ctx: Ctx): Set<string> {
    let keys = this.standalone.get(f);
    if (!keys) {
      const sink: Problem[] = [];
      keys = new Set<string>();
      this.standalone.set(f, keys);
      const wasActive = this.stack.has(f);
      this.stack.add(f);
      this.an.analyzeBody(f, undefined, {
        where: functionWhere(f),
        opsets: functionOpsets(f, ctx.opsets),
        fn: f,
        sink,
        record: false,
      });
      if (!wasActive) this.stack.delete(f);
      for (const p of sink) keys.add(problemKey(p));
    }
    return keys;
  }
}

/** Whether two types are the same (plain data: compared as JSON). */
function sameType(a: Type, b: Type): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

// What the expansion passes share: their options, which ops the user selected, the model's local
// functions by key, opset maps, and a unit (a graph with its subgraphs, or a function body: where
// calls are replaced, with its names, types and constants).

import { OnnxError, UnknownTypeError } from "../errors.js";
import { conversionError, convertModel } from "../convert/index.js";
import { NameScope } from "../ir/graph.js";
import { subgraphsOf } from "../ir/visit.js";
import type { Function, Graph, Model, Node, Type } from "../ir/types.js";
import type { Note, PassContext } from "../passes/pass.js";
import type { SchemaRegistry } from "../schema/registry.js";
import { OpSet, type OpSelector } from "./select.js";

/**
 * A model converted to an opset of ai.onnx (the converter's pass, as a function): the model, or,
 * as a value, why a step is blocked.
 */
export type OpsetConverter = (model: Model, opset: number, ctx: PassContext) => Converted;

export type Converted = { model: Model } | Blocked;

/** A conversion the converter refused (a blocked step): what it says. */
export interface Blocked {
  blocked: string;
}

/** A call's replacement: nodes, or a conversion it needed that is blocked (nothing: kept). */
export type Replacement = Node[] | Blocked | undefined;

export interface ExpandOptions {
  /** Expand only these ops (function ops and local functions named here). */
  only?: OpSelector[];
  /** Expand every function op but these. */
  keep?: OpSelector[];
  /**
   * A backend's op list: expand exactly the ops it lacks, and fail (naming every node) when
   * something it lacks cannot be expanded.
   */
  targetOps?: OpSelector[];
  /**
   * What is left that the target lacks and cannot be expanded: an error (the default, as
   * `--target-ops` promises), a warning naming it (`expand --target`: `check --target` reports
   * it), or nothing (`lower`: its final report names what remains after the last folding, where
   * a warning here would name ops that fold away).
   */
  targetResidue?: "error" | "warning" | "none";
  /**
   * A call whose body cannot be built for it (a builder's "no body here": GroupQueryAttention
   * with smooth_softmax) is left as it is with a warning, not an error (`lower`: the target
   * report then names it).
   */
  leaveUnbuilt?: boolean;
  /** Allow loops (Scan) where a body has a loop-free form (see BodyContext.preferLoops). */
  preferLoops?: boolean;
  /** See BodyContext.standardQuantOps (default true). */
  standardQuantOps?: boolean;
  /**
   * Lowers older versions and bodies written for other opsets (default: the opset converter,
   * src/convert; null: none, and such nodes are reported and left as they are).
   */
  converter?: OpsetConverter | null;
  /**
   * Most nodes the result may have, counted before any inlining (default 10,000,000; bounds.ts).
   */
  maxNodes?: number;
  /**
   * Most bytes the result may take, estimated from its node count; the budget is the smaller of
   * this and a share of V8's heap limit (bounds.ts).
   */
  maxMemory?: number;
  /**
   * Record where each node put in came from (default true; src/inline/origin.ts): on the node
   * from IR 10, else in the model's table. false: no records.
   */
  origin?: boolean;
  /**
   * Leave the records on the nodes at the end (default false): for a pipeline that converts the
   * result afterwards and places them itself, for the output's IR version.
   */
  deferOrigins?: boolean;
}

/** The opset converter, all or nothing: a blocked step names the first node, as a value. */
export const convertOpset: OpsetConverter = (model, opset, ctx) => {
  // Bodies are converted as they are: nothing in them is lowered (the expander does that).
  const r = convertModel(model, opset, { registry: ctx.registry });
  return r.model ? { model: r.model } : { blocked: conversionError(r).message };
};

/** Which ops the user asked to expand: --only, --keep, and what a target op list lacks. */
export class Selection {
  readonly only?: OpSet;
  readonly keep?: OpSet;
  readonly target?: OpSet;

  constructor(options: ExpandOptions, registry: SchemaRegistry) {
    if (options.only) this.only = new OpSet(options.only, registry);
    if (options.keep) this.keep = new OpSet(options.keep, registry);
    if (options.targetOps) this.target = new OpSet(options.targetOps, registry);
  }

  has(domain: string, op: string, since?: number): boolean {
    if (this.only && !this.only.has(domain, op, since)) return false;
    if (this.keep && this.keep.has(domain, op, since)) return false;
    if (this.target && this.target.has(domain, op, since)) return false;
    return true;
  }
}

export { FunctionTable, functionLabel as fname, functionWhere } from "../ir/functions.js";
export { functionOpsets, opsetMap, withOpsets as withImports } from "../ir/opsets.js";

/** A graph with its subgraphs, or a local function: where calls are expanded. */
export interface Unit {
  where: string;
  /** The key (functionKey) of the local function the unit is in; none: the main graph. */
  function?: string;
  opsets: Map<string, number>;
  /** Imports the bodies put in need and the unit lacked. */
  added: Map<string, number>;
  scope: () => NameScope;
  typeOf: (name: string) => Type | undefined;
  /** Constants (initializers) visible to the unit's nodes, for the converter. */
  constant: (name: string) => Graph["initializers"][number] | undefined;
}

export type ScopeTypes = Map<Graph | Function, Map<string, Type>>;

/** A unit over `owner`, typed by `types` (the checker's per-scope types, computed when asked). */
export function makeUnit(
  where: string,
  owner: Graph | Function,
  opsets: Map<string, number>,
  types: () => ScopeTypes,
): Unit {
  let scope: NameScope | undefined;
  let merged: Map<string, Type> | undefined;
  let consts: Map<string, Graph["initializers"][number]> | undefined;
  const typeMap = (): Map<string, Type> => {
    if (merged) return merged;
    const all = types();
    const own = all.get(owner) ?? new Map<string, Type>();
    // Subgraphs' values join the owner's (names are unique across them); without subgraphs
    // the owner's map is used as it is.
    let copy: Map<string, Type> | undefined;
    for (const g of subgraphsOf(owner))
      for (const [k, v] of all.get(g) ?? []) {
        copy ??= new Map(own);
        if (!copy.has(k)) copy.set(k, v);
      }
    merged = copy ?? own;
    return merged;
  };
  return {
    where,
    opsets,
    added: new Map(),
    scope: () => (scope ??= new NameScope(owner)),
    typeOf: (name) => typeMap().get(name),
    constant: (name) => {
      if (!consts) {
        consts = new Map();
        if ("initializers" in owner) for (const t of owner.initializers) consts.set(t.name, t);
      }
      return consts.get(name);
    },
  };
}

/** Notes of one run, each keyed note given once. */
export class Notes {
  readonly list: Note[] = [];
  private readonly seen = new Set<string>();

  push(note: Note): void {
    this.list.push(note);
  }

  once(key: string, note: Note): void {
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push(note);
  }
}

/** The info note of an expansion: "expanded N calls". */
export function expandedNote(calls: number): Note {
  return { level: "info", message: `expanded ${calls} call${calls === 1 ? "" : "s"}`, calls };
}

/** A call that could not be replaced, as a value: the error's code and text. */
export interface CallFailure {
  code: OnnxError["code"];
  message: string;
  /** The body needs a type nobody knows (UnknownTypeError): valid as it stands, kept. */
  unknownType: boolean;
}

/** What replacing one call came to: nodes, nothing to do, a blocked conversion, or a failure. */
export type CallOutcome = Replacement | { failure: CallFailure };

/** `f`'s replacement, or the OnnxError it threw as a value (other errors are bugs: thrown on). */
export function attempt(f: () => Replacement): CallOutcome {
  try {
    return f();
  } catch (e) {
    if (!(e instanceof OnnxError)) throw e;
    return {
      failure: { code: e.code, message: e.message, unknownType: e instanceof UnknownTypeError },
    };
  }
}

/** Where a note of a call is: its label, and the key of the local function it is in (if any). */
export interface CallSite {
  label: () => string;
  function?: string;
}

/**
 * A call's outcome as notes: a conversion the converter blocks is a warning ("left as it is")
 * unless the user named the op (--only), a failure an error; either way a note on the node, and
 * the node is kept (undefined).
 */
export function noteOutcome(
  notes: Notes,
  named: boolean,
  r: CallOutcome,
  site: CallSite,
  leaveUnbuilt = false,
): Node[] | undefined {
  if (r === undefined || Array.isArray(r)) return r;
  const at = {
    where: site.label(),
    ...(site.function !== undefined ? { function: site.function } : {}),
  };
  if ("failure" in r) {
    const e = r.failure;
    // A body that needs a type nobody knows (a value from an op of an unknown domain, say): the
    // call is valid ONNX as it stands, so it is kept, with the cause, unless asked for by name.
    if (e.unknownType && !named)
      notes.push({
        level: "warning",
        ...at,
        message: `left as it is: ${e.message}, which is unknown here (computed by an op this tool does not know, or not declared: give it a type in value_info to expand it)`,
      });
    else if (leaveUnbuilt && e.code === "E_UNSUPPORTED")
      notes.push({ level: "warning", ...at, message: `left as it is: ${e.message}` });
    else notes.push({ level: "error", ...at, message: e.message });
    return undefined;
  }
  // A body the converter cannot bring to this opset (it needs an op the opset lacks): the call
  // is not expandable here; under --target-ops the target check then reports it if the backend
  // lacks it.
  notes.push({
    level: named ? "error" : "warning",
    ...at,
    message: named ? r.blocked : `left as it is: ${r.blocked}`,
  });
  return undefined;
}

/** noteOutcome of `f`, its OnnxError taken as a failure. */
export function noteFailures(
  notes: Notes,
  named: boolean,
  f: () => Replacement,
  site: CallSite,
  leaveUnbuilt = false,
): Node[] | undefined {
  return noteOutcome(notes, named, attempt(f), site, leaveUnbuilt);
}

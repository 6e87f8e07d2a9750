// What the checker knows inside one graph or function body: the values defined there (types,
// constant values, known shape values, how each was defined), the enclosing graph's scope, and
// how the walk is reporting (Ctx).

import { nodeLabel } from "../errors.js";
import type { Attribute, Dim, Function, Node, Type } from "../ir/types.js";
import type { ConstVal } from "./consts.js";
import type { Problem } from "./report.js";

export class Scope {
  readonly types = new Map<string, Type | undefined>();
  readonly consts = new Map<string, ConstVal>();
  readonly syms = new Map<string, Dim[]>();
  /** How each value not defined by a node was defined, for messages. */
  readonly origin = new Map<string, string>();
  /** The nodes of the graph or function body, and the order they are analysed in (none: as stored). */
  nodes?: Node[];
  order?: number[];
  /** Nodes are being analysed in their stored order (see analyzeInOrder in walk.ts). */
  inOrder = false;
  /** Set, then, when a node reads a value it or a later node defines, or defines one twice. */
  misordered = false;
  private definers: Map<string, { node: Node; index: number }> | undefined;
  private definersOrder: number[] | undefined;
  constructor(readonly parent?: Scope) {}
  /** How a value was defined: its origin, else the first node in analysis order to output it. */
  originOf(name: string): string | { node: Node; index: number } | undefined {
    const o = this.origin.get(name);
    if (o !== undefined || !this.nodes) return o;
    // The first definer of each node output in analysis order, found in one pass when the first
    // message needs one (a model may have thousands of duplicates).
    if (!this.definers || this.definersOrder !== this.order) {
      const definers = new Map<string, { node: Node; index: number }>();
      const order = this.order;
      for (let j = 0; j < this.nodes.length; j++) {
        const i = order ? order[j]! : j;
        const node = this.nodes[i]!;
        for (const out of node.outputs)
          if (!definers.has(out)) definers.set(out, { node, index: i });
      }
      this.definers = definers;
      this.definersOrder = order;
    }
    return this.definers.get(name);
  }

  /** The scope (this or an enclosing one) that defines the name. */
  owner(name: string): Scope | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.types.has(name)) return s;
    return undefined;
  }
  has(name: string): boolean {
    return this.types.has(name) || (this.parent?.has(name) ?? false);
  }
  type(name: string): Type | undefined {
    return this.types.has(name) ? this.types.get(name) : this.parent?.type(name);
  }
  constOf(name: string): ConstVal | undefined {
    return this.types.has(name) ? this.consts.get(name) : this.parent?.constOf(name);
  }
  symOf(name: string): Dim[] | undefined {
    return this.types.has(name) ? this.syms.get(name) : this.parent?.symOf(name);
  }
}

/** How a value was defined, in words (for duplicate-value messages). */
function originLabel(o: string | { node: Node; index: number } | undefined): string {
  return typeof o === "object" ? `an output of ${nodeLabel(o.node, o.index)}` : String(o);
}

/** How the walk is going in one graph or function body. */
export interface Ctx {
  /** Prefix naming the graph or function for `where` ("" for the main graph). */
  where: string;
  opsets: Map<string, number>;
  /** The function whose body this is. */
  fn?: Function;
  /** When a function body is instantiated for a call: the caller's attribute values. */
  env?: Map<string, Attribute>;
  sink: Problem[];
  /** Record inferred types (off for instantiations). */
  record: boolean;
}

/**
 * Defines a value in the scope, reporting a name defined twice, or one that hides a value of an
 * enclosing graph. `origin` says how it is defined (a phrase, or the node whose output it is).
 */
export function define(
  scope: Scope,
  name: string,
  type: Type | undefined,
  origin: string | { node: Node; index: number },
  ctx: Ctx,
  where: string | { where(): string },
): void {
  if (name === "") return;
  if (scope.types.has(name)) {
    if (scope.inOrder && typeof origin === "object") scope.misordered = true;
    ctx.sink.push({
      code: "duplicate-value",
      where: typeof where === "string" ? where : where.where(),
      message: `value '${name}' is defined twice: as ${originLabel(scope.originOf(name))} and as ${originLabel(origin)}`,
    });
    return;
  }
  if (scope.parent?.has(name)) {
    ctx.sink.push({
      code: "duplicate-value",
      where: typeof where === "string" ? where : where.where(),
      message: `value '${name}' (${originLabel(origin)}) has the name of a value of an enclosing graph; names must be unique`,
    });
  }
  scope.types.set(name, type);
  // A node's outputs are found again when a message needs them (see Scope.originOf).
  if (typeof origin === "string") scope.origin.set(name, origin);
}

/** A problem as a key, to tell problems apart. */
export const problemKey = (p: Problem) => `${p.code}\u0000${p.where}\u0000${p.message}`;

// Structure of one graph (or function body): who produces and who consumes each value,
// topological order, and fresh names.

import { OnnxError, nodeLabel } from "../errors.js";
import { hasGraphAttribute, nodeGraphs, subgraphsOf } from "./visit.js";
import type { Function, Graph, Node } from "./types.js";

export interface Use {
  node: Node;
  index: number;
  /** Input slot of the node; -1 for a use inside one of the node's subgraphs (outer-scope value). */
  slot: number;
}

/** Constant-time lookups of producers and consumers. Rebuild after edits. */
export class GraphIndex {
  readonly producer = new Map<string, { node: Node; index: number; slot: number }>();
  readonly consumers = new Map<string, Use[]>();

  constructor(readonly owner: Graph | Function) {
    owner.nodes.forEach((node, index) => {
      node.outputs.forEach((name, slot) => {
        if (name !== "") this.producer.set(name, { node, index, slot });
      });
      node.inputs.forEach((name, slot) => {
        if (name !== "") this.use(name, { node, index, slot });
      });
      for (const name of outerNamesUsedBy(node)) this.use(name, { node, index, slot: -1 });
    });
  }

  private use(name: string, u: Use): void {
    let list = this.consumers.get(name);
    if (!list) this.consumers.set(name, (list = []));
    list.push(u);
  }

  usesOf(name: string): Use[] {
    return this.consumers.get(name) ?? [];
  }
}

/** Names a node's subgraphs read from enclosing scopes (not defined inside them). */
export function outerNamesUsedBy(node: Node): Set<string> {
  const out = new Set<string>();
  if (node.attributes.length && hasGraphAttribute(node)) collectFree(nodeGraphs(node), out);
  return out;
}

/**
 * Names a graph uses that it does not define itself (inputs, initializers, node outputs): what
 * it reads from outside, its subgraphs' reads included. The one answer to that question: passes
 * and builders ask it here.
 */
export function freeNames(g: Graph): Set<string> {
  const out = new Set<string>();
  collectFree([g], out);
  return out;
}

/** A graph being read by collectFree: what it defines, and the graph around it. */
interface FreeFrame {
  g: Graph;
  defined: Set<string>;
  parent: FreeFrame | undefined;
  i: number;
  subs: Graph[] | undefined;
  k: number;
}

/**
 * Adds to `out` each name the graphs read, at any depth, that no graph between the reader and
 * the outermost defines, in the order met (each node's inputs, then its subgraphs', then the
 * graph's outputs). Keeps its own stack: nesting may be deeper than the call stack.
 */
function collectFree(graphs: Graph[], out: Set<string>): void {
  const open = (g: Graph, parent: FreeFrame | undefined): FreeFrame => {
    const defined = new Set<string>();
    for (const v of g.inputs) defined.add(v.name);
    for (const t of g.initializers) defined.add(t.name);
    for (const x of g.sparseInitializers) defined.add(x.values.name);
    for (const n of g.nodes) for (const o of n.outputs) defined.add(o);
    return { g, defined, parent, i: 0, subs: undefined, k: 0 };
  };
  const need = (f: FreeFrame, name: string) => {
    if (name === "") return;
    for (let s: FreeFrame | undefined = f; s; s = s.parent) if (s.defined.has(name)) return;
    out.add(name);
  };
  for (const root of graphs) {
    const stack: FreeFrame[] = [open(root, undefined)];
    while (stack.length) {
      const f = stack[stack.length - 1]!;
      if (f.subs) {
        if (f.k < f.subs.length) {
          stack.push(open(f.subs[f.k++]!, f));
          continue;
        }
        f.subs = undefined;
      }
      if (f.i < f.g.nodes.length) {
        const n = f.g.nodes[f.i++]!;
        for (const x of n.inputs) need(f, x);
        if (n.attributes.length && hasGraphAttribute(n)) {
          f.subs = nodeGraphs(n);
          f.k = 0;
        }
        continue;
      }
      for (const o of f.g.outputs) need(f, o.name);
      stack.pop();
    }
  }
}

/**
 * Node indices in an order where every node comes after the producers of its inputs; nodes
 * already in order keep their order. A cycle is an error naming its nodes.
 */
export function topologicalOrder(owner: Graph | Function): number[] {
  const nodes = owner.nodes;
  const inOrder = alreadyOrdered(nodes);
  if (inOrder) return inOrder;
  const index = new GraphIndex(owner);
  const pending = new Array<number>(nodes.length).fill(0);
  const dependents: number[][] = nodes.map(() => []);
  nodes.forEach((node, i) => {
    const deps = new Set<number>();
    for (const name of [...node.inputs, ...outerNamesUsedBy(node)]) {
      const p = name === "" ? undefined : index.producer.get(name);
      if (p && !deps.has(p.index)) {
        deps.add(p.index);
        dependents[p.index]!.push(i);
      }
    }
    pending[i] = deps.size;
  });
  // A min-heap keeps the original order among ready nodes: the result is stable.
  const ready: number[] = [];
  const push = (v: number) => {
    ready.push(v);
    let i = ready.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (ready[p]! <= ready[i]!) break;
      [ready[p], ready[i]] = [ready[i]!, ready[p]!];
      i = p;
    }
  };
  const pop = (): number => {
    const top = ready[0]!;
    const last = ready.pop()!;
    if (ready.length) {
      ready[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < ready.length && ready[l]! < ready[m]!) m = l;
        if (r < ready.length && ready[r]! < ready[m]!) m = r;
        if (m === i) break;
        [ready[m], ready[i]] = [ready[i]!, ready[m]!];
        i = m;
      }
    }
    return top;
  };
  pending.forEach((p, i) => p === 0 && push(i));
  const order: number[] = [];
  while (ready.length) {
    const i = pop();
    order.push(i);
    for (const d of dependents[i]!) if (--pending[d]! === 0) push(d);
  }
  if (order.length !== nodes.length) {
    const stuck = nodes.map((n, i) => (pending[i]! > 0 ? nodeLabel(n, i) : "")).filter(Boolean);
    const shown =
      stuck.slice(0, 8).join(", ") + (stuck.length > 8 ? `, and ${stuck.length - 8} more` : "");
    throw new OnnxError(
      "E_MODEL",
      `the graph has a cycle through ${shown}`,
      "name" in owner && owner.name ? `graph '${owner.name}'` : undefined,
    );
  }
  return order;
}

/**
 * The identity order when every node's producers (the last node writing each name, as in
 * GraphIndex) come before it — the order topologicalOrder gives then — else undefined. One pass
 * and no per-node allocation: most graphs are stored in order.
 */
function alreadyOrdered(nodes: Node[]): number[] | undefined {
  const producer = new Map<string, number>();
  for (let i = 0; i < nodes.length; i++)
    for (const o of nodes[i]!.outputs) if (o !== "") producer.set(o, i);
  const before = (name: string, i: number) => {
    if (name === "") return true;
    const p = producer.get(name);
    return p === undefined || p < i;
  };
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    for (const name of n.inputs) if (!before(name, i)) return undefined;
    if (n.attributes.length)
      for (const name of outerNamesUsedBy(n)) if (!before(name, i)) return undefined;
  }
  const order = new Array<number>(nodes.length);
  for (let i = 0; i < nodes.length; i++) order[i] = i;
  return order;
}

/** Sorts a graph's nodes topologically in place; returns whether the order changed. */
export function sortNodes(owner: Graph | Function): boolean {
  const order = topologicalOrder(owner);
  if (order.every((v, i) => v === i)) return false;
  owner.nodes = order.map((i) => owner.nodes[i]!);
  return true;
}

/** Every name a graph or function uses (inputs, outputs, initializers, values, node names), subgraphs too. */
function forEachName(owner: Graph | Function, f: (name: string) => void): void {
  // Plain loops: this runs over every name of a model, once per scope that needs fresh names.
  const own = (g: Graph | Function) => {
    if ("initializers" in g) {
      for (const v of g.inputs) f(v.name);
      for (const v of g.outputs) f(v.name);
      for (const t of g.initializers) f(t.name);
      for (const v of g.valueInfo) f(v.name);
    } else {
      for (const n of g.inputs) f(n);
      for (const n of g.outputs) f(n);
    }
    for (const n of g.nodes) {
      for (const i of n.inputs) f(i);
      for (const o of n.outputs) f(o);
      if (n.name) f(n.name);
    }
  };
  own(owner);
  if (owner.nodes.some(hasGraphAttribute)) for (const g of subgraphsOf(owner)) own(g);
}

/** Adds to `set` every p for which `name` starts with p + "__". */
function addPrefixes(set: Set<string>, name: string): void {
  for (let i = name.indexOf("__"); i >= 0; i = name.indexOf("__", i + 1)) set.add(name.slice(0, i));
}

/** Whether names prefix + "__" + suffix are told apart by their suffix alone (see claimPrefix). */
export function isClaimSuffix(suffix: string): boolean {
  return suffix !== "" && suffix.charCodeAt(0) !== 95 /* _ */ && !suffix.includes("__");
}

/**
 * Hands out names not used anywhere in a scope. The set of used names is built only when a
 * lookup needs it: a caller that names everything it adds under a prefix nobody uses
 * (claimPrefix) never pays for it.
 */
export class NameScope {
  /**
   * The used names in two sets, each built when a lookup first needs it: names without "_" and
   * names with one. Fresh names made from a base with "_" (`node_axes`, `call__value`, and every
   * numbered `base_1`) can only meet the second, so a model whose own names mostly lack "_"
   * never pays for a set of all of them.
   */
  private plain: Set<string> | undefined;
  private under: Set<string> | undefined;
  private readonly owners: (Graph | Function)[] = [];
  private readonly counters = new Map<string, number>();
  /** Every p such that some name of the scope starts with p + "__"; built on the first claim. */
  private prefixes: Set<string> | undefined;
  /** Claimed names not yet in `under`: prefix, then the suffixes. */
  private readonly pendingPrefix: string[] = [];
  private readonly pendingSuffixes: (readonly string[])[] = [];

  constructor(owner?: Graph | Function) {
    if (owner) this.addAll(owner);
  }

  addAll(owner: Graph | Function): void {
    this.owners.push(owner);
    const { plain, under, prefixes } = this;
    if (plain) forEachName(owner, (n) => n.includes("_") || plain.add(n));
    if (under) forEachName(owner, (n) => n.includes("_") && under.add(n));
    if (prefixes) forEachName(owner, (n) => n.includes("__") && addPrefixes(prefixes, n));
  }

  /** The used names of the kind of `name` (with or without "_"), complete. */
  private names(name: string): Set<string> {
    if (!name.includes("_")) {
      let plain = this.plain;
      if (!plain) {
        const p = (plain = this.plain = new Set<string>());
        for (const o of this.owners) forEachName(o, (n) => n.includes("_") || p.add(n));
      }
      return plain;
    }
    return this.underscored();
  }

  private underscored(): Set<string> {
    let under = this.under;
    if (!under) {
      const u = (under = this.under = new Set<string>());
      for (const o of this.owners) forEachName(o, (n) => n.includes("_") && u.add(n));
    }
    const pending = this.pendingPrefix;
    if (pending.length) {
      for (let i = 0; i < pending.length; i++) {
        const p = `${pending[i]!}__`;
        for (const s of this.pendingSuffixes[i]!) under.add(p + s);
      }
      pending.length = 0;
      this.pendingSuffixes.length = 0;
    }
    return under;
  }

  private added(name: string): void {
    if (this.prefixes && name.includes("__")) addPrefixes(this.prefixes, name);
  }

  reserve(name: string): void {
    this.names(name).add(name);
    this.added(name);
  }

  has(name: string): boolean {
    return this.names(name).has(name);
  }

  /** A fresh name starting with `base`. */
  fresh(base: string): string {
    const used = this.names(base);
    // One hash lookup in the common case: adding grows the set only when the name was free.
    const size = used.size;
    if (used.add(base).size !== size) {
      this.added(base);
      return base;
    }
    const under = this.underscored();
    let i = this.counters.get(base) ?? 1;
    while (under.has(`${base}_${i}`)) i++;
    this.counters.set(base, i + 1);
    const name = `${base}_${i}`;
    under.add(name);
    this.added(name);
    return name;
  }

  /**
   * Claims the names prefix + "__" + s for each of `suffixes` when no name of the scope starts
   * with prefix + "__" (nor did a claim of the same prefix): then each is fresh, and is what
   * fresh() would have given for it, without a lookup. Every suffix must pass isClaimSuffix
   * (non-empty, no leading "_", no "__": then names of different prefixes never meet) and the
   * suffixes must differ. Returns false, claiming nothing, when the prefix is in use.
   */
  claimPrefix(prefix: string, suffixes: readonly string[]): boolean {
    let prefixes = this.prefixes;
    if (!prefixes) {
      const p = (prefixes = this.prefixes = new Set<string>());
      if (this.under) {
        for (const n of this.underscored()) if (n.includes("__")) addPrefixes(p, n);
      } else
        for (const o of this.owners) forEachName(o, (n) => n.includes("__") && addPrefixes(p, n));
    }
    const size = prefixes.size;
    if (prefixes.add(prefix).size === size) return false;
    if (this.under) for (const s of suffixes) this.under.add(`${prefix}__${s}`);
    else {
      this.pendingPrefix.push(prefix);
      this.pendingSuffixes.push(suffixes);
    }
    return true;
  }
}

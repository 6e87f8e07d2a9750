// Structure of one graph (or function body): who produces and who consumes each value,
// topological order, and fresh names.

import { OnnxError, nodeLabel } from "../errors.js";
import { attributeGraphs } from "./traverse.js";
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
  for (const a of node.attributes)
    for (const g of attributeGraphs(a)) for (const n of freeNames(g)) out.add(n);
  return out;
}

/** Names a graph uses that it does not define itself (inputs, initializers, node outputs). */
export function freeNames(g: Graph): Set<string> {
  const defined = new Set<string>();
  for (const v of g.inputs) defined.add(v.name);
  for (const t of g.initializers) defined.add(t.name);
  for (const s of g.sparseInitializers) defined.add(s.values.name);
  for (const n of g.nodes) for (const o of n.outputs) defined.add(o);
  const free = new Set<string>();
  const need = (name: string) => {
    if (name !== "" && !defined.has(name)) free.add(name);
  };
  for (const n of g.nodes) {
    n.inputs.forEach(need);
    for (const name of outerNamesUsedBy(n)) need(name);
  }
  for (const o of g.outputs) need(o.name);
  return free;
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

/** Hands out names not used anywhere in a scope. */
export class NameScope {
  private readonly used = new Set<string>();
  private readonly counters = new Map<string, number>();

  constructor(owner?: Graph | Function) {
    if (owner) this.addAll(owner);
  }

  addAll(owner: Graph | Function): void {
    // Plain loops: this runs over every name of a model, once per scope that needs fresh names.
    const used = this.used;
    if ("initializers" in owner) {
      for (const v of owner.inputs) used.add(v.name);
      for (const v of owner.outputs) used.add(v.name);
      for (const t of owner.initializers) used.add(t.name);
      for (const v of owner.valueInfo) used.add(v.name);
    } else {
      for (const n of owner.inputs) used.add(n);
      for (const n of owner.outputs) used.add(n);
    }
    for (const n of owner.nodes) {
      for (const i of n.inputs) used.add(i);
      for (const o of n.outputs) used.add(o);
      if (n.name) used.add(n.name);
      for (const a of n.attributes)
        if (a.type === "GRAPH" || a.type === "GRAPHS")
          for (const g of attributeGraphs(a)) this.addAll(g);
    }
  }

  reserve(name: string): void {
    this.used.add(name);
  }

  has(name: string): boolean {
    return this.used.has(name);
  }

  /** A fresh name starting with `base`. */
  fresh(base: string): string {
    // One hash lookup in the common case: adding grows the set only when the name was free.
    const size = this.used.size;
    if (this.used.add(base).size !== size) return base;
    let i = this.counters.get(base) ?? 1;
    while (this.used.has(`${base}_${i}`)) i++;
    this.counters.set(base, i + 1);
    const name = `${base}_${i}`;
    this.used.add(name);
    return name;
  }
}

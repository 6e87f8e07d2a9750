// Fresh symbols for unknown dimensions (an analysis option, off by default): an output dimension
// a rule cannot name gets a symbol of its own ("unk__N", as ONNX's inference writes them), so
// the values computed from it carry the knowledge that their dimensions are equal. Each symbol
// is minted for one value: a node that mints one is kept out of the checker's memo (a node
// alike it, with other data, would get the same symbol), and nodes of model-local function
// bodies mint none (their instantiations are shared by alike calls).

import type { Function, Graph, Model, Node, Type } from "../ir/types.js";
import { someGraphNode, subgraphsOf } from "../ir/visit.js";
import type { RuleCtx } from "./rules/common.js";

interface FreshState {
  next: number;
  /** Dimension names the model already uses (a fresh symbol must be none of them). */
  taken: Set<string>;
  /** Nodes of local function bodies (and their subgraphs). */
  inFunctions: WeakSet<Node>;
}

let state: FreshState | undefined;

/** Whether an analysis with fresh symbols is running (read by the rules on every node). */
export const freshActive = (): boolean => state !== undefined;

function namesOf(t: Type | undefined, out: Set<string>): void {
  if (!t) return;
  if (t.kind === "tensor" || t.kind === "sparse_tensor") {
    for (const d of t.shape ?? []) if (typeof d === "string") out.add(d);
  } else if (t.kind === "sequence" || t.kind === "optional") namesOf(t.elem, out);
  else if (t.kind === "map") namesOf(t.value, out);
}

/** The dim names of a graph's or body's interface and value_info and of its subgraphs'; its nodes into `nodes`. */
function visitGraph(g: Graph | Function, taken: Set<string>, nodes?: WeakSet<Node>): void {
  const own = (x: Graph) => {
    for (const v of [...x.inputs, ...x.outputs, ...x.valueInfo]) namesOf(v.type, taken);
  };
  if ("initializers" in g) own(g);
  else for (const v of g.valueInfo) namesOf(v.type, taken);
  for (const sub of subgraphsOf(g)) own(sub);
  if (nodes) someGraphNode(g, (n) => void nodes.add(n));
}

/** Runs `f` (an analysis of `model`) with fresh symbols minted for unknown dimensions. */
export function withFreshDims<T>(model: Model, f: () => T): T {
  const taken = new Set<string>();
  const inFunctions = new WeakSet<Node>();
  visitGraph(model.graph, taken);
  for (const fn of model.functions as Function[]) visitGraph(fn, taken, inFunctions);
  const outer = state;
  state = { next: 0, taken, inFunctions };
  try {
    return f();
  } finally {
    state = outer;
  }
}

function fresh(s: FreshState): string {
  for (;;) {
    const name = `unk__${s.next++}`;
    if (!s.taken.has(name)) return name;
  }
}

/** Gives each unknown dimension of the rule's outputs a fresh symbol (see the file's comment). */
export function mintFresh(c: RuleCtx): void {
  const s = state;
  if (!s || s.inFunctions.has(c.node)) return;
  let minted = false;
  for (let i = 0; i < c.outputs.length; i++) {
    const t = c.outputs[i];
    if (t?.kind !== "tensor" || !t.shape || !t.shape.includes(null)) continue;
    c.outputs[i] = { ...t, shape: t.shape.map((d) => (d === null ? fresh(s) : d)) };
    minted = true;
  }
  // A value past the node's outputs: never defined, but it keeps the node out of the memo.
  if (minted) c.outSyms[c.node.outputs.length] = [];
}

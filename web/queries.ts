// What the inspector's worker answers about one view beyond its layout: constant values with their
// statistics (only a summary leaves the worker), the operator's schema summary, search hits, the
// nodes a Check problem names, and the diff's pairing of nodes between the two sides.

import type { GraphDiff } from "../src/diff/index.js";
import { nodeLabel } from "../src/errors.js";
import { fromIRTensor } from "../src/interp/ir-tensors.js";
import { toFloat64 } from "../src/interp/tensor.js";
import { dtypeName } from "../src/ir/dtype.js";
import type { Tensor } from "../src/ir/tensor.js";
import type { Attribute, Function, Graph, Node } from "../src/ir/types.js";
import type { OpVersion } from "../src/schema/types.js";
import type { FindHit, SchemaSummary, ValueSummary } from "./protocol.js";

type Owner = Graph | Function;

const HEAD = 8;
export const MAX_HITS = 2000;

const num = (x: number) => (Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(6))));

function summarise(
  name: string,
  source: ValueSummary["source"],
  dtype: string,
  shape: number[],
  values: () => { head: string[]; numbers?: Float64Array },
): ValueSummary {
  const count = shape.reduce((a, b) => a * b, 1);
  const out: ValueSummary = { name, source, dtype, shape, count, head: [] };
  try {
    const v = values();
    out.head = v.head;
    const f = v.numbers;
    if (f && f.length) {
      let min = Infinity;
      let max = -Infinity;
      let sum = 0;
      for (let i = 0; i < f.length; i++) {
        const x = f[i]!;
        if (x < min) min = x;
        if (x > max) max = x;
        sum += x;
      }
      out.min = min;
      out.max = max;
      out.mean = sum / f.length;
    }
  } catch (e) {
    out.note = e instanceof Error ? e.message : String(e);
  }
  return out;
}

/** A tensor's summary: dtype, shape, the first elements, min/max/mean. */
export function tensorSummary(
  name: string,
  t: Tensor,
  source: ValueSummary["source"],
): ValueSummary {
  return summarise(name, source, dtypeName(t.dataType), [...t.dims], () => {
    if (!t.readable)
      throw new Error("the values are stored in a data file that was not opened with the model");
    const r = fromIRTensor(t);
    let numbers: Float64Array | undefined;
    try {
      numbers = toFloat64(r);
    } catch {
      numbers = undefined;
    }
    if (numbers) return { head: Array.from(numbers.subarray(0, HEAD), num), numbers };
    const data = r.data as ArrayLike<unknown>;
    return { head: Array.from({ length: Math.min(HEAD, data.length) }, (_, i) => String(data[i])) };
  });
}

const VALUE_ATTRS: Record<string, string> = {
  value_float: "FLOAT",
  value_floats: "FLOAT",
  value_int: "INT64",
  value_ints: "INT64",
  value_string: "STRING",
  value_strings: "STRING",
};

/** A Constant node's value. */
export function constantSummary(name: string, n: Node): ValueSummary | undefined {
  const a = n.attributes.find((x) => x.name.startsWith("value") || x.name === "sparse_value");
  if (!a) return undefined;
  if (a.type === "TENSOR" && a.value) return tensorSummary(name, a.value, "Constant");
  const list = listOf(a);
  if (!list) return summarise(name, "Constant", a.type.toLowerCase(), [], () => ({ head: [] }));
  const scalar = !a.name.endsWith("s");
  return summarise(
    name,
    "Constant",
    VALUE_ATTRS[a.name] ?? a.type,
    scalar ? [] : [list.length],
    () => {
      const numeric = list.every((x) => typeof x === "number" || typeof x === "bigint");
      return {
        head: list.slice(0, HEAD).map((x) => (typeof x === "number" ? num(x) : String(x))),
        numbers: numeric ? Float64Array.from(list, (x) => Number(x)) : undefined,
      };
    },
  );
}

function listOf(a: Attribute): unknown[] | undefined {
  switch (a.type) {
    case "FLOAT":
    case "INT":
    case "STRING":
      return [a.value];
    case "FLOATS":
    case "INTS":
    case "STRINGS":
      return Array.from(a.value as ArrayLike<unknown>);
    default:
      return undefined;
  }
}

/** The constant values a node reads (initializers, Constant outputs) and, for a Constant, its own. */
export function nodeValues(owner: Owner, index: number): ValueSummary[] {
  const n = owner.nodes[index]!;
  const out: ValueSummary[] = [];
  if (n.opType === "Constant" && (n.domain ?? "") === "") {
    const s = constantSummary(n.outputs[0] ?? "", n);
    if (s) out.push(s);
  }
  const inits = "initializers" in owner ? owner.initializers : [];
  const seen = new Set<string>();
  for (const x of n.inputs) {
    if (x === "" || seen.has(x)) continue;
    seen.add(x);
    const t = inits.find((i) => i.name === x);
    if (t) {
      out.push(tensorSummary(x, t, "initializer"));
      continue;
    }
    const p = owner.nodes.find((m) => m.opType === "Constant" && m.outputs[0] === x);
    const s = p && (p.domain ?? "") === "" ? constantSummary(x, p) : undefined;
    if (s) out.push(s);
  }
  return out;
}

/** The schema's summary of an operator version. */
export function schemaSummary(v: OpVersion): SchemaSummary {
  const text = (v.description ?? "").trim();
  const para = text.split(/\n\s*\n/)[0] ?? "";
  const description = para.length > 600 ? `${para.slice(0, 600)}…` : para;
  const formal = (f: OpVersion["inputs"][number]) => ({
    name: f.name,
    type: f.type,
    option: f.option,
  });
  return {
    domain: v.domain === "" ? "ai.onnx" : v.domain,
    name: v.name,
    since: v.since,
    description,
    inputs: v.inputs.map(formal),
    outputs: v.outputs.map(formal),
    attributes: v.attributes.map((a) => ({ name: a.name, type: a.type, required: a.required })),
    deprecated: !!v.deprecated,
    link: v.domain === "" ? v.name : `${v.domain}.${v.name}`,
  };
}

/**
 * Boxes of a view whose op, node name or a value name contains the query (case-insensitive):
 * nodes as `n<index>`, graph inputs and outputs as `i<k>` / `o<k>`. `groups` gives the keys of the
 * groups enclosing a node, outermost first.
 */
export function findInView(
  owner: Owner,
  query: string,
  groups: (index: number) => string[] = () => [],
): Omit<FindHit, "view" | "viewTitle">[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const hits: Omit<FindHit, "view" | "viewTitle">[] = [];
  const has = (s: string | undefined) => !!s && s.toLowerCase().includes(q);
  const names = (list: (string | { name: string })[]) =>
    list.map((x) => (typeof x === "string" ? x : x.name));
  names(owner.inputs).forEach((name, k) => {
    if (has(name)) hits.push({ key: `i${k}`, index: -1, label: name, match: "input", groups: [] });
  });
  for (let i = 0; i < owner.nodes.length && hits.length < MAX_HITS; i++) {
    const n = owner.nodes[i]!;
    const label = n.name ? `${n.opType} '${n.name}'` : `${n.opType} #${i}`;
    const match = has(n.opType)
      ? "op"
      : has(n.name)
        ? "node name"
        : n.inputs.some(has) || n.outputs.some(has)
          ? "value name"
          : "";
    if (match) hits.push({ key: `n${i}`, index: i, label, match, groups: groups(i) });
  }
  names(owner.outputs).forEach((name, k) => {
    if (has(name)) hits.push({ key: `o${k}`, index: -1, label: name, match: "output", groups: [] });
  });
  return sortHits(hits);
}

const RANK: Record<string, number> = { op: 0, "node name": 1, input: 2, output: 2 };

/**
 * Hits as the user most likely means them: ops, then node names, graph inputs and outputs, and
 * value names last (a Constant whose value is named "…conv…" is not a Conv); in graph order (and
 * view order) within each (the sort is stable).
 */
export function sortHits<T extends { match: string }>(hits: T[]): T[] {
  return hits.sort((x, y) => (RANK[x.match] ?? 3) - (RANK[y.match] ?? 3));
}

/**
 * The nodes of a view that problems name: a problem's place is `<prefix>, node '…' (Op)` (or
 * `node #i (Op)`), where prefix is "" in the main graph and the function's place in a function;
 * a problem inside a node's subgraph marks that node. Returns [problem line index, node index].
 */
export function problemNodes(owner: Owner, prefix: string, wheres: string[]): [number, number][] {
  const byLabel = new Map<string, number>();
  owner.nodes.forEach((n, i) => {
    byLabel.set(nodeLabel(n, i), i);
    if (n.name) byLabel.set(nodeLabel({ ...n, name: undefined }, i), i);
  });
  const out: [number, number][] = [];
  wheres.forEach((w, line) => {
    let rest: string;
    if (prefix === "") rest = w;
    else if (w.startsWith(`${prefix}, `)) rest = w.slice(prefix.length + 2);
    else return;
    if (!rest.startsWith("node ")) return;
    // The node's label ends at the first ", " or "." after its closing parenthesis that names it.
    for (let k = rest.indexOf(")"); k >= 0; k = rest.indexOf(")", k + 1)) {
      const i = byLabel.get(rest.slice(0, k + 1));
      if (i !== undefined) {
        out.push([line, i]);
        return;
      }
    }
  });
  return out;
}

/**
 * The diff's pairing of a's nodes with b's in one graph: the changed nodes as the diff pairs them,
 * then the nodes it left unmarked (matched and unchanged), by op and output names, then by op and
 * node name, then by op in order.
 */
export function pairNodes(ga: Owner, gb: Owner, d: GraphDiff): Map<number, number> {
  const pairs = new Map<number, number>();
  const taken = new Set<number>();
  for (const c of d.changed) {
    pairs.set(c.a.index, c.b.index);
    taken.add(c.b.index);
  }
  const removed = new Set(d.hunks.flatMap((h) => h.removed.map((r) => r.index)));
  const added = new Set(d.hunks.flatMap((h) => h.added.map((r) => r.index)));
  const freeA = ga.nodes.map((_, i) => i).filter((i) => !removed.has(i) && !pairs.has(i));
  const freeB = gb.nodes.map((_, j) => j).filter((j) => !added.has(j) && !taken.has(j));
  const keys: ((n: Node) => string)[] = [
    (n) => `${n.domain ?? ""}:${n.opType}:${n.outputs.join(",")}`,
    (n) => `${n.domain ?? ""}:${n.opType}:${n.name ?? ""}`,
    (n) => `${n.domain ?? ""}:${n.opType}`,
  ];
  let restA = freeA;
  let restB = freeB;
  for (const key of keys) {
    const byKey = new Map<string, number[]>();
    for (const j of restB) {
      const k = key(gb.nodes[j]!);
      const l = byKey.get(k);
      if (l) l.push(j);
      else byKey.set(k, [j]);
    }
    const usedB = new Set<number>();
    const left: number[] = [];
    for (const i of restA) {
      const j = byKey.get(key(ga.nodes[i]!))?.shift();
      if (j === undefined) left.push(i);
      else {
        pairs.set(i, j);
        usedB.add(j);
      }
    }
    restA = left;
    restB = restB.filter((j) => !usedB.has(j));
  }
  return pairs;
}

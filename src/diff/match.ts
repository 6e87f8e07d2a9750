// What changed between two graphs, matched by structure rather than by position or by the names
// a pass generates: values are anchored on graph inputs, initializers and graph outputs; nodes are
// then matched in topological order by op, matched inputs and attributes, and the values they
// write are matched in turn. What stays unmatched is grouped into hunks of connected nodes, so
// that expanding one call shows as one node replaced by its body.
//
// No file system here: the same code serves the command line and a web page.

import type { Tensor } from "../ir/tensor.js";
import { topologicalOrder } from "../ir/graph.js";
import type { Function, Graph, Node } from "../ir/types.js";
import { attrLines, opOf, ref, sameTensor, tensorKey, tensorText, typeText } from "./keys.js";
import type { GraphDiff, Hunk, NodeChange, ValueChange } from "./types.js";

interface Side {
  nodes: Node[];
  order: number[];
  producer: Map<string, number>;
  consumers: Map<string, number[]>;
}

function side(owner: Graph | Function): Side {
  let order: number[];
  try {
    order = topologicalOrder(owner);
  } catch {
    order = owner.nodes.map((_, i) => i);
  }
  const producer = new Map<string, number>();
  const consumers = new Map<string, number[]>();
  owner.nodes.forEach((n, i) => {
    for (const o of n.outputs) if (o !== "") producer.set(o, i);
    for (const x of n.inputs) {
      if (x === "") continue;
      const l = consumers.get(x);
      if (l) l.push(i);
      else consumers.set(x, [i]);
    }
  });
  return { nodes: owner.nodes, order, producer, consumers };
}

/**
 * Diffs two graphs (or function bodies). `seed`: values of a already known to correspond to
 * values of b (outer-scope values of a subgraph, formal inputs of a function).
 */
export function diffGraphs(
  ga: Graph | Function,
  gb: Graph | Function,
  seed: Map<string, string> = new Map(),
): GraphDiff {
  const A = side(ga);
  const B = side(gb);
  const map = new Map(seed); // value of a -> value of b
  const back = new Map<string, string>();
  for (const [k, v] of map) back.set(v, k);
  const bind = (a: string, b: string) => {
    if (a === "" || b === "" || map.has(a) || back.has(b)) return;
    map.set(a, b);
    back.set(b, a);
  };

  const inputs: ValueChange[] = [];
  const outputs: ValueChange[] = [];
  const initializers: ValueChange[] = [];
  if ("initializers" in ga && "initializers" in gb) {
    // Graph inputs by name, else by position.
    const bIn = new Map(gb.inputs.map((v) => [v.name, v] as const));
    ga.inputs.forEach((v, i) => {
      const w = bIn.get(v.name) ?? gb.inputs[i];
      if (w && !back.has(w.name)) {
        bind(v.name, w.name);
        const ta = typeText(v.type);
        const tb = typeText(w.type);
        if (ta !== tb || v.name !== w.name)
          inputs.push({ name: v.name, a: `${v.name}: ${ta}`, b: `${w.name}: ${tb}` });
      } else inputs.push({ name: v.name, a: typeText(v.type) });
    });
    for (const w of gb.inputs)
      if (!back.has(w.name)) inputs.push({ name: w.name, b: typeText(w.type) });
    // Initializers by name, else by contents (fingerprints made only when some are left).
    const bInit = new Map(gb.initializers.map((t) => [t.name, t] as const));
    const unmatched: Tensor[] = [];
    for (const t of ga.initializers) {
      const u = bInit.get(t.name);
      if (u && !back.has(u.name)) {
        bind(t.name, u.name);
        if (!sameTensor(t, u))
          initializers.push({
            name: t.name,
            a: tensorText(t),
            b: `${tensorText(u)} (other values)`,
          });
      } else unmatched.push(t);
    }
    const bByKey = new Map<string, Tensor[]>();
    if (unmatched.length)
      for (const t of gb.initializers) {
        if (back.has(t.name)) continue;
        const k = tensorKey(t);
        bByKey.set(k, [...(bByKey.get(k) ?? []), t]);
      }
    for (const t of unmatched) {
      const u = (bByKey.get(tensorKey(t)) ?? []).find((x) => !back.has(x.name));
      if (u) bind(t.name, u.name);
      else initializers.push({ name: t.name, a: tensorText(t) });
    }
    for (const u of gb.initializers)
      if (!back.has(u.name)) initializers.push({ name: u.name, b: tensorText(u) });
  } else {
    const fa = ga as Function;
    const fb = gb as Function;
    fa.inputs.forEach((n, i) => {
      if (fb.inputs[i] !== undefined) bind(n, fb.inputs[i]!);
    });
  }

  // Graph outputs by name (else position): their producers are anchors for the last nodes.
  const outA = "initializers" in ga ? ga.outputs.map((v) => v.name) : (ga as Function).outputs;
  const outB = "initializers" in gb ? gb.outputs.map((v) => v.name) : (gb as Function).outputs;
  const outPair = new Map<string, string>();
  outA.forEach((n, i) => {
    const m = outB.includes(n) ? n : outB[i];
    if (m !== undefined) outPair.set(n, m);
  });
  if ("initializers" in ga && "initializers" in gb) {
    ga.outputs.forEach((v) => {
      const m = outPair.get(v.name);
      const w = gb.outputs.find((o) => o.name === m);
      if (!w) outputs.push({ name: v.name, a: typeText(v.type) });
      else if (typeText(v.type) !== typeText(w.type) || w.name !== v.name)
        outputs.push({
          name: v.name,
          a: `${v.name}: ${typeText(v.type)}`,
          b: `${w.name}: ${typeText(w.type)}`,
        });
    });
    for (const w of gb.outputs)
      if (![...outPair.values()].includes(w.name))
        outputs.push({ name: w.name, b: typeText(w.type) });
  }

  // Unmatched nodes of b, by op and matched inputs.
  const bUsed = new Set<number>();
  const byKey = new Map<string, number[]>();
  const keyOf = (op: string, ins: string[]) => `${op}\u0000${ins.join("\u0001")}`;
  B.nodes.forEach((n, i) => {
    const k = keyOf(opOf(n), n.inputs);
    const l = byKey.get(k);
    if (l) l.push(i);
    else byKey.set(k, [i]);
  });
  const matchedA = new Map<number, number>();
  const changed: NodeChange[] = [];
  // Matched and changed nodes inside the subgraphs of matched nodes, at any depth.
  const inner = { matched: 0, changed: 0 };

  const mapInput = (x: string): string | undefined => {
    if (x === "") return "";
    const m = map.get(x);
    if (m !== undefined) return m;
    // Not matched structurally (its producer was replaced): the same name in b, if b has it free.
    if (!back.has(x) && (B.producer.has(x) || B.consumers.has(x))) return x;
    return undefined;
  };

  for (const i of A.order) {
    const n = A.nodes[i]!;
    const ins = n.inputs.map(mapInput);
    if (ins.some((x) => x === undefined)) continue;
    const cands = (byKey.get(keyOf(opOf(n), ins as string[])) ?? []).filter((j) => !bUsed.has(j));
    if (cands.length === 0) continue;
    const la = attrLines(n).join("\n");
    // Prefer a node with the same attributes, then the same outputs' names, then the first.
    const j =
      cands.find((c) => attrLines(B.nodes[c]!).join("\n") === la && sameOutputs(n, B.nodes[c]!)) ??
      cands.find((c) => attrLines(B.nodes[c]!).join("\n") === la) ??
      cands.find((c) => sameOutputs(n, B.nodes[c]!)) ??
      (n.inputs.length > 0 ? cands[0] : undefined);
    if (j === undefined) continue;
    const m = B.nodes[j]!;
    bUsed.add(j);
    matchedA.set(i, j);
    ins.forEach((x, k) => x && bind(n.inputs[k]!, x));
    n.outputs.forEach((o, k) => bind(o, m.outputs[k] ?? ""));
    const change = compareNodes(n, i, m, j, map, inner);
    if (change) changed.push(change);
  }

  // Hunks: unmatched nodes of a and b, connected through the values they share.
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== undefined && parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const union = (x: string, y: string) => {
    const a = find(x);
    const b = find(y);
    if (a !== b) parent.set(a, b);
  };
  const freeA = A.nodes.map((_, i) => i).filter((i) => !matchedA.has(i));
  const freeB = B.nodes.map((_, j) => j).filter((j) => !bUsed.has(j));
  for (const i of freeA) parent.set(`a${i}`, `a${i}`);
  for (const j of freeB) parent.set(`b${j}`, `b${j}`);
  const freeASet = new Set(freeA);
  const freeBSet = new Set(freeB);
  // Within a side: a free node and the free producers of its inputs.
  for (const i of freeA)
    for (const x of A.nodes[i]!.inputs) {
      const p = A.producer.get(x);
      if (p !== undefined && freeASet.has(p)) union(`a${i}`, `a${p}`);
    }
  for (const j of freeB)
    for (const x of B.nodes[j]!.inputs) {
      const p = B.producer.get(x);
      if (p !== undefined && freeBSet.has(p)) union(`b${j}`, `b${p}`);
    }
  // Across: a free node of a writing a value that b's free nodes write (same value, matched or
  // by name), or both reading and writing the same boundary.
  const writersB = new Map<string, number>();
  for (const j of freeB) for (const o of B.nodes[j]!.outputs) if (o !== "") writersB.set(o, j);
  for (const i of freeA)
    for (const o of A.nodes[i]!.outputs) {
      const target = map.get(o) ?? o;
      const j = writersB.get(target);
      if (j !== undefined) union(`a${i}`, `b${j}`);
    }
  // A group of b's free nodes linked to none of a's (an expansion whose outputs got new names)
  // joins the group of a's free nodes that read the same matched values, when that is one group.
  const hasA = new Set<string>();
  for (const i of freeA) hasA.add(find(`a${i}`));
  const readersA = new Map<string, Set<string>>();
  for (const i of freeA)
    for (const x of A.nodes[i]!.inputs) {
      const m = map.get(x);
      if (m === undefined) continue;
      const s = readersA.get(m) ?? new Set<string>();
      s.add(find(`a${i}`));
      readersA.set(m, s);
    }
  const lonely = new Map<string, Set<string>>();
  for (const j of freeB) {
    const r = find(`b${j}`);
    if (hasA.has(r)) continue;
    const s = lonely.get(r) ?? new Set<string>();
    for (const x of B.nodes[j]!.inputs) for (const g of readersA.get(x) ?? []) s.add(find(g));
    lonely.set(r, s);
  }
  for (const [r, s] of lonely) if (s.size === 1) union(r, [...s][0]!);
  const groups = new Map<string, Hunk>();
  const hunk = (k: string) => {
    const r = find(k);
    let h = groups.get(r);
    if (!h) groups.set(r, (h = { removed: [], added: [] }));
    return h;
  };
  for (const i of A.order) if (freeASet.has(i)) hunk(`a${i}`).removed.push(ref(A.nodes[i]!, i));
  for (const j of B.order) if (freeBSet.has(j)) hunk(`b${j}`).added.push(ref(B.nodes[j]!, j));

  return {
    matched: matchedA.size,
    deep: { matched: matchedA.size + inner.matched, changed: changed.length + inner.changed },
    hunks: [...groups.values()],
    changed,
    inputs,
    outputs,
    initializers,
  };
}

function sameOutputs(a: Node, b: Node): boolean {
  return a.outputs.length === b.outputs.length && a.outputs.every((o, k) => o === b.outputs[k]);
}

function compareNodes(
  a: Node,
  i: number,
  b: Node,
  j: number,
  map: Map<string, string>,
  inner: GraphDiff["deep"],
): NodeChange | undefined {
  const la = attrLines(a);
  const lb = attrLines(b);
  const removed = la.filter((x) => !lb.includes(x));
  const added = lb.filter((x) => !la.includes(x));
  const subgraphs: NodeChange["subgraphs"] = [];
  // Two trees walked side by side, each pair of subgraphs seeded with the values matched so far:
  // a walk of its own, which no one-tree walker of ir/visit.ts gives.
  for (const x of a.attributes) {
    const y = b.attributes.find((t) => t.name === x.name);
    if (!y) continue;
    const pairs: [Graph, Graph, string][] = [];
    if (x.type === "GRAPH" && y.type === "GRAPH" && x.value && y.value)
      pairs.push([x.value, y.value, x.name]);
    if (x.type === "GRAPHS" && y.type === "GRAPHS" && x.value && y.value)
      x.value.forEach((g, k) => {
        if (y.value![k]) pairs.push([g, y.value![k]!, `${x.name}[${k}]`]);
      });
    for (const [ga, gb, name] of pairs) {
      const d = diffGraphs(ga, gb, new Map(map));
      inner.matched += d.deep.matched;
      inner.changed += d.deep.changed;
      if (!graphSame(d)) subgraphs.push({ attribute: name, diff: d });
    }
  }
  // A subgraph attribute is compared by its diff, not by its summary line.
  const isGraphLine = (s: string) => / graphs? \(/.test(s);
  const r = removed.filter((s) => !isGraphLine(s));
  const ad = added.filter((s) => !isGraphLine(s));
  if (r.length === 0 && ad.length === 0 && subgraphs.length === 0) return undefined;
  return { a: ref(a, i), b: ref(b, j), removed: r, added: ad, subgraphs };
}

export function graphSame(d: GraphDiff): boolean {
  return (
    d.hunks.length === 0 &&
    d.changed.length === 0 &&
    d.inputs.length === 0 &&
    d.outputs.length === 0 &&
    d.initializers.length === 0
  );
}

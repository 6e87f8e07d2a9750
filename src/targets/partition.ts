// The partitions a backend would form from the nodes it takes, by onnxruntime's rule (its
// CreateSupportedPartitionNodeGroups, which its mobile usability checker replays): a topological
// walk in waves from the graph's roots. A wave takes every ready node it can: a supported one
// joins the current group, an unsupported one that reads nothing of the group is passed over;
// an unsupported one that reads the group (the group's border) waits for the next wave. When no
// node is ready the group is closed, and the next wave starts from the nodes that waited. The
// nodes of one group need not be connected; two groups are apart because a node the backend does
// not take lies between them: those waiting nodes are what split the model, and each partition
// boundary is a copy between devices.
//
// As onnxruntime does, Constant nodes are data (it makes them initializers): they are in no
// partition and split nothing. Roots are taken in graph order, a node's consumers in the order of
// their position, as onnxruntime takes them by node index. Each graph is partitioned on its own
// (an If's or Loop's body too: onnxruntime asks for every graph); values a body reads from the
// enclosing graph make its node a consumer of their producer.

import { outerNamesUsedBy } from "../ir/graph.js";
import type { Function, Graph, Node } from "../ir/types.js";

export interface GraphPartitions {
  /** Groups of positions in `graph.nodes`, in the order they were formed. */
  groups: number[][];
  /** Positions of the unsupported nodes on a group's border (they split the graph). */
  splitters: number[];
}

const isConstantNode = (n: Node) =>
  n.opType === "Constant" && (n.domain ?? "") === "" && n.inputs.length === 0;

/** The partitions of one graph, given which of its nodes the backend takes. */
export function partitionGraph(
  graph: Graph | Function,
  supported: (i: number) => boolean,
): GraphPartitions {
  const nodes = graph.nodes;
  const producer = new Map<string, number>();
  nodes.forEach((n, i) => {
    if (!isConstantNode(n)) for (const o of n.outputs) if (o) producer.set(o, i);
  });
  // consumers[i]: the nodes reading an output of node i (each once), in position order
  const consumers: number[][] = nodes.map(() => []);
  const inDegree: number[] = nodes.map(() => 0);
  nodes.forEach((n, j) => {
    if (isConstantNode(n)) return;
    const reads = new Set<string>(n.inputs.filter((x) => x));
    for (const x of outerNamesUsedBy(n)) reads.add(x);
    const from = new Set<number>();
    for (const x of reads) {
      const i = producer.get(x);
      if (i !== undefined && i !== j) from.add(i);
    }
    for (const i of from) consumers[i]!.push(j);
    inDegree[j] = from.size;
  });
  for (const c of consumers) c.sort((a, b) => a - b);

  const groups: number[][] = [];
  const splitters: number[] = [];
  let ready: number[] = [];
  let waiting: number[] = [];
  nodes.forEach((n, i) => {
    if (!isConstantNode(n) && inDegree[i] === 0) ready.push(i);
  });
  let group: number[] = [];
  let border = new Set<number>();
  const close = () => {
    if (group.length) groups.push(group);
    group = [];
    border = new Set();
  };
  let head = 0;
  while (head < ready.length || waiting.length) {
    if (head >= ready.length) {
      close();
      ready = waiting;
      waiting = [];
      head = 0;
      continue;
    }
    const i = ready[head++]!;
    const ok = supported(i);
    if (!ok && border.has(i)) {
      waiting.push(i);
      splitters.push(i);
      continue;
    }
    if (ok) {
      group.push(i);
      border.delete(i);
    }
    for (const j of consumers[i]!) {
      if (ok) border.add(j);
      if (--inDegree[j]! === 0) ready.push(j);
    }
  }
  close();
  return { groups, splitters };
}

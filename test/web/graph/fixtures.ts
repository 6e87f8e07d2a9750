// Small graphs for the scene and layout tests: chains, wide graphs, named and annotated nodes.

import type { MetadataProps, Node } from "../../../src/ir/types.js";
import { buildScene, type Scene, type SceneSource } from "../../../web/graph/scene.js";

export function node(
  opType: string,
  inputs: string[],
  outputs: string[],
  name?: string,
  metadataProps?: MetadataProps,
): Node {
  return {
    opType,
    domain: "",
    inputs,
    outputs,
    attributes: [],
    ...(name !== undefined ? { name } : {}),
    ...(metadataProps ? { metadataProps } : {}),
  };
}

export function scene(
  nodes: Node[],
  inputs: string[],
  outputs: string[],
  more: Partial<SceneSource> = {},
): Scene {
  return buildScene({
    nodes,
    inputs,
    outputs,
    initializers: [],
    label: (i) => nodes[i]!.opType,
    typeOf: () => "float[1]",
    ...more,
  });
}

/** x → Relu → Relu → … → y, n nodes. */
export function chain(n: number): { nodes: Node[]; inputs: string[]; outputs: string[] } {
  const nodes: Node[] = [];
  for (let i = 0; i < n; i++)
    nodes.push(node("Relu", [i === 0 ? "x" : `v${i - 1}`], [i === n - 1 ? "y" : `v${i}`]));
  return { nodes, inputs: ["x"], outputs: ["y"] };
}

/** x feeds `branches` chains of `depth` nodes, joined by one Concat. */
export function wide(
  branches: number,
  depth: number,
): {
  nodes: Node[];
  inputs: string[];
  outputs: string[];
} {
  const nodes: Node[] = [];
  const ends: string[] = [];
  for (let b = 0; b < branches; b++)
    for (let d = 0; d < depth; d++) {
      const out = `b${b}_${d}`;
      nodes.push(node("Relu", [d === 0 ? "x" : `b${b}_${d - 1}`], [out]));
      if (d === depth - 1) ends.push(out);
    }
  nodes.push(node("Concat", ends, ["y"]));
  return { nodes, inputs: ["x"], outputs: ["y"] };
}

// The inspector's scene and layout in Node (web/graph): median times for a 20,000-node chain, 100
// branches of 200, the same chain with a Constant folded into every node, and a scoped model of
// 20,000 nodes in 1,000 collapsed groups (one opened). Run: npx tsx bench/layout.ts

import { node } from "../src/ir/builder.js";
import type { Node } from "../src/ir/types.js";
import { layoutScene } from "../web/graph/layout.js";
import { buildScene } from "../web/graph/scene.js";
import { median } from "./timing.js";

interface Case {
  name: string;
  nodes: Node[];
  open?: string[];
}

function chain(n: number, constants: boolean): Node[] {
  const out: Node[] = [];
  for (let i = 0; i < n; i++) {
    const prev = i ? `v${i - 1}` : "x";
    if (constants) {
      out.push(node("Constant", [], [`k${i}`], { value_float: 1 }));
      out.push(node("Add", [prev, `k${i}`], [`v${i}`]));
    } else out.push(node("Relu", [prev], [`v${i}`]));
  }
  return out;
}

function wide(branches: number, depth: number): Node[] {
  const out: Node[] = [];
  const ends: string[] = [];
  for (let b = 0; b < branches; b++)
    for (let d = 0; d < depth; d++) {
      out.push(node("Relu", [d ? `b${b}_${d - 1}` : "x"], [`b${b}_${d}`]));
      if (d === depth - 1) ends.push(`b${b}_${d}`);
    }
  out.push(node("Concat", ends, ["y"], { axis: 0 }));
  return out;
}

function scoped(blocks: number, per: number): Node[] {
  const out: Node[] = [];
  let prev = "x";
  for (let b = 0; b < blocks; b++)
    for (let k = 0; k < per; k++) {
      const v = `v${b}_${k}`;
      out.push(node("Relu", [prev], [v], {}, { name: `/model/block${b}/Relu_${k}` }));
      prev = v;
    }
  return out;
}

const cases: Case[] = [
  { name: "chain 20,000", nodes: chain(20000, false) },
  { name: "wide 100 x 200", nodes: wide(100, 199) },
  { name: "chain 10,000 + 10,000 Constants (folded)", nodes: chain(10000, true) },
  { name: "scoped 1,000 groups of 20, one open", nodes: scoped(1000, 20), open: ["gmodel/block7"] },
];

console.log("case | nodes | scene ms | layout ms | boxes | edges");
for (const c of cases) {
  const source = {
    nodes: c.nodes,
    inputs: ["x"],
    outputs: [c.nodes[c.nodes.length - 1]!.outputs[0]!],
    initializers: [],
    label: (i: number) => c.nodes[i]!.opType,
    typeOf: () => "float[1,4]",
  };
  const sceneMs = await median(() => buildScene(source), 5);
  const scene = buildScene(source);
  const options = { open: c.open ?? [], constantsAsNodes: false };
  const view = { id: "main", title: c.name };
  const layoutMs = await median(() => layoutScene(scene, options, undefined, view), 5);
  const l = layoutScene(scene, options, undefined, view);
  console.log(
    `${c.name} | ${c.nodes.length} | ${sceneMs.toFixed(0)} | ${layoutMs.toFixed(0)} | ${l.items.length} | ${l.edges.length}`,
  );
}

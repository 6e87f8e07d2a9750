// `npm run bench:simplify -- [DIR]`: onnx-expand's `simplify` beside onnxscript's optimizer
// (`onnxscript.optimizer.optimize` with its defaults, in the corpus venv), whole processes, side by
// side, on the real models in DIR (INTERP_MODELS; `npm run corpus:export` writes them): nodes
// after, time, and whether onnxruntime gives the original's outputs for ours (seeded random
// inputs: symbolic dims 1 for a batch, 64 otherwise). Symbolic dims are left as they are in both
// simplifications.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomInputs } from "../src/app/index.js";
import { compareTensors } from "../src/interp/backend-test.js";
import type { RTensor } from "../src/interp/types.js";
import { run } from "../src/interp/executor.js";
import { loadModel } from "../src/io/files.js";
import { findPython } from "../scripts/corpus/python.js";
import { runOrt } from "../test/helpers/ort.js";

const root = join(import.meta.dirname, "..");
const dir = process.argv[2] ?? process.env.INTERP_MODELS ?? join(root, "corpus", "exported");
const python = process.env.ONNX_VENV
  ? join(process.env.ONNX_VENV, "bin", "python")
  : (findPython() ?? "python3");
const cli = join(root, "dist", "cli", "bin.js");
// The built command is what a user runs: a build older than the sources would time old code.
{
  const newest = (d: string): number =>
    readdirSync(d, { withFileTypes: true }).reduce(
      (t, e) =>
        Math.max(t, e.isDirectory() ? newest(join(d, e.name)) : statSync(join(d, e.name)).mtimeMs),
      0,
    );
  if (!existsSync(cli) || statSync(cli).mtimeMs < newest(join(root, "src"))) {
    console.error("bench:simplify: dist/ is older than src/: run `npm run build` first");
    process.exit(2);
  }
}
const work = mkdtempSync(join(tmpdir(), "bench-simplify-"));
const script = join(work, "optimize.py");
writeFileSync(
  script,
  [
    "import sys, onnx, onnxscript.optimizer",
    "m = onnxscript.optimizer.optimize(onnx.load(sys.argv[1]))",
    "onnx.save(m, sys.argv[2])",
    "print(len(m.graph.node))",
  ].join("\n"),
);
const timed = (f: () => string): [number, string] => {
  const t = performance.now();
  const out = f();
  return [(performance.now() - t) / 1000, out];
};
const rows: string[] = [];
try {
  for (const name of ["swin_t", "convnext_tiny", "resnet18", "ocr_det", "bert"]) {
    const file = join(dir, `${name}.onnx`);
    if (!existsSync(file)) continue;
    const ours = join(work, `${name}.ours.onnx`);
    const theirs = join(work, `${name}.onnxscript.onnx`);
    const [t1, out1] = timed(() =>
      execFileSync(process.execPath, [cli, "simplify", file, "-o", ours], { encoding: "utf8" }),
    );
    const [t2, out2] = timed(() =>
      execFileSync(python, [script, file, theirs], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    );
    const before = loadModel(file);
    const after = loadModel(ours);
    let same = "yes";
    try {
      // Symbolic dims: 1 for a batch, 64 for the others (an image of 1×1 is no image).
      const dims = new Map<string, number>();
      for (const v of before.graph.inputs)
        if (v.type?.kind === "tensor")
          for (const d of v.type.shape ?? [])
            if (typeof d === "string") dims.set(d, /batch/i.test(d) ? 1 : 64);
      const inputs = randomInputs(before, 1, dims) as Record<string, RTensor>;
      let [a, b]: Record<string, RTensor>[] = [];
      try {
        [a, b] = [await runOrt(before, inputs), await runOrt(after, inputs)];
      } catch (e) {
        // onnxruntime-node refuses the original itself: the interpreter compares the two.
        [a, b] = [run(before, inputs), run(after, inputs)] as Record<string, RTensor>[];
        same = `yes (interpreter: onnxruntime says "${(e as Error).message.split("\n")[0]}")`;
      }
      for (const k of Object.keys(a!))
        if (compareTensors(b![k]!, a![k]!, { rtol: 1e-5, atol: 1e-6 })) same = `no (${k})`;
    } catch (e) {
      same = `not run: ${(e as Error).message.split("\n")[0]}`;
    }
    const n = /-> (\d+) nodes/.exec(out1)?.[1] ?? "?";
    rows.push(
      `| ${name} | ${before.graph.nodes.length} | ${n}, ${t1.toFixed(2)} s | ${out2.trim()}, ${t2.toFixed(2)} s | ${same} |`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(
  "| model | nodes | ours: nodes, time | onnxscript: nodes, time | ours on onnxruntime = original |",
);
console.log("|---|---|---|---|---|");
for (const r of rows) console.log(r);

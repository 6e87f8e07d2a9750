// `npm run bench:simplify -- [DIR…]`: onnx-expand's `simplify` beside onnxscript's optimizer
// (`onnxscript.optimizer.optimize` with its defaults, in the corpus venv), whole processes, side by
// side, on every model in the DIRs (`NAME.onnx` or `NAME/model.onnx`; default INTERP_MODELS or
// corpus/exported, which `npm run corpus:export` writes): nodes after, time, and whether
// onnxruntime gives the original's outputs for ours (seeded random inputs: symbolic dims 1 for a
// batch, 16 for a past, 80 for a total, 64 otherwise; a model stored with its inputs, as the
// deployed corpus's NAME/test_data_set_0, is run on those, its dims read from their shapes). Then
// both again with those dims fixed (`--dim` for ours; for onnxscript the model with its inputs'
// dims set by fix-dims), ours run beside that fixed original (beside the original itself where
// onnxruntime refuses the fixed one), norm-wise error in the column when it is not 0. "inexact" counts the nodes of our
// result that onnxscript's no-op rules remove although they are not no-ops: its pattern constants
// match within rel 1e-5, abs 1e-8, so x + 1e-12 (a LayerNorm's ε) is taken for x + 0.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { formatDims } from "../src/app/dims.js";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { randomInputs } from "../src/app/index.js";
import { compareTensors, floatErrors } from "../src/interp/backend-test.js";
import type { RTensor } from "../src/interp/types.js";
import { run } from "../src/interp/executor.js";
import { loadModel, saveModel } from "../src/io/files.js";
import type { Model } from "../src/ir/types.js";
import { constFromTensor } from "../src/check/consts.js";
import { fixDims } from "../src/passes/fix-dims.js";
import { runPass } from "../src/passes/manager.js";
import { findPython } from "../scripts/corpus/python.js";
import { loadCorpusModel } from "../scripts/convert-corpus.js";
import { runOrt } from "../test/helpers/ort.js";

const root = join(import.meta.dirname, "..");
const dirs = process.argv.slice(2);
if (!dirs.length) dirs.push(process.env.INTERP_MODELS ?? join(root, "corpus", "exported"));
const models: [string, string][] = dirs.flatMap((d) =>
  readdirSync(d)
    .sort()
    .flatMap((e): [string, string][] =>
      e.endsWith(".onnx")
        ? [[e.slice(0, -5), join(d, e)]]
        : existsSync(join(d, e, "model.onnx"))
          ? [[e, join(d, e, "model.onnx")]]
          : [],
    ),
);
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
    "big = m.ByteSize() > 1 << 30",
    "onnx.save(m, sys.argv[2], save_as_external_data=big, location='data.bin')",
    "print(len(m.graph.node))",
  ].join("\n"),
);
const timed = (f: () => string): [number, string] => {
  const t = performance.now();
  const out = f();
  return [(performance.now() - t) / 1000, out];
};
/** Symbolic dims of the inputs: 1 for a batch, 16 for a past, 80 for a total (past + new), 64 otherwise. */
function dimsOf(m: Model): Map<string, number> {
  const dims = new Map<string, number>();
  for (const v of m.graph.inputs)
    if (v.type?.kind === "tensor")
      for (const d of v.type.shape ?? [])
        if (typeof d === "string")
          dims.set(d, /batch/i.test(d) ? 1 : /past/i.test(d) ? 16 : /total/i.test(d) ? 80 : 64);
  return dims;
}
/**
 * The inputs stored beside a model (DIR/model.onnx with DIR/test_data_set_0), and the symbolic
 * dims their shapes give; undefined where none are stored.
 */
function storedInputs(
  file: string,
  m: Model,
): { inputs: Record<string, RTensor>; dims: Map<string, number> } | undefined {
  const dir = dirname(file);
  if (!file.endsWith("model.onnx") || !existsSync(join(dir, "test_data_set_0"))) return undefined;
  const set = loadCorpusModel(dir)?.sets[0];
  if (!set) return undefined;
  const inputs: Record<string, RTensor> = {};
  const dims = new Map<string, number>();
  for (const v of m.graph.inputs) {
    const t = set.inputs[v.name];
    if (!t || !("shape" in t)) continue;
    inputs[v.name] = t;
    if (v.type?.kind === "tensor")
      (v.type.shape ?? []).forEach((d, i) => {
        if (typeof d === "string") dims.set(d, t.shape[i]!);
      });
  }
  return { inputs, dims };
}
/** Nodes onnxscript's no-op rules take for x + 0, x - 0, x * 1, x / 1 that are not exactly those. */
function inexact(m: Model): number {
  const inits = new Map(m.graph.initializers.map((t) => [t.name, t] as const));
  const scalar = (x: string | undefined) => {
    const c = x ? inits.get(x) : undefined;
    const v = c && c.dims.length === 0 ? constFromTensor(c)?.values[0] : undefined;
    return typeof v === "number" ? v : undefined;
  };
  const near = (a: number, b: number) =>
    a !== b && Math.abs(a - b) <= Math.max(1e-5 * Math.max(Math.abs(a), Math.abs(b)), 1e-8);
  return m.graph.nodes.filter((n) => {
    const [a, b] = [scalar(n.inputs[0]), scalar(n.inputs[1])];
    if (n.opType === "Add") return [a, b].some((c) => c !== undefined && near(c, 0));
    if (n.opType === "Mul") return [a, b].some((c) => c !== undefined && near(c, 1));
    if (n.opType === "Sub") return b !== undefined && near(b, 0);
    if (n.opType === "Div") return b !== undefined && near(b, 1);
    return false;
  }).length;
}
const rows: string[] = [];
let worse = 0;
try {
  for (const [name, file] of models) {
    try {
      const before = loadModel(file);
      const stored = storedInputs(file, before);
      const dims = stored?.dims ?? dimsOf(before);
      const cells: string[] = [];
      for (const fixed of dims.size ? [false, true] : [false]) {
        const tag = fixed ? `${name}.fixed` : name;
        const ours = join(work, `${tag}.ours.onnx`);
        const theirs = join(work, `${tag}.onnxscript.onnx`);
        let given = file;
        let reference = before;
        if (fixed) {
          const f = runPass(fixDims(dims), before);
          if (!f.ok) throw new Error(`${name}: fix-dims failed`);
          given = join(work, `${tag}.given.onnx`);
          saveModel(f.model, given);
          reference = f.model;
        }
        const dimArgs = fixed ? ["--dim", formatDims(dims)] : [];
        const [t1, out1] = timed(() =>
          execFileSync(process.execPath, [cli, "simplify", file, "-o", ours, ...dimArgs], {
            encoding: "utf8",
          }),
        );
        const [t2, out2] = timed(() =>
          execFileSync(python, [script, given, theirs], {
            encoding: "utf8",
            stdio: ["ignore", "pipe", "ignore"],
          }),
        );
        const after = loadModel(ours);
        let same = "yes";
        try {
          const inputs =
            stored?.inputs ?? (randomInputs(before, 1, dims) as Record<string, RTensor>);
          let [a, b]: Record<string, RTensor>[] = [];
          try {
            a = await runOrt(reference, inputs).catch(async (e: Error) => {
              if (reference === before) throw e;
              same = "yes (beside the original: onnxruntime refuses it with its dims fixed)";
              return runOrt(before, inputs);
            });
            b = await runOrt(after, inputs);
          } catch (e) {
            // onnxruntime-node refuses the original itself: the interpreter compares the two.
            [a, b] = [run(before, inputs), run(after, inputs)] as Record<string, RTensor>[];
            same = `yes (interpreter: onnxruntime says "${(e as Error).message.split("\n")[0]}")`;
          }
          for (const k of Object.keys(a!))
            if (compareTensors(b![k]!, a![k]!, { rtol: 1e-5, atol: 1e-6 })) same = `no (${k})`;
          const errs = Object.keys(a!).map((k) => floatErrors(b![k]!, a![k]!));
          const e = Math.max(0, ...errs.map((r) => (r?.nonFinite ? Infinity : (r?.norm ?? 0))));
          if (e) same += `, ${e.toExponential(1)} norm-wise`;
        } catch (e) {
          same = `not run: ${(e as Error).message.split("\n")[0]}`;
        }
        const n = Number(/-> (\d+) nodes/.exec(out1)?.[1] ?? NaN);
        const m = Number(out2.trim());
        const off = inexact(after);
        if (!(n <= m + off)) worse++;
        cells.push(
          `${n}, ${t1.toFixed(2)} s`,
          `${m}${off ? ` (+${off} inexact)` : ""}, ${t2.toFixed(2)} s`,
          same,
        );
      }
      while (cells.length < 6) cells.push("");
      rows.push(`| ${name} | ${before.graph.nodes.length} | ${cells.join(" | ")} |`);
    } catch (e) {
      worse++;
      rows.push(`| ${name} | failed: ${(e as Error).message.split("\n")[0]} | | | | | | |`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(
  "| model | nodes | ours | onnxscript | ours = original | ours, dims fixed | onnxscript, dims fixed | ours = original |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
console.log(
  worse
    ? `${worse} simplification(s) left more nodes than onnxscript's (its inexact removals counted back)`
    : "every simplification left at most onnxscript's node count (its inexact removals counted back)",
);

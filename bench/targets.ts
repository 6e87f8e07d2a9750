// `npm run bench:targets -- [DIR]`: every shipped target profile (plain ai.onnx-13, and a made-up
// backend without int64) on the real
// models in DIR (INTERP_MODELS; `npm run corpus:export` writes them): nodes supported before and
// after `lower --target` (symbolic dims fixed: 1 for a batch, 64 otherwise), what remains by op,
// whether onnxruntime-node gives the original's numbers for the lowered model (norm-wise, seeded
// random inputs; the interpreter where onnxruntime refuses the original) and whether ONNX's full
// checker passes it (the corpus Python). Prints a Markdown table for the README and notes.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lower, randomInputs } from "../src/app/index.js";
import { run } from "../src/interp/executor.js";
import { toFloat64 } from "../src/interp/tensor.js";
import type { RTensor } from "../src/interp/types.js";
import { loadModel, saveModel } from "../src/io/files.js";
import type { Model } from "../src/ir/types.js";
import { classifyModel, type TargetReport } from "../src/targets/classify.js";
import { listProfiles } from "../src/targets/load.js";
import { plainOpsetProfile } from "../src/targets/profile.js";
import { noInt64Profile } from "./no-int64.js";
import { findPython } from "../scripts/corpus/python.js";
import { runOrt } from "../test/helpers/ort.js";

const root = join(import.meta.dirname, "..");
const dir = process.argv[2] ?? process.env.INTERP_MODELS ?? join(root, "corpus", "exported");
const python = process.env.ONNX_VENV
  ? join(process.env.ONNX_VENV, "bin", "python")
  : (findPython() ?? "python3");
const models = ["resnet18", "convnext_tiny", "swin_t", "ocr_det", "bert"].filter((m) =>
  existsSync(join(dir, `${m}.onnx`)),
);
const profiles = [...listProfiles(), plainOpsetProfile(13), noInt64Profile()];
const work = mkdtempSync(join(tmpdir(), "bench-targets-"));

function dimsOf(m: Model): Map<string, number> {
  const dims = new Map<string, number>();
  for (const v of m.graph.inputs)
    if (v.type?.kind === "tensor")
      for (const d of v.type.shape ?? [])
        if (typeof d === "string") dims.set(d, /batch/i.test(d) ? 1 : 64);
  return dims;
}

const count = (r: TargetReport) => `${r.coverage.supported}/${r.coverage.nodes}`;
function residue(r: TargetReport): string {
  const ops = Object.entries(r.byOp)
    .filter(([, c]) => c.partial + c.unsupported > 0)
    .sort((a, b) => b[1].partial + b[1].unsupported - (a[1].partial + a[1].unsupported))
    .slice(0, 3)
    .map(
      ([op, c]) =>
        `${op}${c.unsupported ? ` ${c.unsupported}u` : ""}${c.partial ? ` ${c.partial}p` : ""}`,
    );
  return [...(r.model.length ? ["opset"] : []), ...ops].join(", ");
}

async function sameNumbers(a: Model, b: Model, dims: Map<string, number>): Promise<string> {
  const inputs = randomInputs(a, 7, dims) as Record<string, RTensor>;
  let ra: Record<string, RTensor>;
  let rb: Record<string, RTensor>;
  let how = "";
  try {
    [ra, rb] = [await runOrt(a, inputs), await runOrt(b, inputs)];
  } catch {
    [ra, rb] = [run(a, inputs), run(b, inputs)] as Record<string, RTensor>[];
    how = " (interp.)";
  }
  let worst = 0;
  for (const k of Object.keys(ra!)) {
    const [x, y] = [toFloat64(ra![k]!), toFloat64(rb![k]!)];
    let num = 0;
    let den = 0;
    for (let i = 0; i < x.length; i++) {
      num += (x[i]! - y[i]!) ** 2;
      den += x[i]! ** 2;
    }
    worst = Math.max(worst, Math.sqrt(num / (den || 1)));
  }
  return `${worst.toExponential(0)}${how}`;
}

const rows: string[] = [
  "| model | target | supported before | after lower | remaining (u: unsupported, p: partial) | numbers (norm-wise) | full checker |",
  "|---|---|---|---|---|---|---|",
];
try {
  for (const name of models) {
    const m = loadModel(join(dir, `${name}.onnx`));
    const dims = dimsOf(m);
    for (const p of profiles) {
      const before = classifyModel(m, p);
      const r = lower(m, { profile: p, dims });
      if (!r.ok) {
        rows.push(`| ${name} | ${p.name} | ${count(before)} | refused | | | |`);
        continue;
      }
      const file = join(work, `${name}.${p.name}.onnx`);
      saveModel(r.model, file);
      let checker = "yes";
      try {
        execFileSync(
          python,
          ["-c", "import onnx,sys; onnx.checker.check_model(sys.argv[1], full_check=True)", file],
          { stdio: "pipe" },
        );
      } catch (e) {
        checker = `no: ${String((e as { stderr?: Buffer }).stderr ?? e)
          .trim()
          .split("\n")
          .pop()!
          .slice(0, 80)}`;
      }
      const numbers = await sameNumbers(m, r.model, dims).catch(
        (e) => `not run: ${(e as Error).message.slice(0, 60)}`,
      );
      rows.push(
        `| ${name} | ${p.name} | ${count(before)} | ${count(r.report)} | ${residue(r.report)} | ${numbers} | ${checker} |`,
      );
      console.error(rows[rows.length - 1]);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(rows.join("\n"));

// `npm run bench:targets -- [DIR]`: every shipped target profile (plain ai.onnx-13, and a made-up
// backend without int64) on the real
// models in DIR (INTERP_MODELS; `npm run corpus:export` writes them): nodes supported before and
// after `lower --target` (symbolic dims fixed: 1 for a batch, 64 otherwise), what remains by op,
// whether onnxruntime-node gives the original's numbers for the lowered model (norm-wise, seeded
// random inputs; the interpreter where onnxruntime refuses the original) and whether ONNX's full
// checker passes it (the corpus Python). For coreml and nnapi, onnxruntime's own usability
// checker too (scripts/targets/ort-usability.ts): the partitions its CoreML ML Program and NNAPI
// execution providers would form and the nodes they cover, for the exported model with its dims
// fixed and its values' shapes written in value_info (as `lower` writes them: the checker infers
// shapes with ONNX's inference, which stops at onnxruntime's own ops) and for the lowered one. For webgpu, onnxruntime-web's WebGPU execution provider in
// headless Chromium (scripts/targets/webgpu-judge.ts): the nodes it places on CPU for the model as
// exported and for the lowered one, and the lowered model's outputs there against the original's
// on onnxruntime-node (norm-wise). The dynamo exports of the corpus (corpus/exported/*_dynamo*:
// dynamic batch and sequence dims; the Llama decoders) are measured too. `--approximate erf` lowers with that approximation; `--targets a,b` measures
// only those profiles; `--models a,b` only those models; `--input-range auto` (or NAME=LO:HI,…)
// declares the token models' integer inputs' ranges (`lower --input-range`; auto: attention_mask
// 0:1, position_ids 0 to the mask's length less one), printed beside the model's name, and draws
// those inputs within them. Prints a Markdown table for the README
// and notes.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  drawWithinRanges,
  formatInputRanges,
  lower,
  parseInputRanges,
  randomInputs,
  type InputRanges,
} from "../src/app/index.js";
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
import { fixDims } from "../src/passes/fix-dims.js";
import { inferValueInfo } from "../src/passes/infer-value-info.js";
import { pipeline } from "../src/passes/manager.js";
import { modelOf } from "../src/passes/pass.js";
import type { Approximation } from "../src/passes/legalize.js";
import { transform } from "../src/app/transform.js";
import {
  estimateCell,
  usability,
  usabilityPython,
  NO_USABILITY_PYTHON,
} from "../scripts/targets/ort-usability.js";
import { judgeWebgpu, placementCell, WebgpuJudge } from "../scripts/targets/webgpu-judge.js";

const root = join(import.meta.dirname, "..");
const args = process.argv.slice(2);
const approxAt = args.indexOf("--approximate");
const approximate =
  approxAt >= 0 ? (args.splice(approxAt, 2)[1]!.split(",") as Approximation[]) : undefined;
function option(name: string): string[] | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1]!.split(",") : undefined;
}
// --input-range auto: the token models' usual values (an attention mask 0:1, position ids 0 to
// the sequence the fixed dims give, less one); else NAME=LO:HI,… for every model with the input.
const rangesAt = args.indexOf("--input-range");
const rangesArg = rangesAt >= 0 ? args.splice(rangesAt, 2)[1]! : undefined;
const onlyTargets = option("--targets");
const onlyModels = option("--models");
const dir = args[0] ?? process.env.INTERP_MODELS ?? join(root, "corpus", "exported");
const corpus = join(root, "corpus", "exported");
const python = process.env.ONNX_VENV
  ? join(process.env.ONNX_VENV, "bin", "python")
  : (findPython() ?? "python3");
const models = [
  ...[
    "resnet18",
    "mobilenet_v3_small",
    "convnext_tiny",
    "vit",
    "swin_t",
    "whisper_encoder",
    "ocr_det",
    "bert",
  ].map((name) => ({ name, path: join(dir, `${name}.onnx`) })),
  ...[
    "resnet18_dynamo",
    "mobilenet_v3_small_dynamo",
    "convnext_tiny_dynamo",
    "bert_tiny_dynamo",
    "llama_small_dynamo",
    "llama_small_dynamo_op23",
    "llama_small_kv_dynamo_op23",
  ].map((name) => ({ name, path: join(corpus, name, "model.onnx") })),
].filter((m) => existsSync(m.path) && (!onlyModels || onlyModels.includes(m.name)));
const profiles = [...listProfiles(), plainOpsetProfile(13), noInt64Profile()].filter(
  (p) => !onlyTargets || onlyTargets.includes(p.name),
);
const work = mkdtempSync(join(tmpdir(), "bench-targets-"));

function dimsOf(m: Model): Map<string, number> {
  const dims = new Map<string, number>();
  for (const v of m.graph.inputs)
    if (v.type?.kind === "tensor")
      for (const d of v.type.shape ?? [])
        if (typeof d === "string") dims.set(d, /batch/i.test(d) ? 1 : 64);
  // a decoder with a cache: the mask spans the past and the new tokens
  const [past, seq] = [dims.get("past_sequence"), dims.get("sequence")];
  if (dims.has("total_sequence") && past !== undefined && seq !== undefined)
    dims.set("total_sequence", past + seq);
  return dims;
}

/** The ranges declared for a model (--input-range), for its inputs with fixed dims. */
function rangesOf(m: Model, dims: Map<string, number>): InputRanges {
  const names = new Set(m.graph.inputs.map((v) => v.name));
  if (rangesArg === undefined) return new Map();
  if (rangesArg !== "auto")
    return new Map([...parseInputRanges(rangesArg)].filter(([n]) => names.has(n)));
  const out = new Map<string, { lo: number; hi: number }>();
  const shapeOf = (n: string) => {
    const v = m.graph.inputs.find((i) => i.name === n);
    return v?.type?.kind === "tensor" ? (v.type.shape ?? []) : [];
  };
  if (names.has("attention_mask")) out.set("attention_mask", { lo: 0, hi: 1 });
  if (names.has("position_ids")) {
    // the positions a run takes: past and new tokens (the mask's length)
    const last = shapeOf("attention_mask").at(-1) ?? shapeOf("position_ids").at(-1);
    const t = typeof last === "number" ? last : last ? dims.get(last) : undefined;
    if (t !== undefined) out.set("position_ids", { lo: 0, hi: t - 1 });
  }
  return out;
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

async function sameNumbers(
  a: Model,
  b: Model,
  dims: Map<string, number>,
  ranges: InputRanges,
): Promise<string> {
  const inputs = drawWithinRanges(randomInputs(a, 7, dims), ranges, 7) as Record<string, RTensor>;
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

const ortPython = usabilityPython();
if (!ortPython)
  console.error(`bench:targets: no onnxruntime checker column: ${NO_USABILITY_PYTHON}`);
/** The EP of onnxruntime's usability checker that judges a profile (coreml, nnapi). */
const epOf = (p: string) => (p === "coreml" ? "coreml" : p === "nnapi" ? "nnapi" : undefined);
/** "before → after" by onnxruntime's checker: partitions, nodes covered (ops left). */
function ortCell(target: string, before: string, after: string): string {
  const ep = epOf(target);
  if (!ep || !ortPython) return "";
  try {
    const [b, a] = usability(ortPython, [before, after]);
    return `${estimateCell(b?.[ep])} → ${estimateCell(a?.[ep])}`;
  } catch (e) {
    return `not run: ${(e as Error).message.slice(0, 60)}`;
  }
}

let webgpu: WebgpuJudge | undefined;
if (profiles.some((p) => p.name === "webgpu"))
  try {
    webgpu = await WebgpuJudge.open();
  } catch (e) {
    console.error(`bench:targets: no WebGPU column: ${(e as Error).message}`);
  }
/** The webgpu column: nodes on CPU as exported → after lower, and the error on WebGPU. */
async function webgpuCell(
  original: string,
  model: Model,
  lowered: string,
  dims: Map<string, number>,
  ranges: InputRanges,
): Promise<string> {
  if (!webgpu) return "";
  try {
    const v = await judgeWebgpu(webgpu, { path: original, model }, lowered, dims, 7, ranges);
    return `${placementCell(v.before)} → ${placementCell(v.after)}; ${v.error.toExponential(0)}`;
  } catch (e) {
    return `not run: ${(e as Error).message.slice(0, 80)}`;
  }
}

const rows: string[] = [
  "| model | target | supported before | after lower | partitions (ours, before → after) | remaining (u: unsupported, p: partial) | numbers (norm-wise) | full checker | onnxruntime's checker: partitions, nodes (before → after) | onnxruntime-web WebGPU: nodes on CPU (before → after); error |",
  "|---|---|---|---|---|---|---|---|---|---|",
];
try {
  for (const { name, path } of models) {
    const m = loadModel(path);
    const dims = dimsOf(m);
    const ranges = rangesOf(m, dims);
    const label = ranges.size ? `${name} (${formatInputRanges(ranges)})` : name;
    const fixed = join(work, `${name}.fixed.onnx`);
    saveModel(modelOf(transform(m, pipeline("fixed", [fixDims(dims), inferValueInfo()]))), fixed);
    for (const p of profiles) {
      const before = classifyModel(m, p);
      const r = lower(m, {
        profile: p,
        dims,
        ...(approximate ? { approximate } : {}),
        ...(ranges.size ? { inputRanges: ranges } : {}),
      });
      if (!r.ok) {
        rows.push(`| ${label} | ${p.name} | ${count(before)} | refused | | | | | | |`);
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
      const numbers = await sameNumbers(m, r.model, dims, ranges).catch(
        (e) => `not run: ${(e as Error).message.slice(0, 60)}`,
      );
      const ortChecker = ortCell(p.name, fixed, file);
      const gpu = p.name === "webgpu" ? await webgpuCell(path, m, file, dims, ranges) : "";
      rows.push(
        `| ${label} | ${p.name} | ${count(before)} | ${count(r.report)} | ${before.partitions.count} → ${r.report.partitions.count} | ${residue(r.report)} | ${numbers} | ${checker} | ${ortChecker} | ${gpu} |`,
      );
      console.error(rows[rows.length - 1]);
    }
  }
} finally {
  await webgpu?.close();
  rmSync(work, { recursive: true, force: true });
}
console.log(rows.join("\n"));

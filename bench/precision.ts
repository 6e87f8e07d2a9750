// `npm run bench:precision -- [MODEL.onnx | DIR ...]`: `precision --to float16` beside onnxruntime's
// copy of onnxconverter-common's converter (`onnxruntime.transformers.float16.
// convert_float_to_float16`, with its defaults and with keep_io_types=True, in the corpus venv),
// on the real models: the exported corpus ($INTERP_MODELS, else corpus/exported, one folder a
// model with its model.onnx) when it is there, else the deployed corpus's float32 models. Each
// output judged the same way in Python (scripts/corpus/precision.py): ONNX's full checker, a run
// on onnxruntime, the outputs' norm-wise error against the float32 model on onnxruntime (seeded
// random inputs, symbolic dims 1), Casts, and the share of stored float bytes in half. Ours also
// says its own error in the interpreter. Prints README's table.
//   --lower tensorrt,coreml,webgpu   also `lower --target X --precision float16 --clamp` for each
//                                    target, judged the same way (a second table)
//   --bfloat16                       also `precision --to bfloat16`: ONNX's full checker; each node
//                                    alone in the interpreter on the float64 reference's inputs
//                                    against its output (docs/semantics.md, `precision.py values`,
//                                    scripts/corpus/precision-nodes.ts: within one bfloat16 ulp);
//                                    and the whole model's outputs against it (a third table)
//   --no-anchor                      ours only (the anchor's side does not change with our code)
//   --no-float16                     with --bfloat16: the bfloat16 table only

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { lower, precision, randomInputs, type PrecisionRequest } from "../src/app/index.js";
import { run } from "../src/interp/executor.js";
import { encodeTensorProto } from "../src/interp/value-proto.js";
import { normError } from "../src/passes/to-half/index.js";
import { loadProfile } from "../src/targets/load.js";
import type { RTensor, RValue } from "../src/interp/types.js";
import type { Model } from "../src/ir/types.js";
import { loadModel, saveModel } from "../src/io/files.js";
import { requiredInputs } from "../src/app/inputs.js";
import { findPython } from "../scripts/corpus/python.js";
import { checkNodes, failingByOp, referenceValues } from "../scripts/corpus/precision-nodes.js";

const root = join(import.meta.dirname, "..");
const script = join(root, "scripts", "corpus", "precision.py");
const python = findPython(["onnx", "onnxruntime"]);
if (!python) {
  console.error(
    "bench:precision: no Python with onnx and onnxruntime (see scripts/corpus/python.ts)",
  );
  process.exit(2);
}

function models(args: string[]): string[] {
  const out: string[] = [];
  const add = (p: string) => {
    if (p.endsWith(".onnx")) out.push(p);
    else
      for (const e of readdirSync(p).sort()) {
        const f = join(p, e, "model.onnx");
        if (existsSync(f)) out.push(f);
        else if (e.endsWith(".onnx")) out.push(join(p, e));
      }
  };
  if (args.length) args.forEach(add);
  else {
    const exported = process.env.INTERP_MODELS ?? join(root, "corpus", "exported");
    if (existsSync(exported)) add(exported);
    else
      for (const e of readdirSync(join(root, "test", "data", "deployed")).sort())
        if (/fp32/.test(e)) out.push(join(root, "test", "data", "deployed", e, "model.onnx"));
  }
  return out;
}

interface Judged {
  model: string;
  checker: string | null;
  runs?: string | null;
  error?: number;
  casts: number;
  half_share: number;
}

const cell = (j: Judged | undefined, failed?: string | null): string => {
  if (failed === "not run") return "not run";
  if (failed) return `conversion fails: ${failed.slice(0, 60)}`;
  if (!j) return "—";
  const check = j.checker ? `**invalid** (${j.checker.slice(0, 50)})` : "valid";
  const runs = j.runs
    ? `**does not run** (${j.runs.slice(0, 50)})`
    : `error ${j.error!.toExponential(1)}`;
  return `${check}, ${runs}, ${j.casts} Casts, ${(100 * j.half_share).toFixed(1)}% half`;
};

const args = process.argv.slice(2);
function flag(name: string, value = false): string | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  return value ? args.splice(at, 2)[1] : (args.splice(at, 1), "");
}
const lowerTargets = flag("--lower", true)?.split(",");
const bfloat16 = flag("--bfloat16") !== undefined;
const anchor = flag("--no-anchor") === undefined;
const float16 = flag("--no-float16") === undefined;

/** The interpreter's two errors from a precision report's summary note. */
function reported(notes: { message: string }[]): string {
  const m = notes
    .map((n) =>
      /output error (\S+) \(bound [^;)]+(?:; (\S+) with only the stored)?/.exec(n.message),
    )
    .find((x) => x);
  return m ? `interpreter ${m[1]}${m[2] ? ` (stored tensors only: ${m[2]})` : ""}` : "not verified";
}

const work = mkdtempSync(join(tmpdir(), "bench-precision-"));
const rows: string[] = [];
const lowerRows: string[] = [];
const bf16Rows: string[] = [];
try {
  for (const file of models(args)) {
    const name =
      basename(file) === "model.onnx" ? basename(dirname(file)) : basename(file, ".onnx");
    const dir = join(work, name);
    mkdirSync(dir);
    const model = loadModel(file);
    const inputs = randomInputs(model, 0);
    requiredInputs(model).forEach((v, i) =>
      writeFileSync(
        join(dir, `input_${i}.pb`),
        encodeTensorProto(inputs[v.name] as RTensor, v.name),
      ),
    );
    if (float16) {
      const variants: [string, Partial<PrecisionRequest>][] = [
        ["ours", {}],
        ["ours_clamp", { clamp: true }],
        ["ours_clamp_noio", { clamp: true, keepIo: false }],
      ];
      const own = variants.map(([tag, extra]) => {
        const t = performance.now();
        const r = precision(model, { to: "float16", ...extra });
        const time = (performance.now() - t) / 1000;
        const path = join(dir, `${tag}.onnx`);
        if (r.ok) saveModel(r.model, path);
        return { path, r, time };
      });
      const anchorDefault = join(dir, "anchor.onnx");
      const anchorKeep = join(dir, "anchor_keep_io.onnx");
      const made = anchor
        ? (JSON.parse(
            execFileSync(python, [script, "anchor", file, anchorDefault, anchorKeep], {
              encoding: "utf8",
              stdio: ["ignore", "pipe", "ignore"],
            }),
          ) as { default: string | null; keep_io: string | null })
        : { default: "not run", keep_io: "not run" };
      const lowered = (lowerTargets ?? []).map((target) => {
        const t = performance.now();
        const r = lower(model, {
          profile: loadProfile(target),
          precision: { to: "float16", clamp: true },
        });
        const time = (performance.now() - t) / 1000;
        const path = join(dir, `lower_${target}.onnx`);
        if (r.ok) saveModel(r.model, path);
        return { target, path, r, time };
      });
      const paths = [
        ...own.map((o) => (o.r.ok ? o.path : "")),
        ...lowered.map((o) => (o.r.ok ? o.path : "")),
        made.default ? "" : anchorDefault,
        made.keep_io ? "" : anchorKeep,
      ];
      const judged = execFileSync(python, [script, "judge", file, dir, ...paths.filter((p) => p)], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        maxBuffer: 1 << 26,
      })
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Judged);
      const by = (p: string) => judged.find((j) => j.model === p);
      const ours = own.map(({ path, r, time }) =>
        r.ok
          ? `${cell(by(path))}; interpreter ${r.report.error?.toExponential(1)} (stored tensors only: ${r.report.storedError?.toExponential(1)}), ${r.report.kept.length} kept, ${time.toFixed(1)} s`
          : `refused: ${r.notes[0]?.message.slice(0, 80)}`,
      );
      rows.push(
        `| ${name} | ${ours.join(" | ")} | ${cell(by(anchorDefault), made.default)} | ${cell(by(anchorKeep), made.keep_io)} |`,
      );
      console.error(rows[rows.length - 1]);
      if (lowered.length) {
        const cells = lowered.map(({ path, r, time }) =>
          r.ok
            ? `${cell(by(path))}; ${reported(r.notes)}, ${time.toFixed(1)} s`
            : `refused: ${r.notes.find((n) => n.level === "error")?.message.slice(0, 80)}`,
        );
        lowerRows.push(`| ${name} | ${cells.join(" | ")} |`);
        console.error(lowerRows[lowerRows.length - 1]);
      }
    }
    if (bfloat16) bf16Rows.push(`| ${name} | ${bfloat16Cells(file, model, dir, inputs)} |`);
    if (bfloat16) console.error(bf16Rows[bf16Rows.length - 1]);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
/**
 * `precision --to bfloat16`: ONNX's full checker; node by node against the float64 reference
 * (scripts/corpus/precision-nodes.ts: each node fed the reference's inputs, within one bfloat16
 * ulp, float32 nodes within 1e-5); the whole model's outputs against it, norm-wise.
 */
function bfloat16Cells(
  file: string,
  model: Model,
  dir: string,
  inputs: Record<string, RValue>,
): string {
  const t = performance.now();
  const r = precision(model, { to: "bfloat16" });
  if (!r.ok) return `refused: ${r.notes[0]?.message.slice(0, 80)} | | | |`;
  const time = (performance.now() - t) / 1000;
  const refDir = join(dir, "bf16ref");
  mkdirSync(refDir);
  let values: string;
  try {
    values = referenceValues(python!, r.model, inputs, refDir);
  } catch (e) {
    return `reference not computed (${(e as Error).message.slice(0, 80)}) | | | |`;
  }
  const judged = JSON.parse(
    execFileSync(python!, [script, "judge", file, dir, join(refDir, "model.onnx")], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim(),
  ) as Judged;
  const check = judged.checker ? `**invalid** (${judged.checker.slice(0, 50)})` : "valid";
  const share = `${(100 * judged.half_share).toFixed(1)}% bfloat16`;
  const nodes = checkNodes(r.model, inputs, values);
  rmSync(values, { recursive: true, force: true });
  const got = run(r.model, inputs);
  let worst = 0;
  for (const [name, ref] of Object.entries(nodes.outputs)) {
    const g = got[name];
    if (g) worst = Math.max(worst, normError(g, ref));
  }
  const failing = nodes.failing.length
    ? `**${nodes.failing.length} fail**: ${failingByOp(nodes)}`
    : "none fail";
  return [
    `${check}, ${share}, ${r.report.kept.length} kept, ${time.toFixed(1)} s`,
    `${nodes.checked}${nodes.skipped.length ? ` (${nodes.skipped.length} Constants/subgraphs not)` : ""}; ${failing}`,
    `${nodes.worstUlps} (${nodes.oneUlp} of ${nodes.bf16Elements} values 1 ulp${nodes.summedElements ? `, ${nodes.summedElements} more within the float32 sum's bound` : ""}); float32 ${nodes.worstFloat32.toExponential(1)}`,
    `${worst.toExponential(1)} (float32: ${r.report.error?.toExponential(1)})`,
  ].join(" | ");
}

if (lowerRows.length) {
  console.log(`| model | ${lowerTargets!.map((t) => `lower --target ${t}`).join(" | ")} |`);
  console.log(`|---|${lowerTargets!.map(() => "---").join("|")}|`);
  for (const r of lowerRows) console.log(r);
  console.log();
}
if (bf16Rows.length) {
  console.log(
    "| model | `precision --to bfloat16` | nodes checked; failing (op, worst) | worst bfloat16 ulps; float32 nodes | whole model vs the reference |",
  );
  console.log("|---|---|---|---|---|");
  for (const r of bf16Rows) console.log(r);
  console.log();
}
if (rows.length)
  console.log(
    "| model | ours (`precision --to float16`) | ours, `--clamp` | ours, `--clamp --no-keep-io-types` | onnxruntime's converter, defaults | onnxruntime's converter, keep_io_types=True |",
  );
if (rows.length) console.log("|---|---|---|---|---|---|");
for (const r of rows) console.log(r);

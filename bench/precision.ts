// `npm run bench:precision -- [MODEL.onnx | DIR ...]`: `precision --to float16` beside onnxruntime's
// copy of onnxconverter-common's converter (`onnxruntime.transformers.float16.
// convert_float_to_float16`, with its defaults and with keep_io_types=True, in the corpus venv),
// on the real models: the exported corpus ($INTERP_MODELS, else corpus/exported, one folder a
// model with its model.onnx) when it is there, else the deployed corpus's float32 models. Each
// output judged the same way in Python (scripts/corpus/precision.py): ONNX's full checker, a run
// on onnxruntime, the outputs' norm-wise error against the float32 model on onnxruntime (seeded
// random inputs, symbolic dims 1), Casts, and the share of stored float bytes in half. Ours also
// says its own error in the interpreter. Prints README's table.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { precision, randomInputs, type PrecisionRequest } from "../src/app/index.js";
import { encodeTensorProto } from "../src/interp/value-proto.js";
import type { RTensor } from "../src/interp/types.js";
import { loadModel, saveModel } from "../src/io/files.js";
import { requiredInputs } from "../src/app/inputs.js";
import { findPython } from "../scripts/corpus/python.js";

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
  if (failed) return `conversion fails: ${failed.slice(0, 60)}`;
  if (!j) return "—";
  const check = j.checker ? `**invalid** (${j.checker.slice(0, 50)})` : "valid";
  const runs = j.runs
    ? `**does not run** (${j.runs.slice(0, 50)})`
    : `error ${j.error!.toExponential(1)}`;
  return `${check}, ${runs}, ${j.casts} Casts, ${(100 * j.half_share).toFixed(1)}% half`;
};

const work = mkdtempSync(join(tmpdir(), "bench-precision-"));
const rows: string[] = [];
try {
  for (const file of models(process.argv.slice(2))) {
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
    const made = JSON.parse(
      execFileSync(python, [script, "anchor", file, anchorDefault, anchorKeep], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    ) as { default: string | null; keep_io: string | null };
    const paths = [
      ...own.map((o) => (o.r.ok ? o.path : "")),
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
        ? `${cell(by(path))}; interpreter ${r.report.error?.toExponential(1)}, ${r.report.kept.length} kept, ${time.toFixed(1)} s`
        : `refused: ${r.notes[0]?.message.slice(0, 80)}`,
    );
    rows.push(
      `| ${name} | ${ours.join(" | ")} | ${cell(by(anchorDefault), made.default)} | ${cell(by(anchorKeep), made.keep_io)} |`,
    );
    console.error(rows[rows.length - 1]);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(
  "| model | ours (`precision --to float16`) | ours, `--clamp` | ours, `--clamp --no-keep-io-types` | onnxruntime's converter, defaults | onnxruntime's converter, keep_io_types=True |",
);
console.log("|---|---|---|---|---|---|");
for (const r of rows) console.log(r);

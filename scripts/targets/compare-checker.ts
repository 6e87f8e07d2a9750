// Our partition counts (check --target coreml / nnapi) beside onnxruntime's own usability
// checker's (scripts/targets/ort-partitions.py, through the corpus scripts' Python), on every
// .onnx file under the folders given: a table on stdout, and the exit code 1 where the counts
// differ on the model as it is.
//
//   npx tsx scripts/targets/compare-checker.ts test/data/deployed [more folders or files]

import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { loadModel } from "../../src/io/files.js";
import { classifyModel } from "../../src/targets/classify.js";
import { loadProfile } from "../../src/targets/load.js";
import { findPython } from "../corpus/python.js";

const roots = process.argv.slice(2);
if (!roots.length) throw new Error("usage: compare-checker.ts FOLDER|MODEL [...]");
const py = findPython(["onnx", "onnxruntime"]);
if (!py) throw new Error("no Python with onnx and onnxruntime (set CORPUS_PYTHON)");

function models(p: string): string[] {
  if (!statSync(p).isDirectory()) return [p];
  return readdirSync(p)
    .sort()
    .flatMap((f) => models(join(p, f)))
    .filter((f) => f.endsWith(".onnx"));
}

interface Judged {
  partitions?: number;
  sizes?: number[];
  error?: string;
}
type Row = { raw: Record<string, Judged>; optimized: Record<string, Judged> | { error: string } };

const files = roots.flatMap(models);
const script = join(import.meta.dirname, "ort-partitions.py");
let differ = 0;
console.log("| model | target | ours | onnxruntime (as is) | onnxruntime (optimized) |");
console.log("|---|---|---|---|---|");
for (const file of files) {
  const r = spawnSync(py, [script, file], { encoding: "utf8", maxBuffer: 1 << 26 });
  const line = r.stdout.trim().split("\n").at(-1) ?? "";
  let ort: Row | undefined;
  try {
    ort = JSON.parse(line) as Row;
  } catch {
    console.log(
      `| ${file} | | | checker failed: ${(r.stderr.trim().split("\n").at(-1) ?? "").slice(0, 80)} | |`,
    );
    continue;
  }
  let model;
  try {
    model = loadModel(file);
  } catch (e) {
    console.log(`| ${file} | | not loaded: ${(e as Error).message.slice(0, 80)} | | |`);
    continue;
  }
  for (const target of ["coreml", "nnapi"]) {
    const ours = classifyModel(model, loadProfile(target)).partitions;
    const raw = ort.raw[target]!;
    const opt = "error" in ort.optimized ? undefined : ort.optimized[target];
    const same = raw.partitions === ours.count;
    if (!same) differ++;
    const show = (j: Judged | undefined) =>
      !j
        ? "—"
        : j.error
          ? `error: ${j.error.slice(0, 40)}`
          : `${j.partitions} (${j.sizes!.join(", ")})`;
    console.log(
      `| ${relative(process.cwd(), file)} | ${target} | ${ours.count} (${ours.groups.map((g) => g.nodes).join(", ")}) | ${show(raw)}${same ? "" : " **differs**"} | ${show(opt)} |`,
    );
  }
}
console.log(
  `\n${files.length} models; ${differ} count(s) differ from the checker's on the model as it is`,
);
process.exitCode = differ ? 1 : 0;

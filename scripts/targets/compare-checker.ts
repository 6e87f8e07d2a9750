// Our partitions (check --target coreml / nnapi) beside onnxruntime's own usability checker's
// (scripts/targets/ort-usability.ts, through the corpus scripts' Python), on every .onnx file
// under the folders given: a table on stdout, and the exit code 1 where the partition count, the
// nodes in partitions or the nodes in all differ from the checker's on the model as it is. With
// --lower DIR, each model is first lowered for the target (`lower --target`, every symbolic dim
// of the inputs fixed: 1 for a batch, 64 otherwise, or as --dim gives them; with --approximate
// as `lower` takes it), written into DIR, and the lowered model is compared. --targets picks
// coreml or nnapi alone.
//
//   npx tsx scripts/targets/compare-checker.ts test/data/deployed [more folders or files]
//   npx tsx scripts/targets/compare-checker.ts --lower /tmp/lowered corpus/resnet18.onnx …
//   npx tsx scripts/targets/compare-checker.ts --lower /tmp/l --approximate erf \
//     --dim past_sequence=16,total_sequence=80 --targets nnapi model.onnx

import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { lower } from "../../src/app/transform.js";
import { loadModel } from "../../src/io/files.js";
import { saveModel } from "../../src/io/save.js";
import type { Model } from "../../src/ir/types.js";
import type { Approximation } from "../../src/passes/legalize.js";
import { classifyModel } from "../../src/targets/classify.js";
import { loadProfile } from "../../src/targets/load.js";
import {
  estimateCell,
  estimateOf,
  NO_USABILITY_PYTHON,
  usability,
  usabilityPython,
} from "./ort-usability.js";

const args = process.argv.slice(2);
function option(name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
}
const lowerAt = option("--lower");
const approximate = option("--approximate")?.split(",") as Approximation[] | undefined;
const givenDims = new Map(
  (option("--dim") ?? "")
    .split(",")
    .filter(Boolean)
    .map((kv) => {
      const [k, v] = kv.split("=");
      return [k!, Number(v)] as const;
    }),
);
const targets = option("--targets")?.split(",") ?? ["coreml", "nnapi"];
const roots = args;
if (!roots.length)
  throw new Error(
    "usage: compare-checker.ts [--lower DIR] [--approximate erf] [--dim n=v,...] [--targets t,...] FOLDER|MODEL [...]",
  );
const py = usabilityPython();
if (!py) throw new Error(NO_USABILITY_PYTHON);

function models(p: string): string[] {
  if (!statSync(p).isDirectory()) return [p];
  return readdirSync(p)
    .sort()
    .flatMap((f) => models(join(p, f)))
    .filter((f) => f.endsWith(".onnx"));
}

/** Every symbolic dim of the inputs fixed (as bench:targets fixes them). */
const dimsOf = (m: Model) =>
  new Map(
    m.graph.inputs
      .flatMap((v) => (v.type?.kind === "tensor" ? (v.type.shape ?? []) : []))
      .filter((d): d is string => typeof d === "string")
      .map((d) => [d, givenDims.get(d) ?? (/batch/i.test(d) ? 1 : 64)] as const),
  );

let differ = 0;
let pairs = 0;
console.log(
  "| model | target | nodes in partitions | ours | onnxruntime (as is) | onnxruntime (optimized) |",
);
console.log("|---|---|---|---|---|---|");
for (const file of roots.flatMap(models)) {
  const name = relative(process.cwd(), file);
  for (const target of targets) {
    let path = file;
    let model: Model;
    try {
      model = loadModel(file);
      if (lowerAt) {
        const r = lower(model, {
          profile: loadProfile(target),
          dims: dimsOf(model),
          ...(approximate ? { approximate } : {}),
        });
        if (!r.ok) throw new Error(JSON.stringify(r).slice(0, 120));
        mkdirSync(lowerAt, { recursive: true });
        path = join(
          lowerAt,
          `${name.replace(/^(\.\.[\\/])+/, "").replace(/[\\/]/g, "_")}.${target}.onnx`,
        );
        saveModel(r.model, path, { force: true });
        model = r.model;
      }
    } catch (e) {
      console.log(
        `| ${name} | ${target} | | not loaded or lowered: ${(e as Error).message.slice(0, 80)} | | |`,
      );
      continue;
    }
    let ort;
    try {
      [ort] = usability(py, [path]);
    } catch (e) {
      console.log(
        `| ${name} | ${target} | | | checker failed: ${(e as Error).message.slice(0, 80)} | |`,
      );
      continue;
    }
    if (!ort || ort.error) {
      console.log(`| ${name} | ${target} | | | checker failed: ${ort?.error?.slice(0, 80)} | |`);
      continue;
    }
    const ep = target as "coreml" | "nnapi";
    const ours = classifyModel(model, loadProfile(target)).partitions;
    const raw = estimateOf(ort.raw?.[ep]);
    const same =
      raw?.partitions === ours.count &&
      raw.supported === ours.supported &&
      raw.nodes === ours.nodes;
    pairs++;
    if (!same) differ++;
    console.log(
      `| ${name} | ${target} | ${ours.supported}/${ours.nodes} | ${ours.count} (${ours.groups.map((g) => g.nodes).join(", ")}) | ${estimateCell(ort.raw?.[ep])}${same ? "" : " **differs**"} | ${estimateCell(ort[ep])} |`,
    );
  }
}
console.log(
  `\n${pairs} model/target pairs; ${differ} differ from the checker's on the model as it is (partitions, nodes in them, or nodes)`,
);
process.exitCode = differ ? 1 : 0;

// `npm run bench:targets:deployed:checker [filter]`: every model of the deployed corpus
// (test/data/deployed) lowered for coreml and nnapi (symbolic dims: 1 for a batch, 8 otherwise)
// and judged by onnxruntime's own usability checker (scripts/targets/ort-usability.ts): the
// partitions its CoreML ML Program and NNAPI execution providers would form and the nodes they
// cover, for the exported model with its dims fixed (as is, and with every value's shape written
// in value_info as `lower` writes it: the checker infers shapes with ONNX's inference, which stops
// at onnxruntime's own ops, and counts what it cannot see as dynamic) and for the lowered one;
// the lowered model's outputs against the original's on onnxruntime-node (norm-wise). Prints a
// Markdown table and, last, the rows where lowering ends with more partitions than the exported
// model with value_info and not in one partition covering every node.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lower, randomInputs } from "../src/app/index.js";
import { transform } from "../src/app/transform.js";
import { toFloat64 } from "../src/interp/tensor.js";
import type { RTensor } from "../src/interp/types.js";
import { saveModel } from "../src/io/files.js";
import { fixDims } from "../src/passes/fix-dims.js";
import { inferValueInfo } from "../src/passes/infer-value-info.js";
import { pipeline } from "../src/passes/manager.js";
import { modelOf } from "../src/passes/pass.js";
import { loadProfile } from "../src/targets/load.js";
import {
  estimateCell,
  usability,
  usabilityPython,
  NO_USABILITY_PYTHON,
  type EpResult,
} from "../scripts/targets/ort-usability.js";
import { runOrt } from "../test/helpers/ort.js";
import { DEPLOYED_ORT_THREADS } from "../scripts/corpus/deployed-transforms.js";
import { deployedModels } from "./deployed.js";

const only = process.argv[2];
const python = usabilityPython();
if (!python) {
  console.error(NO_USABILITY_PYTHON);
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), "deployed-checker-"));

function normwise(a: Record<string, RTensor>, b: Record<string, RTensor>): number {
  let worst = 0;
  for (const k of Object.keys(a)) {
    const [p, q] = [toFloat64(a[k]!), toFloat64(b[k]!)];
    let [n, d] = [0, 0];
    for (let i = 0; i < p.length; i++) {
      if (Object.is(p[i], q[i])) continue;
      n += (p[i]! - q[i]!) ** 2;
      d += p[i]! ** 2;
    }
    worst = Math.max(worst, Math.sqrt(n / (d || 1)));
  }
  return worst;
}

const partitions = (r: EpResult | undefined) => (r && !("error" in r) ? r.partitions : undefined);
const whole = (r: EpResult | undefined) =>
  !!r && !("error" in r) && r.partitions === 1 && r.supported === r.nodes;

const rows = [
  "| model | target | exported, dims fixed | with value_info | lowered | error |",
  "|---|---|---|---|---|---|",
];
const worse: string[] = [];
try {
  for (const { name, model: m, dims } of deployedModels(only)) {
    const fixed = join(work, `${name}.fixed.onnx`);
    const typed = join(work, `${name}.typed.onnx`);
    saveModel(modelOf(transform(m, fixDims(dims))), fixed);
    saveModel(modelOf(transform(m, pipeline("typed", [fixDims(dims), inferValueInfo()]))), typed);
    const inputs = randomInputs(m, 1, dims) as Record<string, RTensor>;
    // onnxruntime on a thread per row, as the corpus's references (DEPLOYED_ORT_THREADS): its
    // DynamicQuantizeLSTM shares one scale between the rows a thread takes
    const threads = DEPLOYED_ORT_THREADS;
    const before = await runOrt(m, inputs, { threads }).catch(() => undefined);
    for (const t of ["coreml", "nnapi"] as const) {
      const r = lower(m, { profile: loadProfile(t), dims });
      if (!r.ok) {
        rows.push(`| ${name} | ${t} | | | refused | |`);
        continue;
      }
      const out = join(work, `${name}.${t}.onnx`);
      saveModel(r.model, out);
      const [a, b, c] = usability(python, [fixed, typed, out]).map((v) => v[t]);
      let error = "not on onnxruntime";
      if (before)
        error = await runOrt(r.model, inputs, { threads }).then(
          (after) => normwise(before, after).toExponential(1),
          (e: Error) => `fails: ${e.message.slice(0, 40)}`,
        );
      const row = `| ${name} | ${t} | ${estimateCell(a)} | ${estimateCell(b)} | ${estimateCell(c)} | ${error} |`;
      rows.push(row);
      console.error(row);
      const [pb, pc] = [partitions(b), partitions(c)];
      if (pc !== undefined && pb !== undefined && pc > pb && !whole(c)) worse.push(row);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(rows.join("\n"));
console.log(`\nmore partitions after lower (and not one covering every node): ${worse.length}`);
for (const w of worse) console.log(w);

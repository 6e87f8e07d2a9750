// `npm run corpus:deployed`: makes the corpus of models as they are deployed (quantized by
// onnxruntime's quantizer, converted to float16/bfloat16, fused by onnxruntime's transformers
// optimizer or saved by an onnxruntime session after its graph optimizations), from small float
// models with random weights, into backend-test folders with onnxruntime's outputs as references,
// and DIR/manifest.json mapping every op to the models that use it. scripts/corpus/deployed.py
// does the work with the corpus Python (scripts/corpus/python.ts).
//
//   npx tsx scripts/corpus/deployed.ts [--out DIR] [--only SUBSTRING] [--list]
//
// DIR defaults to test/data/deployed: the corpus is small (4.7 MB) and committed, so that the
// tests need no Python; run this again after changing the recipes, and commit the result.

import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { CORPUS_DIR, ensurePython, REPO_ROOT } from "./python.js";

const args = process.argv.slice(2);
const at = args.indexOf("--out");
const out = resolve(at >= 0 ? args[at + 1]! : join(REPO_ROOT, "test", "data", "deployed"));
const rest = args.filter((_, i) => at < 0 || (i !== at && i !== at + 1));

let python: string;
try {
  python = ensurePython(["torch", "transformers", "onnx", "onnxruntime"]);
} catch (e) {
  process.stderr.write(`corpus:deployed: ${(e as Error).message}\n`);
  process.exit(2);
}
const r = spawnSync(python, [join(CORPUS_DIR, "deployed.py"), "--out", out, ...rest], {
  stdio: "inherit",
  env: { ...process.env, PYTHONWARNINGS: "ignore" },
});
process.exitCode = r.status ?? 2;

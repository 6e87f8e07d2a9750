// `npm run corpus:export`: exports resnet18, mobilenet_v3_small and convnext_tiny (torchvision)
// and tiny BERT and GPT-2 (transformers) with random weights, each by torch's legacy exporter at
// opsets 11, 13 and 17, by its dynamo exporter, and with modules as functions; and a Llama-style
// decoder LLM by the dynamo exporter with its weights in an external data file (opset 20, opset 23,
// opset 23 with past keys and values), its size chosen by --llm-size (tiny: the test fixture,
// small: 28 MB of weights, the default; medium: 803 MB, for the inspector page; large: 3.1 GiB,
// for the benchmark); ONNX backend-test folders with onnxruntime's outputs as references
// (scripts/corpus/export.py does the work).
//
//   npx tsx scripts/corpus/export.ts [--out DIR] [--only SUBSTRING] [--list]
//                                    [--llm-size tiny|small|medium|large]
//
// DIR defaults to corpus/exported (git-ignored). Not part of npm test: it needs torch.

import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { CORPUS_DIR, ensurePython, REPO_ROOT } from "./python.js";

const args = process.argv.slice(2);
const at = args.indexOf("--out");
const out = resolve(at >= 0 ? args[at + 1]! : join(REPO_ROOT, "corpus", "exported"));
const rest = args.filter((_, i) => at < 0 || (i !== at && i !== at + 1));

let python: string;
try {
  python = ensurePython([
    "torch",
    "torchvision",
    "transformers",
    "onnx",
    "onnxruntime",
    "onnxscript",
  ]);
} catch (e) {
  process.stderr.write(`corpus:export: ${(e as Error).message}\n`);
  process.exit(2);
}
const r = spawnSync(python, [join(CORPUS_DIR, "export.py"), "--out", out, ...rest], {
  stdio: "inherit",
  env: { ...process.env, PYTHONWARNINGS: "ignore" },
});
process.exitCode = r.status ?? 2;

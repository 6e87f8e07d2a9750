// Writes targets/coreml.json from onnxruntime's table of the ops its CoreML execution provider
// runs as an ML Program (tools/ci_build/github/apple/coreml_supported_mlprogram_ops.md of the
// microsoft/onnxruntime repository at a commit, given as a file).
//
// The table lists ops and notes, no versions and no opset range. The profile takes onnxruntime's
// opset floor (7) and, conservatively, 19 as the ceiling: the EP's op builders accept a node whose
// `since` is at most 19 unless a builder raises it. So each op covers its versions in force at
// opsets 7 to 19; an op listed whose only versions are newer (Gelu-20) keeps its first version,
// since the table says it runs. com.microsoft ops take their versions from the schemas.
//
// Each note is read by hand into the NOTES below (constraints in this tool's vocabulary, and the
// rest as `partial` in short words of our own), keyed by a digest of the note: a rerun against a
// table whose notes changed stops and names the op, to be read again.
//
//   git -C <onnxruntime clone> show <commit>:tools/ci_build/github/apple/coreml_supported_mlprogram_ops.md > /tmp/coreml.md
//   npx tsx scripts/targets/from-coreml.ts /tmp/coreml.md <commit> <date read, yyyy-mm-dd>

import { readFileSync } from "node:fs";
import { constantInputs, ortOps, writeProfile, type Limits } from "./common.js";

const [file, commit, date] = process.argv.slice(2);
if (!file || !commit || !date)
  throw new Error(
    "usage: from-coreml.ts coreml_supported_mlprogram_ops.md COMMIT DATE(yyyy-mm-dd)",
  );
const OPSET = { min: 7, max: 19 };

const pool2d: Omit<Limits, "note"> = { constraints: [{ kind: "rank", input: 0, min: 4, max: 4 }] };
const NOTES: Record<string, Limits> = {
  AveragePool: { note: "bcbc67a0", ...pool2d },
  GlobalAveragePool: { note: "bcbc67a0", ...pool2d },
  GlobalMaxPool: { note: "bcbc67a0", ...pool2d },
  MaxPool: { note: "bcbc67a0", ...pool2d },
  Conv: {
    note: "90313e3f",
    constraints: [{ kind: "rank", input: 0, min: 3, max: 4 }, ...constantInputs("", "Conv", ["B"])],
  },
  ConvTranspose: {
    note: "c5eaccf7",
    constraints: [
      ...constantInputs("", "ConvTranspose", ["W", "B"]),
      { kind: "attribute", name: "auto_pad", in: ["NOTSET", "VALID"] },
    ],
    partial: "kernel_shape and output_padding left at their defaults; no output_shape",
  },
  DepthToSpace: { note: "50e45dee", partial: "CRD mode needs an input of fixed shape" },
  GatherND: { note: "bfbd25d4", constraints: [{ kind: "attribute", name: "batch_dims", in: [0] }] },
  Gemm: { note: "bcb01879", constraints: constantInputs("", "Gemm", ["B"]) },
  GridSample: {
    note: "8b5533bd",
    constraints: [{ kind: "rank", input: 0, min: 4, max: 4 }],
    partial:
      "only the linear mode with zeros padding as the note reads; linear with reflection padding and align_corners=0 fails",
  },
  MatMul: {
    note: "6ab52f46",
    partial:
      "the note limits Gemm-style attributes (transA 0, alpha 1, beta 1), not stated for MatMul",
  },
  Pow: { note: "fdcbf41a", types: ["float"], partial: "both inputs float32" },
  Range: {
    note: "2189b593",
    types: ["float", "float16", "int32"],
    partial: "int32, float16, float32",
  },
  Reciprocal: {
    note: "220900a5",
    partial: "computed with an epsilon (1e-4 by default) ONNX has not",
  },
  Resize: {
    note: "a1815f0d",
    partial: "many combinations unsupported; the EP's resize builder decides",
  },
  Slice: {
    note: "3517cf31",
    constraints: constantInputs("", "Slice", ["starts", "ends", "axes", "steps"]),
  },
  Split: { note: "6362e86d", constraints: constantInputs("", "Split", ["split"]) },
  Tile: { note: "3f23dce3", constraints: [{ kind: "rank", input: 0, min: 0, max: 5 }] },
  "com.microsoft.QuickGelu": { note: "70d6a2b1", informative: true },
  "com.microsoft.FusedConv": {
    note: "2c10dcb1",
    constraints: [
      {
        kind: "attribute",
        name: "activation",
        in: ["Relu", "Sigmoid", "Tanh", "LeakyRelu", "Clip", "HardSigmoid"],
      },
    ],
  },
};

const ops = ortOps(readFileSync(file, "utf8"), NOTES, OPSET.max);

await writeProfile({
  name: "coreml",
  version: 1,
  backend: "Apple CoreML through onnxruntime's CoreML execution provider (ML Program)",
  backendVersion: `onnxruntime main, table read ${date}`,
  source: {
    url: `https://github.com/microsoft/onnxruntime/blob/${commit}/tools/ci_build/github/apple/coreml_supported_mlprogram_ops.md`,
    commit,
    date,
  },
  opset: OPSET,
  ops,
});

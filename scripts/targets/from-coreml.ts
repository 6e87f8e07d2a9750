// Writes targets/coreml.json from the table of the ops onnxruntime's CoreML execution provider
// runs as an ML Program, as the release that judges models ships it: the Python wheel's
// onnxruntime/tools/mobile_helpers/coreml_supported_mlprogram_ops.md, which onnxruntime's own
// usability checker (`python -m onnxruntime.tools.check_onnx_model_mobile_usability`) reads. A
// copy of the release's table is kept in test/data/targets/onnxruntime-<version>/, and a test
// holds the profile to it.
//
// The table lists ops and notes, no versions and no opset range. The profile takes onnxruntime's
// opset floor (7) and, conservatively, 19 as the ceiling: the EP's op builders accept a node whose
// `since` is at most 19 unless a builder raises it. So each op covers its versions in force at
// opsets 7 to 19; an op listed whose only versions are newer (Gelu-20) keeps its first version,
// since the table says it runs. com.microsoft ops take their versions from the schemas.
//
// The checker also requires every input of a node to have a fixed shape (every dim above 0: an
// empty tensor counts as not fixed) and a rank of at most 5 (its max_rank for CoreML): the
// profile's `everyNode` says so.
//
// Each note is read by hand into the NOTES below (constraints in this tool's vocabulary; what
// nothing can check as a caveat in short words of our own), keyed by a digest of the note: a
// rerun against a table whose notes changed stops and names the op, to be read again.
//
//   npx tsx scripts/targets/from-coreml.ts \
//     test/data/targets/onnxruntime-1.30.0/coreml_supported_mlprogram_ops.md 1.30.0 <date read>

import { readFileSync } from "node:fs";
import type { Constraint } from "../../src/targets/profile.js";
import { constantInputs, inputTypes, ortOps, writeProfile, type Limits } from "./common.js";

const [file, release, date] = process.argv.slice(2);
if (!file || !release || !date)
  throw new Error(
    "usage: from-coreml.ts coreml_supported_mlprogram_ops.md RELEASE(1.30.0) DATE(yyyy-mm-dd)",
  );
const OPSET = { min: 7, max: 19 };
const attr = (name: string, values: (string | number)[]): Constraint => ({
  kind: "attribute",
  name,
  in: values,
});

const pool2d: Omit<Limits, "note"> = { constraints: [{ kind: "rank", input: 0, min: 4, max: 4 }] };
const NOTES: Record<string, Limits> = {
  // "Both inputs must be bool": And's signature says as much; held all the same
  And: { note: "f9ed49f4", constraints: inputTypes("", "And", ["A", "B"], ["bool"]) },
  AveragePool: { note: "bcbc67a0", ...pool2d },
  GlobalAveragePool: { note: "bcbc67a0", ...pool2d },
  GlobalMaxPool: { note: "bcbc67a0", ...pool2d },
  MaxPool: { note: "bcbc67a0", ...pool2d },
  Conv: {
    note: "90313e3f",
    constraints: [{ kind: "rank", input: 0, min: 3, max: 4 }, ...constantInputs("", "Conv", ["B"])],
  },
  // as the EP's builder reads it: kernel_shape, when given, must match the weight's dims
  ConvTranspose: {
    note: "c5eaccf7",
    constraints: [
      ...constantInputs("", "ConvTranspose", ["W", "B"]),
      { kind: "attribute", name: "auto_pad", notIn: ["SAME_UPPER", "SAME_LOWER"] },
      { kind: "kernel-matches-weight" },
      { kind: "attribute", name: "output_shape", absent: true },
      attr("output_padding", [0]),
    ],
  },
  DepthToSpace: {
    note: "50e45dee",
    constraints: [
      { kind: "any", of: [[attr("mode", ["DCR"])], [{ kind: "static-dims", input: 0 }]] },
    ],
  },
  GatherND: { note: "bfbd25d4", constraints: [attr("batch_dims", [0])] },
  // and the MatMul row's note, which is Gemm's: the EP's one builder for both refuses a Gemm
  // with transA, alpha or beta other than 0, 1, 1 (gemm_op_builder.cc)
  Gemm: {
    note: "bcb01879",
    constraints: [
      ...constantInputs("", "Gemm", ["B"]),
      attr("transA", [0]),
      attr("alpha", [1]),
      attr("beta", [1]),
    ],
  },
  // the builder: mode given as 'linear' or 'zeros' (absent, it reads 'linear'), and not linear
  // with reflection padding and align_corners 0
  GridSample: {
    note: "8b5533bd",
    constraints: [
      { kind: "rank", input: 0, min: 4, max: 4 },
      {
        kind: "any",
        of: [
          [{ kind: "attribute", name: "mode", absent: true }],
          [attr("mode", ["linear", "zeros"])],
        ],
      },
      {
        kind: "any",
        of: [
          [attr("mode", ["zeros"])],
          [{ kind: "attribute", name: "padding_mode", notIn: ["reflection"] }],
          [attr("align_corners", [1])],
        ],
      },
    ],
  },
  // the note is Gemm's (read into Gemm's row): MatMul has none of these attributes
  MatMul: { note: "6ab52f46", informative: true },
  Pow: { note: "fdcbf41a", constraints: inputTypes("", "Pow", ["X", "Y"], ["float"]) },
  Reciprocal: {
    note: "220900a5",
    caveat: "computed with an epsilon (1e-4 by default) that ONNX's Reciprocal has not",
  },
  Resize: {
    note: "a1815f0d",
    caveat: "the EP's resize builder takes some combinations of modes and inputs only",
  },
  Slice: {
    note: "3517cf31",
    constraints: constantInputs("", "Slice", ["starts", "ends", "axes", "steps"]),
  },
  Split: { note: "6362e86d", constraints: constantInputs("", "Split", ["split"]) },
  Tile: { note: "3f23dce3", constraints: [{ kind: "rank", input: 0, min: 0, max: 5 }] },
  Where: {
    note: "8640ff59",
    constraints: inputTypes("", "Where", ["X", "Y"], ["float", "float16"]),
  },
  "com.microsoft.QuickGelu": { note: "70d6a2b1", informative: true },
  "com.microsoft.FusedConv": {
    note: "2c10dcb1",
    constraints: [
      attr("activation", ["Relu", "Sigmoid", "Tanh", "LeakyRelu", "Clip", "HardSigmoid"]),
    ],
  },
};

const ops = ortOps(readFileSync(file, "utf8"), NOTES, OPSET.max);

await writeProfile({
  name: "coreml",
  version: 2,
  backend: "Apple CoreML through onnxruntime's CoreML execution provider (ML Program)",
  backendVersion: `onnxruntime ${release}`,
  source: {
    url: `https://github.com/microsoft/onnxruntime/blob/v${release}/tools/ci_build/github/apple/coreml_supported_mlprogram_ops.md`,
    commit: `v${release} (the Python wheel onnxruntime==${release}, onnxruntime/tools/mobile_helpers/coreml_supported_mlprogram_ops.md)`,
    date,
  },
  opset: OPSET,
  everyNode: [
    { kind: "static-dims", nonEmpty: true },
    { kind: "rank", min: 0, max: 5 },
  ],
  ops,
});

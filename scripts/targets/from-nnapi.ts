// Writes targets/nnapi.json from the table of the ops onnxruntime's NNAPI execution provider
// (Android) runs, as the release that judges models ships it: the Python wheel's
// onnxruntime/tools/mobile_helpers/nnapi_supported_ops.md, which onnxruntime's own usability
// checker reads. A copy of the release's table is kept in test/data/targets/onnxruntime-<version>/,
// and a test holds the profile to it.
//
// The table lists ops and notes, no versions and no opset range. The profile takes onnxruntime's
// opset floor (7) and, conservatively, 19 as the ceiling (the same as the CoreML profile's; the
// NNAPI builders state no lower one): each op covers its versions in force at opsets 7 to 19, a
// com.microsoft op its versions in the schemas. The checker requires every input of a node to
// have a fixed shape (every dim above 0): the profile's `everyNode` says so.
//
// Each note is read by hand into the NOTES below (constraints in this tool's vocabulary; what
// nothing can check as a caveat), keyed by a digest of the note: a rerun against a table whose
// notes changed stops and names the op, to be read again.
//
//   npx tsx scripts/targets/from-nnapi.ts \
//     test/data/targets/onnxruntime-1.30.0/nnapi_supported_ops.md 1.30.0 <date read>

import { readFileSync } from "node:fs";
import type { Constraint } from "../../src/targets/profile.js";
import { constantInputs, inputTypes, ortOps, writeProfile, type Limits } from "./common.js";

const [file, release, date] = process.argv.slice(2);
if (!file || !release || !date)
  throw new Error("usage: from-nnapi.ts nnapi_supported_ops.md RELEASE(1.30.0) DATE(yyyy-mm-dd)");
const OPSET = { min: 7, max: 19 };

const rank4: Constraint = { kind: "rank", input: 0, min: 4, max: 4 };

const NOTES: Record<string, Limits> = {
  AveragePool: { note: "64320133", constraints: [rank4] },
  GlobalAveragePool: { note: "64320133", constraints: [rank4] },
  GlobalMaxPool: { note: "64320133", constraints: [rank4] },
  MaxPool: { note: "64320133", constraints: [rank4] },
  Conv: { note: "3d9c0ab0", constraints: [rank4, ...constantInputs("", "Conv", ["W", "B"])] },
  DepthToSpace: {
    note: "2f8097fc",
    constraints: [{ kind: "attribute", name: "mode", in: ["DCR"] }],
  },
  DequantizeLinear: {
    note: "f63880b3",
    constraints: constantInputs("", "DequantizeLinear", ["x_scale", "x_zero_point"]),
  },
  Gather: {
    note: "ab6c3c54",
    constraints: [
      {
        kind: "any",
        of: [
          constantInputs("", "Gather", ["indices"]),
          inputTypes("", "Gather", ["indices"], ["int32"]),
        ],
      },
    ],
  },
  Gemm: {
    note: "7f4aad19",
    constraints: [
      {
        kind: "any",
        of: [constantInputs("", "Gemm", ["B"]), [{ kind: "attribute", name: "transB", in: [1] }]],
      },
    ],
  },
  Pad: {
    note: "e5b2aa03",
    constraints: [
      { kind: "attribute", name: "mode", in: ["constant"] },
      ...constantInputs("", "Pad", ["pads", "constant_value"]),
      { kind: "input-values", input: 1, name: "pads", min: 0 },
    ],
  },
  QLinearConv: {
    note: "a267fc66",
    constraints: [
      rank4,
      ...constantInputs("", "QLinearConv", ["w", "B"]),
      ...constantInputs("", "QLinearConv", [
        "x_scale",
        "x_zero_point",
        "w_scale",
        "w_zero_point",
        "y_scale",
        "y_zero_point",
      ]),
    ],
  },
  QLinearMatMul: {
    note: "f63880b3",
    constraints: constantInputs("", "QLinearMatMul", [
      "a_scale",
      "a_zero_point",
      "b_scale",
      "b_zero_point",
      "y_scale",
      "y_zero_point",
    ]),
  },
  QuantizeLinear: {
    note: "f63880b3",
    constraints: constantInputs("", "QuantizeLinear", ["y_scale", "y_zero_point"]),
  },
  Resize: { note: "4e24e8c1", constraints: [rank4] },
  Split: {
    note: "329414c6",
    constraints: [...constantInputs("", "Split", ["split"]), { kind: "even-split" }],
  },
  Squeeze: { note: "18fd54b8", constraints: constantInputs("", "Squeeze", ["axes"]) },
  Unsqueeze: { note: "18fd54b8", constraints: constantInputs("", "Unsqueeze", ["axes"]) },
  "com.microsoft.QLinearAdd": {
    note: "f63880b3",
    constraints: constantInputs("com.microsoft", "QLinearAdd", [
      "A_scale",
      "A_zero_point",
      "B_scale",
      "B_zero_point",
      "C_scale",
      "C_zero_point",
    ]),
  },
  "com.microsoft.QLinearAveragePool": {
    note: "0422a21e",
    constraints: [
      rank4,
      ...constantInputs("com.microsoft", "QLinearAveragePool", [
        "x_scale",
        "x_zero_point",
        "y_scale",
        "y_zero_point",
      ]),
    ],
  },
  "com.microsoft.QLinearSigmoid": {
    note: "f63880b3",
    constraints: constantInputs("com.microsoft", "QLinearSigmoid", [
      "X_scale",
      "X_zero_point",
      "Y_scale",
      "Y_zero_point",
    ]),
  },
};

await writeProfile({
  name: "nnapi",
  version: 2,
  backend: "Android NNAPI through onnxruntime's NNAPI execution provider",
  backendVersion: `onnxruntime ${release}`,
  source: {
    url: `https://github.com/microsoft/onnxruntime/blob/v${release}/tools/ci_build/github/android/nnapi_supported_ops.md`,
    commit: `v${release} (the Python wheel onnxruntime==${release}, onnxruntime/tools/mobile_helpers/nnapi_supported_ops.md)`,
    date,
  },
  opset: OPSET,
  everyNode: [{ kind: "static-dims", nonEmpty: true }],
  ops: ortOps(readFileSync(file, "utf8"), NOTES, OPSET.max),
});

// Writes targets/onnx-mlir.json from onnx-mlir's table of the ONNX ops it compiles for its cpu
// target (docs/SupportedONNXOps-cpu.md of the onnx/onnx-mlir repository at a commit, given as a
// file).
//
// Per row: "Supported Opsets" `a - *` is the range of model opsets, `*` the newest the table
// states ("up to opset N", 22): the op covers the versions in force at opsets a to N ("none": not
// supported, left out). The profile's opset range is the lowest `a` of the table (6) to N.
// Binarizer (ai.onnx.ml, which the schemas do not hold) is left out and listed.
//
// Each row's Limitations and Notes are read by hand into the NOTES below: element types (the
// op's types in the schemas at opset N without those the source excludes, or the ones it names),
// constraints in this tool's vocabulary, and what nothing can check as a `caveat` in short words
// of our own; where `types` says it all, the reading is the types. A reading is
// keyed by a digest of the row's text: a rerun against a changed row stops and names the op.
//
//   git -C <onnx-mlir clone> show <commit>:docs/SupportedONNXOps-cpu.md > /tmp/onnx-mlir.md
//   git -C <onnx-mlir clone> log -1 --format=%cs <commit>      (the commit's date)
//   npx tsx scripts/targets/from-onnx-mlir.ts /tmp/onnx-mlir.md <commit> <date read> <commit date>

import { readFileSync } from "node:fs";
import type { Constraint, OpRow } from "../../src/targets/profile.js";
import {
  constantInputs,
  digest,
  registry,
  row,
  schemaName,
  sinceAt,
  tensorTypes,
  writeProfile,
  type Limits,
} from "./common.js";

const [file, commit, date, commitDate] = process.argv.slice(2);
if (!file || !commit || !date || !commitDate)
  throw new Error(
    "usage: from-onnx-mlir.ts SupportedONNXOps-cpu.md COMMIT DATE-READ COMMIT-DATE (yyyy-mm-dd)",
  );
const text = readFileSync(file, "utf8");
const upTo = /targeting up to opset (\d+)/.exec(text);
if (!upTo) throw new Error("the 'up to opset N' sentence is not in the file");
const MAX = Number(upTo[1]);

const SHORT = ["int8", "int16", "uint8", "uint16"];
const UNSIGNED = ["uint8", "uint16", "uint32", "uint64"];
const INT4 = ["int4", "uint4"];
const INTEGERS = [...new Set([...SHORT, ...UNSIGNED, "int32", "int64", ...INT4])];
const F16 = "float16 only on ppc64le and macOS";

/** A reading with `without`: the op's types at opset MAX less those. */
type Reading = Limits & { without?: string[] };
const keepdims: Constraint = { kind: "attribute", name: "keepdims", in: [1] };
const constant = (op: string, ...names: string[]) => constantInputs("", op, names);

const NOTES: Record<string, Reading> = {
  Add: { note: "0b369d2c", without: SHORT },
  BatchNormalization: {
    note: "e12820ec",
    constraints: [{ kind: "attribute", name: "training_mode", in: [0] }],
  },
  Cast: { note: "998dcd80", types: ["double", "float", "float16"], caveat: F16 },
  CastLike: { note: "a2d7d903", types: ["double", "float", "float16"], caveat: F16 },
  Clip: { note: "0b369d2c", without: SHORT },
  Constant: { note: "9b8effd6", without: INT4 },
  ConstantOfShape: { note: "9b8effd6", without: INT4 },
  ConvTranspose: {
    note: "4ba3c63a",
    constraints: [
      ...constant("ConvTranspose", "W"),
      { kind: "static-dims", input: 1 },
      {
        kind: "any",
        of: [
          [{ kind: "attribute", name: "output_shape", absent: true }],
          [{ kind: "static-dims", input: 0 }],
        ],
      },
    ],
  },
  DequantizeLinear: {
    note: "da0ddbfa",
    without: INT4,
    constraints: [{ kind: "rank", input: 1, min: 0, max: 0 }], // a scalar scale: per tensor
  },
  Div: { note: "0b369d2c", without: SHORT },
  Dropout: {
    note: "a96d095d",
    constraints: [
      { kind: "absent-output", output: 1, name: "mask" },
      { kind: "input-values", input: 2, name: "training_mode", notIn: [1] },
    ],
  },
  Einsum: { note: "4b8528bf", without: SHORT, constraints: [{ kind: "static-dims" }] },
  Expand: { note: "0d9c14c2", constraints: [{ kind: "static-dims", input: 1 }] },
  Flatten: { note: "9b8effd6", without: INT4 },
  GRU: { note: "1779f6ad", constraints: constant("GRU", "W", "R", "B") },
  LSTM: { note: "1779f6ad", constraints: constant("LSTM", "W", "R", "B") },
  RNN: { note: "1779f6ad", constraints: constant("RNN", "W", "R", "B") },
  GridSample: {
    note: "22102ea2",
    constraints: [
      { kind: "rank", input: 0, min: 4, max: 5 },
      { kind: "attribute", name: "padding_mode", in: ["zeros", "border"] },
    ],
  },
  Identity: { note: "16ca4af5", without: INT4, caveat: "no sequence input" },
  If: { note: "642d6180", without: INT4, caveat: "no sequence or optional outputs" },
  IsInf: {
    note: "d81cb64e",
    types: ["bool", "double", "float"],
    constraints: [{ kind: "input-types", input: 0, name: "X", types: ["float", "double"] }],
  },
  LogSoftmax: {
    note: "220f7b86",
    // the default axis (-1 from opset 13, 1 before) is one it does not take either
    constraints: [{ kind: "attribute", name: "axis", notIn: [0, 1, -1] }],
  },
  Loop: { note: "199815a5", without: INT4, constraints: [{ kind: "static-dims" }] },
  Max: { note: "9baf6a47", without: UNSIGNED, caveat: F16 },
  MaxPool: {
    note: "175293e7",
    without: SHORT,
    constraints: [{ kind: "absent-output", output: 1, name: "Indices" }],
  },
  Min: { note: "5f108824", without: UNSIGNED, caveat: F16 },
  Mod: { note: "bd519608", types: ["double", "float", "float16"], caveat: F16 },
  Mul: { note: "e94a2e67", without: SHORT },
  Sub: { note: "e94a2e67", without: SHORT },
  Pad: {
    note: "87b9cd1b",
    without: INT4,
    constraints: [{ kind: "absent-input", input: 3, name: "axes" }],
  },
  Pow: { note: "6d34dbe0", without: INTEGERS },
  QLinearMatMul: {
    note: "4678af56",
    types: ["float", "int8", "uint8"],
  },
  QuantizeLinear: {
    note: "cf28bdda",
    without: ["int8", ...INT4],
    constraints: [{ kind: "rank", input: 1, min: 0, max: 0 }], // a scalar scale: per tensor
  },
  ReduceL1: { note: "d61ab943", constraints: [keepdims] },
  ReduceL2: { note: "d61ab943", constraints: [keepdims] },
  ReduceLogSum: { note: "d61ab943", constraints: [keepdims] },
  ReduceLogSumExp: { note: "d61ab943", constraints: [keepdims] },
  ReduceProd: { note: "d61ab943", constraints: [keepdims] },
  ReduceMax: { note: "3a0bea26", constraints: [keepdims] },
  ReduceMean: { note: "3a0bea26", constraints: [keepdims] },
  ReduceMin: { note: "3a0bea26", constraints: [keepdims] },
  ReduceSum: {
    note: "e669be89",
    constraints: [keepdims, { kind: "given-input", input: 1, name: "axes" }],
  },
  ReduceSumSquare: {
    note: "11feedc6",
    constraints: [keepdims, { kind: "given-input", input: 1, name: "axes" }],
  },
  Reshape: {
    note: "62746903",
    without: INT4,
    constraints: [
      { kind: "attribute", name: "allowzero", in: [0] },
      { kind: "static-dims", input: 1 },
    ],
  },
  Resize: {
    note: "65aeda54",
    constraints: [
      { kind: "attribute", name: "mode", in: ["nearest"] },
      {
        kind: "attribute",
        name: "coordinate_transformation_mode",
        in: [
          "half_pixel",
          "half_pixel_symmetric",
          "align_corners",
          "asymmetric",
          "tf_half_pixel_for_nn",
        ],
      },
      {
        kind: "attribute",
        name: "nearest_mode",
        in: ["round_prefer_floor", "round_prefer_ceil", "ceil"],
      },
      { kind: "attribute", name: "antialias", in: [0] },
      { kind: "attribute", name: "keep_aspect_ratio_policy", in: ["stretch"] },
      { kind: "attribute", name: "axes", absent: true },
      { kind: "static-dims", input: 2 },
      { kind: "static-dims", input: 3 },
    ],
  },
  Scan: {
    note: "03db86dc",
    without: INT4,
    constraints: [{ kind: "static-dims" }],
    caveat: "may be imprecise at newer opsets",
  },
  ScatterElements: { note: "079ffebb", caveat: "duplicate indices not handled" },
  ScatterND: {
    note: "d02aa57c",
    constraints: [{ kind: "attribute", name: "reduction", in: ["none", "max", "min"] }],
  },
  SequenceInsert: { note: "daa4d51c", caveat: "no unranked sequence elements" },
  Shape: {
    note: "525466b6",
    without: INT4,
    constraints: [
      { kind: "attribute", name: "start", absent: true },
      { kind: "attribute", name: "end", absent: true },
    ],
  },
  Size: { note: "9b8effd6", without: INT4 },
  Slice: { note: "f7384e5d", constraints: constant("Slice", "axes") },
  SpaceToDepth: { note: "dcea988a", caveat: "imprecise in one of the source's examples" },
  Split: {
    note: "8f042b6a",
    constraints: [{ kind: "input-values", input: 1, name: "split", min: 1 }],
    caveat: "limits on static and dynamic shapes the source does not state",
  },
  Squeeze: {
    note: "4fd98555",
    without: INT4,
    caveat: "limits on static and dynamic shapes the source does not state",
  },
  Unsqueeze: {
    note: "4fd98555",
    without: INT4,
    caveat: "limits on static and dynamic shapes the source does not state",
  },
  TopK: { note: "608442cc", constraints: [{ kind: "static-dims", input: 1 }] },
  Transpose: { note: "9b8effd6", without: INT4 },
  Upsample: {
    note: "10bc79ae",
    constraints: [{ kind: "static-dims" }, { kind: "static-dims", output: 0 }],
  },
};

const ops: Record<string, OpRow> = {};
const skipped: string[] = [];
let min = MAX;
for (const line of text.split("\n")) {
  const m = /^\| \*\*(\w+)\*\* \|([^|]*)\|([^|]*)\|([^|]*)\|/.exec(line);
  if (!m) continue;
  const [name, range, limitations, notes] = m.slice(1).map((x) => x.trim()) as string[];
  if (range === "none") continue;
  const r = /^(\d+) - (\d+|\*)$/.exec(range!);
  if (!r) throw new Error(`${name}: opsets '${range}' unread`);
  const op = schemaName("", name!);
  if (!op) {
    skipped.push(name!);
    continue;
  }
  const [lo, hi] = [Number(r[1]), r[2] === "*" ? MAX : Number(r[2])];
  min = Math.min(min, lo);
  const first = registry.versions("", op)[0]!.since;
  const versions = [{ from: sinceAt("", op, lo) ?? first, to: sinceAt("", op, hi)! }];
  const said = [limitations, notes].filter(Boolean).join(" | ");
  const reading = NOTES[op];
  if (said && (!reading || reading.note !== digest(said)))
    throw new Error(
      `${op}: the row's limits are new or changed (digest ${digest(said)}): read them`,
    );
  if (!said && reading) throw new Error(`${op}: the row's limits are gone: drop the reading`);
  const types =
    reading?.types ??
    (reading?.without
      ? tensorTypes("", op, MAX).filter((t) => !reading.without!.includes(t))
      : undefined);
  ops[op] = row("", versions, { ...reading, types });
}
for (const op of Object.keys(NOTES)) if (!ops[op]) throw new Error(`${op}: read, not in the table`);
console.log(`left out (not in the schemas): ${skipped.join(", ")}`);

await writeProfile({
  name: "onnx-mlir",
  version: 2,
  backend: "onnx-mlir, cpu target",
  backendVersion: `main at ${commitDate} (ops up to opset ${MAX})`,
  source: {
    url: `https://github.com/onnx/onnx-mlir/blob/${commit}/docs/SupportedONNXOps-cpu.md`,
    commit,
    date,
  },
  opset: { min, max: MAX },
  ops,
});

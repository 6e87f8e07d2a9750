// Writes targets/tensorrt.json from onnx-tensorrt's operator matrix (docs/operators.md of the
// onnx/onnx-tensorrt repository at a commit, given as a file): the opset range it states, per
// supported op its types and, from the Restrictions column, the constraints this tool's
// vocabulary can say (an input that must be an initializer or a build-time constant, "2D or 3D"
// pooling/convolution as input rank 4-5, "4D input", static dimensions); what is left of a
// restriction is read by hand into NOTES (keyed by a digest of it: a rerun on a changed
// restriction stops and names the op), as constraints, or as a caveat where nothing can check
// it. "Y [EXPERIMENTAL]" is a caveat too.
//
//   git -C <onnx-tensorrt clone> show <commit>:docs/operators.md > /tmp/trt.md
//   npx tsx scripts/targets/from-tensorrt.ts /tmp/trt.md <commit> <commit date>

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { format, resolveConfig } from "prettier";
import { SchemaRegistry } from "../../src/schema/registry.js";
import type { Constraint, OpRow, Profile } from "../../src/targets/profile.js";
import { digest, targetsDir, type Limits } from "./common.js";

const [file, commit, date] = process.argv.slice(2);
if (!file || !commit || !date)
  throw new Error("usage: from-tensorrt.ts OPERATORS.md COMMIT DATE(yyyy-mm-dd)");
const registry = SchemaRegistry.default();
const text = readFileSync(file, "utf8");

const range = /supports operators in the inclusive range of opset (\d+) to opset (\d+)/.exec(text);
if (!range) throw new Error("the opset range sentence is not in the file");
const [min, max] = [Number(range[1]), Number(range[2])];
const version = /^TensorRT ([\d.]+) supports/m.exec(text)?.[1] ?? "?";

const TYPES: Record<string, string[]> = {
  FP32: ["float"],
  FP16: ["float16"],
  BF16: ["bfloat16"],
  INT32: ["int32"],
  INT64: ["int64"],
  INT8: ["int8"],
  INT4: ["int4"],
  UINT8: ["uint8"],
  BOOL: ["bool"],
  FP8: ["float8e4m3fn"],
  DOUBLE: ["double"],
  // ConstantOfShape's row says "INF64": a typo of INT64 (onnx-tensorrt's ConstantOfShape
  // builds int64 tensors, as every exporter's shape code asks of it)
  INF64: ["int64"],
};

function constraintsOf(op: string, text: string): { constraints: Constraint[]; rest: string } {
  const names =
    registry
      .versions("", op)
      .at(-1)
      ?.inputs.map((i) => i.name) ?? [];
  const constraints: Constraint[] = [];
  let rest = text;
  for (const m of text.matchAll(
    /`(\w+)`(?: input)? must be (?:an initializer|a constant tensor|a build-time constant)\.?/g,
  )) {
    const k = names.indexOf(m[1]!);
    if (k < 0) continue;
    constraints.push({ kind: "constant-input", input: k, name: m[1]! });
    rest = rest.replace(m[0], "");
  }
  const twoOrThree = /2D or 3D (?:[Pp]ooling|convolutions|deconvolutions) only\.?/.exec(rest);
  if (twoOrThree) {
    constraints.push({ kind: "rank", input: 0, min: 4, max: 5 });
    rest = rest.replace(twoOrThree[0], "");
  }
  const four = /Input must be 4D input\.?/.exec(rest);
  if (four) {
    constraints.push({ kind: "rank", input: 0, min: 4, max: 4 });
    rest = rest.replace(four[0], "");
  }
  const fixed = /`input` must have static dimensions\.?/.exec(rest);
  if (fixed) {
    constraints.push({ kind: "static-dims" });
    rest = rest.replace(fixed[0], "");
  }
  return { constraints, rest: rest.replace(/<br \/>/g, " ").trim() };
}

const attr = (name: string, values: (string | number)[]): Constraint => ({
  kind: "attribute",
  name,
  in: values,
});
const noDilation = attr("dilations", [1]);
const RANDOM: Limits = { note: "270ab39c", caveat: "the seed is ignored" };

/** The restrictions left after the forms read above, read by hand (keyed by a digest). */
const NOTES: Record<string, Limits> = {
  AveragePool: { note: "da25cb3e", constraints: [noDilation] },
  Constant: {
    note: "b192b427",
    constraints: ["sparse_value", "value_string", "value_strings"].map((name) => ({
      kind: "attribute",
      name,
      absent: true,
    })),
  },
  DeformConv: {
    note: "70d9341f",
    constraints: [{ kind: "rank", input: 0, min: 3, max: 4 }, { kind: "symmetric-pads" }],
  },
  DequantizeLinear: {
    note: "2a5f3628",
    constraints: [{ kind: "input-values", input: 2, name: "x_zero_point", min: 0, max: 0 }],
  },
  Dropout: {
    note: "d5dbf54e",
    constraints: [
      { kind: "constant-input", input: 2, name: "training_mode" },
      { kind: "input-values", input: 2, name: "training_mode", notIn: [1] },
    ],
  },
  GRU: { note: "5ebe5885", constraints: [{ kind: "same-activations" }] },
  RNN: { note: "7ee88da8", constraints: [{ kind: "same-activations" }] },
  LSTM: {
    note: "15458ae8",
    constraints: [{ kind: "same-activations" }, attr("input_forget", [0]), attr("layout", [0])],
  },
  Hardmax: { note: "eb5abac7", constraints: [{ kind: "static-dims", input: 0, axisFrom: "axis" }] },
  If: { note: "d25ef168", constraints: [{ kind: "branches-agree" }] },
  LayerNormalization: {
    note: "3a32a335",
    constraints: [
      { kind: "absent-output", output: 1, name: "Mean" },
      { kind: "absent-output", output: 2, name: "InvStdDev" },
    ],
  },
  // the carried values' shapes across iterations are known only when it runs
  Loop: {
    note: "c768dc6a",
    caveat: "scan outputs of a static length, carried values of one shape across iterations",
  },
  LpPool: { note: "da25cb3e", constraints: [noDilation] },
  MaxPool: {
    note: "a4a031a8",
    constraints: [{ kind: "absent-output", output: 1, name: "Indices" }, noDilation],
  },
  QuantizeLinear: {
    note: "95c3d6aa",
    constraints: [{ kind: "input-values", input: 2, name: "y_zero_point", min: 0, max: 0 }],
  },
  RandomNormal: RANDOM,
  RandomNormalLike: RANDOM,
  RandomUniform: RANDOM,
  RandomUniformLike: RANDOM,
  // with `scales` given, `axes` (when set) must be every axis in order
  Resize: {
    note: "47a08635",
    constraints: [
      attr("coordinate_transformation_mode", [
        "half_pixel",
        "pytorch_half_pixel",
        "tf_half_pixel_for_nn",
        "asymmetric",
        "align_corners",
      ]),
      attr("mode", ["nearest", "linear"]),
      attr("nearest_mode", ["floor", "ceil", "round_prefer_floor", "round_prefer_ceil"]),
      attr("keep_aspect_ratio_policy", ["stretch"]),
      {
        kind: "any",
        of: [
          [{ kind: "absent-input", input: 2, name: "scales" }],
          [{ kind: "every-axis", attribute: "axes" }],
        ],
      },
      attr("antialias", [0]),
    ],
  },
  ScatterND: { note: "04fa79ab", constraints: [attr("reduction", ["none"])] },
  TopK: {
    note: "55c54b24",
    constraints: [attr("sorted", [1]), { kind: "input-values", input: 1, name: "K", max: 3839 }],
  },
};

// Where the matrix's types are those of one input (the data), not of every type variable: the
// index or axis input of CumSum takes int32 and int64 as ONNX says, and a quantizer's types are
// its float input's (QuantizeLinear) or its quantized input's (DequantizeLinear). The quantized
// side is one of the types the page calls quantized (INT8, INT4, FP8), "UINT8 only as network
// input or output tensor types".
const QUANTIZED = ["int8", "int4", "float8e4m3fn"];
const TYPED_INPUTS: Record<string, (types: string[]) => Constraint[]> = {
  CumSum: (types) => [{ kind: "input-types", input: 0, name: "x", types }],
  QuantizeLinear: (types) => [
    { kind: "input-types", input: 0, name: "x", types },
    { kind: "output-types", output: 0, name: "y", types: QUANTIZED },
  ],
  DequantizeLinear: (types) => [{ kind: "input-types", input: 0, name: "x", types }],
};

const ops: Record<string, OpRow> = {};
for (const line of text.split("\n")) {
  const c = line.split("|").map((x) => x.trim());
  if (c.length < 4 || !/^[A-Z]\w*$/.test(c[1] ?? "") || !c[2]?.startsWith("Y")) continue;
  const op = c[1]!;
  const atMax = registry.tryResolveStandard("", op, max);
  if (!atMax) continue; // an op the schemas do not have (ImageScaler, ParametricSoftplus, …)
  const names = (c[3] ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = names.find((t) => !TYPES[t]);
  if (unknown) throw new Error(`${op}: type '${unknown}' is not one read here: read it`);
  const types = [...new Set(names.flatMap((t) => TYPES[t]!))];
  const { constraints, rest } = constraintsOf(op, c[4] ?? "");
  const reading = NOTES[op];
  if (rest && reading?.note !== digest(rest))
    throw new Error(`${op}: '${rest}' is new or changed (digest ${digest(rest)}): read it`);
  if (!rest && reading) throw new Error(`${op}: the restriction is gone: drop its reading`);
  const caveat = [c[2]!.includes("EXPERIMENTAL") ? "experimental" : "", reading?.caveat ?? ""]
    .filter(Boolean)
    .join("; ");
  const typed = TYPED_INPUTS[op];
  ops[op] = {
    domain: "",
    versions: [{ from: 1, to: atMax.since }],
    ...(types.length && !typed ? { types } : {}),
    constraints: [...(typed ? typed(types) : []), ...constraints, ...(reading?.constraints ?? [])],
    ...(caveat ? { caveat } : {}),
  };
}

const profile: Profile = {
  name: "tensorrt",
  version: 2,
  backend: "NVIDIA TensorRT, through onnx-tensorrt",
  backendVersion: version,
  source: {
    url: `https://github.com/onnx/onnx-tensorrt/blob/${commit}/docs/operators.md`,
    commit,
    date,
  },
  opset: { min, max },
  ops,
};
const out = join(targetsDir(), "tensorrt.json");
const config = (await resolveConfig(out)) ?? {};
writeFileSync(out, await format(JSON.stringify(profile), { ...config, filepath: out }));
const rows = Object.values(ops);
console.log(
  `tensorrt ${version}: opset ${min}-${max}, ${rows.length} ops, ${rows.reduce((n, r) => n + r.constraints.length, 0)} constraints, ${rows.filter((r) => r.caveat).length} with a caveat`,
);

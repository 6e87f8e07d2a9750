// The profiles read from backends' own operator tables (issue 31, item 1; issue 39): coreml and
// nnapi (onnxruntime 1.30's EP tables, the ones its usability checker reads), openvino (its ONNX
// frontend's table), onnx-mlir (its cpu table). Per profile: it validates and names its source;
// the number of ops is the number read from the source (written here by hand); a few rows
// checked against the source; and every op the source limits carries a constraint, element types
// or a caveat (the list of limited ops written here from the source). `targets` lists them.

import { describe, expect, it } from "vitest";
import { listProfiles, loadProfile } from "../../src/targets/load.js";
import type { Profile } from "../../src/targets/profile.js";
import { runCli } from "../helpers/cli.js";

const counts = (p: Profile) => {
  const rows = Object.values(p.ops);
  return {
    ops: rows.length,
    types: rows.filter((r) => r.types).length,
    constraints: rows.reduce((n, r) => n + r.constraints.length, 0),
    caveat: rows.filter((r) => r.caveat).length,
  };
};

function limitedKeepTheirLimits(p: Profile, limited: string[]) {
  for (const op of limited) {
    const row = p.ops[op];
    expect(row, `${p.name}: ${op}`).toBeDefined();
    expect(
      row!.constraints.length > 0 || row!.caveat !== undefined || row!.types !== undefined,
      `${p.name}: ${op}`,
    ).toBe(true);
  }
}

describe("coreml (onnxruntime's CoreML EP, ML Program table)", () => {
  const p = loadProfile("coreml");

  it("validates and names its source: onnxruntime 1.30's wheel", () => {
    expect(p.source.commit).toMatch(/^v1\.30\.0 \(the Python wheel onnxruntime==1\.30\.0/);
    expect(p.source.url).toContain(`/blob/v1.30.0/`);
    expect(p.source.url).toMatch(/apple\/coreml_supported_mlprogram_ops\.md$/);
    expect(p.opset).toEqual({ min: 7, max: 19 });
  });

  it("59 ops, as the table has rows (57 ai.onnx, 2 com.microsoft)", () => {
    expect(counts(p)).toEqual({ ops: 59, types: 0, constraints: 34, caveat: 2 });
    expect(Object.values(p.ops).filter((r) => r.domain === "com.microsoft").length).toBe(2);
  });

  it("rows as the table says", () => {
    // "ai.onnx:Argmax": the schemas' ArgMax, versions in force at opsets 7 to 19
    expect(p.ops.ArgMax!.versions).toEqual([{ from: 1, to: 13 }]);
    // the table lists Gelu, whose only version is 20: kept at that version
    expect(p.ops.Gelu!.versions).toEqual([{ from: 20, to: 20 }]);
    expect(p.ops.Conv!.constraints).toEqual([
      { kind: "rank", input: 0, min: 3, max: 4 },
      { kind: "constant-input", input: 2, name: "B" },
    ]);
    // its own note, and the MatMul row's, which is Gemm's (MatMul has no such attributes)
    expect(p.ops.Gemm!.constraints).toEqual([
      { kind: "constant-input", input: 1, name: "B" },
      { kind: "attribute", name: "transA", in: [0] },
      { kind: "attribute", name: "alpha", in: [1] },
      { kind: "attribute", name: "beta", in: [1] },
    ]);
    expect(p.ops.MatMul!.constraints).toEqual([]);
    expect(p.ops.Pow!.constraints.map((c) => c.kind)).toEqual(["input-types", "input-types"]);
    expect(p.ops.Range).toBeUndefined(); // not in 1.30's table
    expect(p.ops["com.microsoft.FusedConv"]!.constraints[0]).toMatchObject({
      kind: "attribute",
      name: "activation",
    });
    expect(p.ops["com.microsoft.QuickGelu"]!.caveat).toBeUndefined(); // its note only describes
    expect(p.ops.Abs).toBeUndefined(); // not in the table
    expect(p.ops.Floor).toBeUndefined();
  });

  it("every op the table limits keeps its limit", () => {
    limitedKeepTheirLimits(p, [
      "AveragePool",
      "Conv",
      "ConvTranspose",
      "DepthToSpace",
      "GatherND",
      "Gemm",
      "GlobalAveragePool",
      "GlobalMaxPool",
      "GridSample",
      "MaxPool",
      "Pow",
      "Reciprocal",
      "Resize",
      "Slice",
      "Split",
      "Tile",
      "Where",
      "And",
      "com.microsoft.FusedConv",
    ]);
  });
});

describe("nnapi (onnxruntime's NNAPI EP table)", () => {
  const p = loadProfile("nnapi");

  it("validates and names its source: onnxruntime 1.30's wheel", () => {
    expect(p.source.commit).toMatch(/^v1\.30\.0 \(the Python wheel onnxruntime==1\.30\.0/);
    expect(p.source.url).toContain(`/blob/v1.30.0/`);
    expect(p.source.url).toMatch(/android\/nnapi_supported_ops\.md$/);
    expect(p.opset).toEqual({ min: 7, max: 19 });
  });

  it("53 ops, as the table has rows (50 ai.onnx, 3 com.microsoft)", () => {
    expect(counts(p)).toEqual({ ops: 53, types: 0, constraints: 53, caveat: 0 });
    expect(Object.values(p.ops).filter((r) => r.domain === "com.microsoft").length).toBe(3);
  });

  it("rows as the table says", () => {
    expect(p.ops.Abs!.versions).toEqual([{ from: 1, to: 13 }]);
    expect(p.ops.Abs!.constraints).toEqual([]);
    expect(p.ops.DepthToSpace!.constraints).toEqual([
      { kind: "attribute", name: "mode", in: ["DCR"] },
    ]);
    expect(p.ops.Squeeze!.constraints).toEqual([
      { kind: "constant-input", input: 1, name: "axes" },
    ]);
    expect(p.ops.QLinearConv!.constraints).toHaveLength(9); // 2D, w and B, six scales/zero points
    expect(p.ops.Gather!.constraints[0]!.kind).toBe("any"); // constant, or int32 indices
    expect(p.ops.LeakyRelu).toBeDefined();
    expect(p.ops.Pad!.constraints).toContainEqual({
      kind: "attribute",
      name: "mode",
      in: ["constant"],
    });
    expect(p.ops.Cos).toBeUndefined(); // not in the table
    expect(p.ops.LayerNormalization).toBeUndefined();
  });

  it("every op the table limits keeps its limit", () => {
    limitedKeepTheirLimits(p, [
      "AveragePool",
      "Conv",
      "DepthToSpace",
      "DequantizeLinear",
      "Gather",
      "Gemm",
      "GlobalAveragePool",
      "GlobalMaxPool",
      "MaxPool",
      "Pad",
      "QLinearConv",
      "QLinearMatMul",
      "QuantizeLinear",
      "Resize",
      "Split",
      "Squeeze",
      "Unsqueeze",
      "com.microsoft.QLinearAdd",
      "com.microsoft.QLinearAveragePool",
      "com.microsoft.QLinearSigmoid",
    ]);
  });
});

describe("openvino (its ONNX frontend's table)", () => {
  const p = loadProfile("openvino");

  it("validates and names its source at a commit", () => {
    expect(p.source.commit).toBe("0ae60f0ffec990b581cf29cae47563090e5deca0");
    expect(p.source.url).toContain(`/blob/${p.source.commit}/`);
    expect(p.source.url).toMatch(/src\/frontends\/onnx\/docs\/supported_ops\.md$/);
    // the newest "Defined Version" of an ai.onnx op (Attention-23 …): no range is stated
    expect(p.opset).toEqual({ min: 1, max: 23 });
  });

  it("235 ops: the table's 241 rows with a supported version, less 6 the schemas lack", () => {
    expect(counts(p)).toEqual({ ops: 235, types: 0, constraints: 0, caveat: 7 });
    const by: Record<string, number> = {};
    for (const r of Object.values(p.ops)) by[r.domain] = (by[r.domain] ?? 0) + 1;
    expect(by).toEqual({
      "": 181,
      "com.microsoft": 35,
      "org.openvinotoolkit": 15,
      "org.pytorch.aten": 1,
      mmdeploy: 2,
      "ai.onnx.ml": 1,
    });
    for (const op of ["ATen", "Affine", "ConstantFill", "Crop", "ImageScaler", "IsFinite"])
      expect(p.ops[op], op).toBeUndefined();
  });

  it("rows as the table says", () => {
    // Supported "13, 6, 1": one translator per listed version, the last one up to the newest
    // opset the frontend reads (23, the profile's top)
    expect(p.ops.Abs!.versions).toEqual([
      { from: 1, to: 5 },
      { from: 6, to: 12 },
      { from: 13, to: 23 },
    ]);
    // Supported "12, 1", defined "13, 12, 11, 1": ArgMax-13 is served by the 12 translator
    expect(p.ops.ArgMax!.versions).toEqual([
      { from: 1, to: 11 },
      { from: 12, to: 23 },
    ]);
    expect(p.ops.Acos!.versions).toEqual([{ from: 7, to: 23 }]);
    // defined "21, 19, 14, 13, 5, 1" beside Attention-23: Reshape-23 goes to the translator from 1
    expect(p.ops.Reshape!.versions.at(-1)).toEqual({ from: 1, to: 23 });
    expect(p.ops["com.microsoft.QuickGelu"]!.versions).toEqual([{ from: 1, to: 1 }]);
    expect(p.ops.SequenceAt!.caveat).toBeDefined();
    expect(p.ops["com.microsoft.QuickGelu"]!.versions).toEqual([{ from: 1, to: 1 }]);
    expect(p.ops.Bernoulli).toBeUndefined(); // no supported version
    expect(p.ops["com.microsoft.BeamSearch"]).toBeUndefined();
  });

  it("every op the table limits keeps its limit", () => {
    limitedKeepTheirLimits(p, [
      "ConcatFromSequence",
      "SequenceAt",
      "SequenceConstruct",
      "SequenceEmpty",
      "SequenceErase",
      "SequenceInsert",
      "SequenceLength",
    ]);
  });
});

describe("onnx-mlir (its cpu table)", () => {
  const p = loadProfile("onnx-mlir");

  it("validates and names its source at a commit", () => {
    expect(p.source.commit).toBe("5311a2ac75301fdd0e049408e1dce59bc7005b7c");
    expect(p.source.url).toContain(`/blob/${p.source.commit}/`);
    expect(p.source.url).toMatch(/docs\/SupportedONNXOps-cpu\.md$/);
    expect(p.backendVersion).toMatch(/2026-06-02/);
    // "up to opset 22"; 6 is the lowest opset of the table's rows
    expect(p.opset).toEqual({ min: 6, max: 22 });
  });

  it("151 ops: the table's 152 rows with opsets, less Binarizer (ai.onnx.ml)", () => {
    expect(counts(p)).toEqual({ ops: 151, types: 31, constraints: 57, caveat: 14 });
    expect(p.ops.Binarizer).toBeUndefined();
  });

  it("rows as the table says", () => {
    // "6 - *": the versions in force at opsets 6 to 22
    expect(p.ops.Abs!.versions).toEqual([{ from: 6, to: 13 }]);
    expect(p.ops.Abs!.types).toBeUndefined();
    // "13 - *"
    expect(p.ops.ArgMin!.versions).toEqual([{ from: 13, to: 13 }]);
    // "Cast only between float and double types. Only ppc64le and MacOS … float16."
    expect(p.ops.Cast!.types).toEqual(["double", "float", "float16"]);
    expect(p.ops.Cast!.caveat).toMatch(/float16/);
    // "No support for short integers."
    expect(p.ops.Add!.types).not.toContain("int8");
    expect(p.ops.Add!.types).toContain("int32");
    expect(p.ops.GRU!.constraints).toEqual([
      { kind: "constant-input", input: 1, name: "W" },
      { kind: "constant-input", input: 2, name: "R" },
      { kind: "constant-input", input: 3, name: "B" },
    ]);
    expect(p.ops.Slice!.constraints).toEqual([{ kind: "constant-input", input: 3, name: "axes" }]);
    expect(p.ops.ReduceMean!.constraints).toEqual([
      { kind: "attribute", name: "keepdims", in: [1] },
    ]);
    expect(p.ops.Adam).toBeUndefined(); // "none"
    expect(p.ops.HardSwish).toBeUndefined();
  });

  it("every op the table limits keeps its limit", () => {
    // the rows with Limitations or Notes (SpaceToDepth has a note only: one example imprecise)
    limitedKeepTheirLimits(p, [
      "Add",
      "BatchNormalization",
      "Cast",
      "CastLike",
      "Clip",
      "Constant",
      "ConstantOfShape",
      "ConvTranspose",
      "DequantizeLinear",
      "Div",
      "Dropout",
      "Einsum",
      "Expand",
      "Flatten",
      "GRU",
      "GridSample",
      "Identity",
      "If",
      "IsInf",
      "LSTM",
      "LogSoftmax",
      "Loop",
      "Max",
      "MaxPool",
      "Min",
      "Mod",
      "Mul",
      "Pad",
      "Pow",
      "QLinearMatMul",
      "QuantizeLinear",
      "RNN",
      "ReduceL1",
      "ReduceL2",
      "ReduceLogSum",
      "ReduceLogSumExp",
      "ReduceMax",
      "ReduceMean",
      "ReduceMin",
      "ReduceProd",
      "ReduceSum",
      "ReduceSumSquare",
      "Reshape",
      "Resize",
      "Scan",
      "ScatterElements",
      "ScatterND",
      "SequenceInsert",
      "Shape",
      "Size",
      "Slice",
      "SpaceToDepth",
      "Split",
      "Squeeze",
      "Sub",
      "TopK",
      "Transpose",
      "Unsqueeze",
      "Upsample",
    ]);
  });
});

describe("listing", () => {
  const added = ["coreml", "nnapi", "openvino", "onnx-mlir"];

  it("listProfiles has them; `targets` lists them with their sources", () => {
    expect(listProfiles().map((p) => p.name)).toEqual(expect.arrayContaining(added));
    const r = runCli(["targets"]);
    expect(r.code).toBe(0);
    for (const name of added)
      expect(r.stdout).toMatch(new RegExp(`^${name}@2: .*\\(https://github\\.com/`, "m"));
    const j = JSON.parse(runCli(["targets", "--json"]).stdout) as { target: string }[];
    expect(j.map((x) => x.target)).toEqual(expect.arrayContaining(added.map((n) => `${n}@2`)));
  });
});

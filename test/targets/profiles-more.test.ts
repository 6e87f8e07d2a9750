// The profiles read from backends' own operator tables at a commit (issue 31, item 1): coreml and
// nnapi (onnxruntime's EP tables), openvino (its ONNX frontend's table), onnx-mlir (its cpu
// table). Per profile: it validates and names its source; the number of ops is the number read
// from the source (written here by hand); a few rows checked against the source; and every op the
// source limits carries a constraint or a `partial` (the list of limited ops written here from the
// source). `targets` lists them.

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
    partial: rows.filter((r) => r.partial).length,
  };
};

function limitedKeepTheirLimits(p: Profile, limited: string[]) {
  for (const op of limited) {
    const row = p.ops[op];
    expect(row, `${p.name}: ${op}`).toBeDefined();
    expect(row!.constraints.length > 0 || row!.partial !== undefined, `${p.name}: ${op}`).toBe(
      true,
    );
  }
}

describe("coreml (onnxruntime's CoreML EP, ML Program table)", () => {
  const p = loadProfile("coreml");

  it("validates and names its source at a commit", () => {
    expect(p.source.commit).toBe("04f568d869ec533a48f29f67f9842ddf694d7ab1");
    expect(p.source.url).toContain(`/blob/${p.source.commit}/`);
    expect(p.source.url).toMatch(/apple\/coreml_supported_mlprogram_ops\.md$/);
    expect(p.opset).toEqual({ min: 7, max: 19 });
  });

  it("58 ops, as the table has rows (56 ai.onnx, 2 com.microsoft)", () => {
    expect(counts(p)).toEqual({ ops: 58, types: 2, constraints: 19, partial: 8 });
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
    expect(p.ops.Gemm!.constraints).toEqual([{ kind: "constant-input", input: 1, name: "B" }]);
    expect(p.ops.Pow!.types).toEqual(["float"]);
    expect(p.ops.Range!.types).toEqual(["float", "float16", "int32"]);
    expect(p.ops["com.microsoft.FusedConv"]!.constraints[0]).toMatchObject({
      kind: "attribute",
      name: "activation",
    });
    expect(p.ops["com.microsoft.QuickGelu"]!.partial).toBeUndefined(); // its note only describes
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
      "MatMul",
      "MaxPool",
      "Pow",
      "Range",
      "Reciprocal",
      "Resize",
      "Slice",
      "Split",
      "Tile",
      "com.microsoft.FusedConv",
    ]);
  });
});

describe("nnapi (onnxruntime's NNAPI EP table)", () => {
  const p = loadProfile("nnapi");

  it("validates and names its source at a commit", () => {
    expect(p.source.commit).toBe("5dae05e21e44e5bbe485beb765561dd808191fb2");
    expect(p.source.url).toContain(`/blob/${p.source.commit}/`);
    expect(p.source.url).toMatch(/android\/nnapi_supported_ops\.md$/);
    expect(p.opset).toEqual({ min: 7, max: 19 });
  });

  it("52 ops, as the table has rows (49 ai.onnx, 3 com.microsoft)", () => {
    expect(counts(p)).toEqual({ ops: 52, types: 0, constraints: 49, partial: 4 });
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
    expect(p.ops.Gather!.partial).toMatch(/int32/);
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

describe("listing", () => {
  const added = ["coreml", "nnapi"];

  it("listProfiles has them; `targets` lists them with their sources", () => {
    expect(listProfiles().map((p) => p.name)).toEqual(expect.arrayContaining(added));
    const r = runCli(["targets"]);
    expect(r.code).toBe(0);
    for (const name of added)
      expect(r.stdout).toMatch(new RegExp(`^${name}@1: .*\\(https://github\\.com/`, "m"));
    const j = JSON.parse(runCli(["targets", "--json"]).stdout) as { target: string }[];
    expect(j.map((x) => x.target)).toEqual(expect.arrayContaining(added.map((n) => `${n}@1`)));
  });
});

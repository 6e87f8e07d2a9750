// Selective expansion: --only, --keep, and a backend's op list (--target-ops).

import { describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import { parseOpList, parseTargetOps } from "../../src/expand/select.js";
import { parseModelText } from "../../src/text/parse.js";
import { f32 } from "../helpers/interp.js";
import { expand, expandResult, expectSameRun, opsOf } from "../helpers/expand.js";

const TEXT = `
  < ir_version: 9, opset_import: ["" : 18, "local" : 1] >
  g (float[2,3] x) => (float[2] a, float[2,1] b, float[2,3] c) {
    ax = Constant <value_ints: ints = [1]> ()
    a = ReduceLogSum <keepdims: int = 0> (x, ax)
    b = ReduceL1 (x, ax)
    c = local.Twice (x)
  }
  < domain: "local", opset_import: ["" : 18] >
  Twice (p) => (q) {
    s = ReduceSumSquare (p)
    q = Add (p, s)
  }`;
const x = f32([2, 3], [0.5, 1, 2, 3, 4, 1.5]);

describe("parsing op lists", () => {
  it("reads [domain:]Op[:version], a final integer being the version", () => {
    expect(parseOpList("Softmax, ai.onnx:Relu:14 com.example:MyFn")).toEqual([
      { domain: "", op: "Softmax" },
      { domain: "", op: "Relu", version: 14 },
      { domain: "com.example", op: "MyFn" },
    ]);
    expect(parseTargetOps("# backend\nAdd\n\nReduceSum:13  # comment\n")).toEqual([
      { domain: "", op: "Add" },
      { domain: "", op: "ReduceSum", version: 13 },
    ]);
    expect(() => parseTargetOps("Add\na:b:c:d\n", "ops.txt")).toThrow(/ops\.txt:2: 'a:b:c:d'/);
  });
});

describe("selective expansion", () => {
  it("--only expands just the named ops", () => {
    const before = parseModelText(TEXT);
    const r = expand(before, { only: parseOpList("ReduceL1") });
    const ops = opsOf(r.model);
    expect(ops).toContain("ReduceLogSum");
    expect(ops).toContain("local.Twice");
    expect(ops).not.toContain("ReduceL1");
    expect(r.model.functions.length).toBe(1);
    expectSameRun(before, r.model, { x });
  });

  it("--keep expands everything but the named ops, inside local function bodies too", () => {
    const before = parseModelText(TEXT);
    const r = expand(before, { keep: parseOpList("ReduceLogSum,local:Twice") });
    const ops = opsOf(r.model);
    expect(ops).toContain("ReduceLogSum");
    expect(ops).toContain("local.Twice");
    expect(ops).not.toContain("ReduceL1");
    expect(ops).not.toContain("ReduceSumSquare");
    expectSameRun(before, r.model, { x });
  });

  it("--target-ops expands exactly what the backend lacks, recursively", () => {
    const before = parseModelText(TEXT);
    const target = parseTargetOps("Constant\nReduceSum:13\nLog\nAbs\nMul\nAdd\nReduceLogSum:18\n");
    const r = expand(before, { targetOps: target });
    const ops = opsOf(r.model);
    expect(ops).toContain("ReduceLogSum");
    expect(ops).not.toContain("ReduceL1");
    expect(ops).not.toContain("local.Twice");
    expect(ops).not.toContain("ReduceSumSquare");
    expect(r.model.functions).toEqual([]);
    expectSameRun(before, r.model, { x });
  });

  it("--target-ops reports every node it cannot lower, and gives no model", () => {
    const before = parseModelText(TEXT);
    const r = expandResult(before, { targetOps: parseTargetOps("Constant\nReduceSum\nLog\n") });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.stage).toBe("ensures");
    const notes = r.notes.filter((n) => n.level === "error").map((n) => n.message);
    expect(notes.some((m) => /^Abs-\d+ is not in the target op list/.test(m))).toBe(true);
    expect(notes.some((m) => /^Mul-\d+ is not in the target op list/.test(m))).toBe(true);
    expect(notes.some((m) => /^Add-\d+ is not in the target op list/.test(m))).toBe(true);
  });

  it("a version in the target list names the version in force at that opset", () => {
    const before = parseModelText(TEXT);
    // ReduceSum:12 is ReduceSum-11 (axes an attribute): the backend lacks ReduceSum-13.
    let err: unknown;
    try {
      expand(before, { targetOps: parseTargetOps("Constant\nReduceSum:12\nLog\nAbs\nMul\nAdd\n") });
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toMatch(/ReduceSum-13 is not in the target op list/);
  });
});

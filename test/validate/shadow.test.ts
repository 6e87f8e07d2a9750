// A local function named as an operator of the imported opset never runs: the operator wins in
// run, expand, convert and the checker's view, as in onnxruntime (issue 16, item 4).

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkModel, modelFunctions } from "../../src/check/index.js";
import { convertPipeline } from "../../src/app/transform.js";
import { expandPipeline } from "../../src/expand/pipeline.js";
import { run } from "../../src/interp/executor.js";
import { modelOf } from "../../src/passes/pass.js";
import { runPass } from "../../src/passes/manager.js";
import { parseModelText } from "../../src/text/parse.js";
import { runCli } from "../helpers/cli.js";
import { DataType } from "../helpers/interp.js";
import { runOrt } from "../helpers/ort.js";
import { SHADOWED } from "./cases.js";

const x = { dtype: DataType.FLOAT, shape: [4], data: Float32Array.from([-1, 2, -3, 4]) };
const relu = [0, 2, 0, 4];

describe("an operator shadows a local function of its name", () => {
  const model = parseModelText(SHADOWED);

  it("the function table resolves Relu to the operator", () => {
    const t = modelFunctions(model);
    expect(t.called(model.graph.nodes[0]!)).toBeUndefined();
    expect(t.shadowed.map((f) => f.name)).toEqual(["Relu"]);
  });

  it("run gives Relu's numbers, as onnxruntime-node does", async () => {
    expect([...(run(model, { x }).y!.data as Float32Array)]).toEqual(relu);
    const ort = await runOrt(model, { x });
    expect([...(ort.y!.data as Float32Array)]).toEqual(relu);
  });

  it("check warns (and the model checks clean)", () => {
    const r = checkModel(model);
    expect(r.ok).toBe(true);
    expect(r.warnings).toEqual([
      {
        where: "function 'Relu'",
        message:
          "'Relu' is an operator of the imported opset, which every call runs: the function can never be called",
      },
    ]);
    const dir = mkdtempSync(join(tmpdir(), "onnx-expand-shadow-"));
    const path = join(dir, "relu.onnxtxt");
    writeFileSync(path, SHADOWED);
    const c = runCli(["check", path]);
    expect(c.code).toBe(0);
    expect(c.stdout).toContain("warning: function 'Relu': 'Relu' is an operator");
  });

  it("expand keeps the operator (expanded as Relu's own body) and drops the dead function", () => {
    const out = modelOf(runPass(expandPipeline(), model));
    expect(out.functions).toEqual([]);
    const ops = out.graph.nodes.map((n) => n.opType);
    expect(ops).not.toContain("Neg");
    expect([...(run(out, { x }).y!.data as Float32Array)]).toEqual(relu);
    const kept = modelOf(runPass(expandPipeline({ keep: [{ domain: "", op: "Relu" }] }), model));
    expect(kept.graph.nodes.map((n) => n.opType)).toEqual(["Relu"]);
  });

  it("convert converts the operator", () => {
    const out = modelOf(runPass(convertPipeline(13), model));
    expect(out.graph.nodes.map((n) => n.opType)).toEqual(["Relu"]);
    expect([...(run(out, { x }).y!.data as Float32Array)]).toEqual(relu);
  });
});

// `onnx-expand precision` and `lower --precision` as a user runs them: the report, the written
// model (onnxruntime-node runs it), and one-line errors for bad usage.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { randomInputs } from "../../src/app/index.js";
import type { RTensor } from "../../src/interp/types.js";
import { loadModel } from "../../src/io/files.js";
import { DataType } from "../../src/ir/types.js";
import { outputsError } from "../../src/passes/to-half/index.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { runOrt } from "../helpers/ort.js";

const work = mkdtempSync(join(tmpdir(), "precision-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const bert = join(__dirname, "../data/deployed/bert_fp32/model.onnx");

describe("precision (CLI)", () => {
  it("writes a float16 model with the report, which onnxruntime runs within the bound", async () => {
    const out = join(work, "bert16.onnx");
    const r = runCli(["precision", bert, "--to", "float16", "-o", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // The success line every command that writes says, then what changed: Casts put in.
    expect(r.stdout).toMatch(
      /^wrote .*bert16\.onnx \(\d+ -> \d+ nodes\)\n  made float16: \d+ nodes? /,
    );
    expect(r.stdout).toMatch(
      /float16: \d+ node\(s\) made float16, 0 kept float32, \d+ Cast\(s\) inserted, 100\.0% of weight bytes in float16, output error [\d.e-]+ \(bound 1\.00e-2; [\d.e-]+ with only the stored tensors in float16, as onnxruntime's CPU provider computes it\)/,
    );
    const m = loadModel(bert);
    const h = loadModel(out);
    expect(h.graph.initializers.filter((t) => t.dataType === DataType.FLOAT)).toEqual([]);
    const inputs = randomInputs(m, 0) as Record<string, RTensor>;
    expect(outputsError(await runOrt(h, inputs), await runOrt(m, inputs))).toBeLessThan(1e-2);
  });

  it("--json gives the report; --keep-ops names the reason", () => {
    const r = runCli([
      "precision",
      bert,
      "--to",
      "bfloat16",
      "-o",
      join(work, "b.onnx"),
      "--json",
      "--keep-ops",
      "Softmax",
    ]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      to: string;
      kept: { node: string; reason: string }[];
      error: number;
    };
    expect(report.to).toBe("bfloat16");
    expect(report.kept.length).toBeGreaterThan(0);
    const named = report.kept.filter((k) => k.reason === "its op is named by --keep-ops");
    expect(named.length).toBeGreaterThan(0);
    expect(named.every((k) => /Softmax/.test(k.node))).toBe(true);
    // The others are moved back by the verification, each with its own error.
    expect(report.kept.every((k) => named.includes(k) || /its own error/.test(k.reason))).toBe(
      true,
    );
    expect(report.error).toBeLessThan(1e-2);
  });

  it("lower --target coreml --precision float16", async () => {
    const out = join(work, "bert-coreml16.onnx");
    const r = runCli(["lower", bert, "--target", "coreml", "--precision", "float16", "-o", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/float16: \d+ node\(s\) made float16/);
    // Each step lower took, its header first: the precision step last.
    expect(r.stdout).toMatch(/^wrote .*bert-coreml16\.onnx \(\d+ -> \d+ nodes\)\n  simplify: /);
    expect(r.stdout).toMatch(/\n  to-float16: \d+ -> \d+ nodes\n    made float16: /);
    const m = loadModel(bert);
    const inputs = randomInputs(m, 0) as Record<string, RTensor>;
    expect(
      outputsError(await runOrt(loadModel(out), inputs), await runOrt(m, inputs)),
    ).toBeLessThan(1e-2);
  });

  it("refuses bad usage in one line, writing nothing", () => {
    const out = join(work, "x.onnx");
    const refused = (args: string[], why: RegExp, cmd = ["precision", bert, "--to"]) =>
      expectOneLineError(runCli([...cmd, ...args, "-o", out]), why);
    refused(["float8"], /float16 or bfloat16, not 'float8'/);
    refused(["float16", "--keep-nodes", "nope"], /no node is named 'nope'/);
    refused(["float16", "--max-error", "-1"], /--max-error must be a non-negative number/);
    refused(["coreml", "--keep-ops", "Add"], /need --precision/, ["lower", bert, "--target"]);
    expect(runCli(["info", join(work, "x.onnx")]).code).not.toBe(0);
  });
});

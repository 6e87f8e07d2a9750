// The expand and diff commands as a user runs them: exit codes, output files, nothing written on failure.

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { modelOrigins } from "../../src/inline/origin.js";
import { loadModel } from "../../src/io/files.js";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "onnx-expand-cli-"));
const example = new URL("../../examples/reduce-logsum-l1-18.onnx", import.meta.url).pathname;

describe("expand command", () => {
  it("writes the expanded model and says so; --print shows it as text", () => {
    const out = join(dir, "r.onnx");
    const r = runCli(["expand", example, "-o", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `wrote ${out} (2 -> 4 nodes)\n  expanded: 2 nodes taken out (ReduceL1 1, ReduceLogSum 1); 4 put in (ReduceSum 2, Abs 1, Log 1)\n  expanded 2 calls\n`,
    );
    const ops = loadModel(out).graph.nodes.map((n) => n.opType);
    expect(ops).toEqual(["ReduceSum", "Log", "Abs", "ReduceSum"]);
    const p = runCli(["expand", example, "--print"]);
    expect(p.code).toBe(0);
    expect(p.stdout).toContain("= Log (");
    expect(p.stdout).not.toContain("= ReduceLogSum");
  });

  it("records where each node came from (IR 8: the model's table); --no-origin records nothing", () => {
    const out = join(dir, "origins.onnx");
    expect(runCli(["expand", example, "-o", out]).code).toBe(0);
    const m = loadModel(out);
    expect(m.metadataProps!.find(([k]) => k === "onnx-expand.origins")![1]).toBe(
      '[["logsum__ReduceSum",2,"logsum|ai.onnx:ReduceLogSum:18"],["l1__Abs",2,"l1|ai.onnx:ReduceL1:18"]]',
    );
    expect(Object.fromEntries(modelOrigins(m))).toEqual({
      logsum__ReduceSum: "logsum|ai.onnx:ReduceLogSum:18",
      logsum__Log: "logsum|ai.onnx:ReduceLogSum:18",
      l1__Abs: "l1|ai.onnx:ReduceL1:18",
      l1__ReduceSum: "l1|ai.onnx:ReduceL1:18",
    });
    expect(runCli(["expand", example, "-o", out, "--force", "--no-origin"]).code).toBe(0);
    expect(loadModel(out).metadataProps ?? []).toEqual([]);
    // Converted to 21 (IR 10): on the nodes themselves.
    expect(runCli(["expand", example, "-o", out, "--force", "--opset", "21"]).code).toBe(0);
    const m21 = loadModel(out);
    expect(m21.irVersion).toBeGreaterThanOrEqual(10);
    expect(m21.metadataProps ?? []).toEqual([]);
    expect(m21.graph.nodes.map((n) => n.metadataProps)).toEqual([
      [["onnx-expand.origin", "logsum|ai.onnx:ReduceLogSum:18"]],
      [["onnx-expand.origin", "logsum|ai.onnx:ReduceLogSum:18"]],
      [["onnx-expand.origin", "l1|ai.onnx:ReduceL1:18"]],
      [["onnx-expand.origin", "l1|ai.onnx:ReduceL1:18"]],
    ]);
  });

  it("--opset converts the expanded model: LogCumSumExp-29 becomes an opset-26 model", () => {
    const out = join(dir, "lcse26.onnx");
    const lcse = new URL("../../examples/logcumsumexp-29.onnx", import.meta.url).pathname;
    const r = runCli(["expand", lcse, "-o", out, "--opset", "26"]);
    expect(r.code).toBe(0);
    const m = loadModel(out);
    expect(m.opsetImports).toEqual([{ domain: "", version: 26 }]);
    expect(m.graph.nodes.map((n) => n.opType)).not.toContain("LogCumSumExp");
    expect(runCli(["expand", lcse, "-o", out, "--opset", "x"]).code).toBe(2);
  });

  it("refuses bad usage with exit 2 and writes nothing", () => {
    const out = join(dir, "never.onnx");
    expect(runCli(["expand", example]).code).toBe(2);
    expect(runCli(["expand", example, "-o", out, "--only", "a:b:c:d"]).code).toBe(2);
    expect(runCli(["expand", example, "-o", out, "--only", "Relu", "--keep", "Abs"]).code).toBe(2);
    expect(runCli(["expand", example, "-o", example]).code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it("--target-ops: exit 1 naming what cannot be lowered, nothing written", () => {
    const ops = join(dir, "backend.txt");
    writeFileSync(ops, "# a small backend\nReduceSum:18\nLog\n");
    const out = join(dir, "t.onnx");
    const r = runCli(["expand", example, "-o", out, "--target-ops", ops]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Abs-13 is not in the target op list");
    expect(r.stderr).toContain(`nothing written to ${out}`);
    expect(existsSync(out)).toBe(false);
    writeFileSync(ops, "ReduceSum:18\nLog\nAbs\n");
    const ok = runCli(["expand", example, "-o", out, "--target-ops", ops]);
    expect(ok.code).toBe(0);
    expect(existsSync(out)).toBe(true);
  });

  it("refuses a cycle of local functions (exit 2), naming it, and writes nothing", () => {
    const src = join(dir, "cycle.onnxtxt");
    writeFileSync(
      src,
      `< ir_version: 9, opset_import: ["" : 18, "local" : 1] >
       g (float[2] x) => (float[2] y) { y = local.A (x) }
       < domain: "local", opset_import: ["" : 18, "local" : 1] >
       A (a) => (b) { b = local.A (a) }`,
    );
    const out = join(dir, "cycle.onnx");
    const r = runCli(["expand", src, "-o", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cycle \('local\.A' -> 'local\.A'\)/);
    expect(existsSync(out)).toBe(false);
  });
});

describe("diff command", () => {
  it("prints what expanding changed, as text and as JSON", () => {
    const out = join(dir, "d.onnx");
    expect(runCli(["expand", example, "-o", out]).code).toBe(0);
    const r = runCli(["diff", example, out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("~ [logsum] logsum = ReduceLogSum <keepdims: int = 0> (x, axes)");
    expect(r.stdout).toContain("2 -> 4 nodes: 0 matched, 2 removed, 4 added");
    const j = runCli(["diff", example, out, "--json"]);
    const d = JSON.parse(j.stdout);
    expect(d.same).toBe(false);
    expect(d.graph.hunks.length).toBe(2);
    expect(runCli(["diff", example, example]).stdout).toContain("no changes");
    expect(readFileSync(out).length).toBeGreaterThan(0);
  });
});

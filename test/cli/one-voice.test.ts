// Every command that writes a model says it in one voice: `wrote PATH (N -> M nodes)` (the main
// graph's nodes, all graphs' beside them when a model has nodes outside its main graph), then one
// line per kind of change by op with counts (every node with --verbose); lower says each step it
// took; fixing dims says which stay symbolic; diff counts the main graph and all graphs apart.
// (expand's line is held by test/expand/cli.test.ts, precision's by test/cli/precision.test.ts.)

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadModel } from "../../src/io/files.js";
import type { RTensor } from "../../src/interp/types.js";
import { runOrt } from "../helpers/ort.js";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "one-voice-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Two symbolic dims, a constant the conversion to 13 makes an attribute, an Identity that
// simplify removes, and an If whose branches read it (nodes outside the main graph).
const text = join(dir, "m.onnxtxt");
writeFileSync(
  text,
  `<ir_version: 8, opset_import: ["" : 18]>
agraph (float[batch,seq,4] x, bool c) => (float[batch,seq] y) {
  ax = Constant <value = int64[1] {-1}> ()
  m = ReduceMean <keepdims = 0> (x, ax)
  i = Identity(m)
  y = If(c) <then_branch = g1 () => (float[batch,seq] a) { a = Neg(i) }, else_branch = g2 () => (float[batch,seq] b) { b = Abs(i) }>
}
`,
);
const model = join(dir, "m.onnx");

const ok = (args: string[]) => {
  const r = runCli(args);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout;
};

describe("one voice for every command that writes", () => {
  it("parse", () => {
    expect(ok(["parse", text, "-o", model])).toBe(
      `wrote ${model} (4 -> 4 nodes; all graphs 6 -> 6)\n`,
    );
  });

  it("convert: the success line and the nodes converted by op; --verbose lists each", async () => {
    const out = join(dir, "c.onnx");
    expect(ok(["convert", model, "--opset", "13", "-o", out])).toBe(
      `wrote ${out} (4 -> 3 nodes; all graphs 6 -> 5)\n` +
        "  converted: 1 node rewritten (ReduceMean 1); 1 taken out (Constant 1)\n",
    );
    expect(ok(["convert", model, "--opset", "13", "-o", out, "--force", "--verbose"])).toBe(
      `wrote ${out} (4 -> 3 nodes; all graphs 6 -> 5)\n` +
        "  converted: 1 node rewritten (ReduceMean 1); 1 taken out (Constant 1)\n" +
        "    ~ node #1 (ReduceMean)\n" +
        "    - node #0 (Constant)\n",
    );
    // The model written is the one the line speaks of: onnxruntime runs it as the original.
    const inputs: Record<string, RTensor> = {
      x: { dtype: 1, shape: [2, 3, 4], data: Float32Array.from({ length: 24 }, (_, k) => k - 7) },
      c: { dtype: 9, shape: [], data: Uint8Array.of(1) },
    };
    const [a, b] = [await runOrt(loadModel(model), inputs), await runOrt(loadModel(out), inputs)];
    expect(Array.from(b.y!.data as Float32Array)).toEqual(Array.from(a.y!.data as Float32Array));
  });

  it("convert --plan: each adapted node says what happens at it, not the adapter's summary", () => {
    expect(ok(["convert", model, "--opset", "13", "--plan"]).split("\n")[2]).toBe(
      "  adapt  graph > node #1 (ReduceMean): ReduceMean 18 -> 13 (opset 18 -> 17): " +
        "attribute axes: ints = [-1] set; input #1 ('ax') dropped",
    );
  });

  it("convert --output-dir: a success line per model", () => {
    const out = join(dir, "batch");
    mkdirSync(out);
    const lines = ok(["convert", model, "--opset", "13", "--output-dir", out]).split("\n");
    expect(lines).toEqual([
      `ok: ${model}: wrote ${join(out, "m.onnx")} (4 -> 3 nodes; all graphs 6 -> 5)`,
      "  converted: 1 node rewritten (ReduceMean 1); 1 taken out (Constant 1)",
      "1 converted, 0 refused",
      "",
    ]);
  });

  it("simplify: the kinds of change and the dims left symbolic", () => {
    const out = join(dir, "s.onnx");
    expect(ok(["simplify", model, "-o", out, "--dim", "batch=2"])).toBe(
      `wrote ${out} (4 -> 2 nodes; all graphs 6 -> 4)\n` +
        "  Identity removed: 3 nodes rewritten (Abs 1, If 1, Neg 1); 1 taken out (Identity 1)\n" +
        "  lifted to initializers: 1 node taken out (Constant 1)\n" +
        "  dims: fixed batch=2; still symbolic: seq\n",
    );
  });

  it("lower: each step it took, the conversion included, then the target's report", () => {
    const out = join(dir, "l.onnx");
    const lines = ok([
      "lower",
      model,
      "--target",
      "ai.onnx-13",
      "-o",
      out,
      "--dim",
      "batch=2,seq=3",
    ]).split("\n");
    expect(lines.slice(0, 8)).toEqual([
      `wrote ${out} (4 -> 2 nodes; all graphs 6 -> 4)`,
      "  simplify: 4 -> 2 nodes; all graphs 6 -> 4",
      "    Identity removed: 3 nodes rewritten (Abs 1, If 1, Neg 1); 1 taken out (Identity 1)",
      "    lifted to initializers: 1 node taken out (Constant 1)",
      "  convert: opset 18 -> 13 for ai.onnx-13",
      "    converted: 1 node rewritten (ReduceMean 1)",
      "  dims: fixed batch=2, seq=3; none left symbolic",
      "target ai.onnx-13@1: 4 of 4 nodes supported (100.0%)",
    ]);
  });

  it("check --write-value-info", () => {
    const out = join(dir, "t.onnx");
    expect(ok(["check", model, "--write-value-info", out])).toBe(
      `wrote ${out} (4 -> 4 nodes; all graphs 6 -> 6)\nok: ${model}\n`,
    );
  });

  it("diff: the main graph and all graphs counted apart", () => {
    const out = join(dir, "c.onnx");
    const last = ok(["diff", model, out]).trimEnd().split("\n").at(-1);
    expect(last).toBe(
      "main graph 4 -> 3 nodes: 2 matched, 2 removed, 1 added, 0 changed; " +
        "all graphs 6 -> 5 nodes: 4 matched, 2 removed, 1 added, 0 changed",
    );
  });
});

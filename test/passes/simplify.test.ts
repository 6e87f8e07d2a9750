// simplify (issue 31, item 4, first part): fix-dims, fold-constants, eliminate-identity,
// remove-dead-values; each result run beside the original (interpreter, and onnxruntime on a
// real BERT) with the same numbers.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDims, randomInputs, simplify } from "../../src/app/index.js";
import { compareTensors } from "../../src/interp/backend-test.js";

import type { RTensor } from "../../src/interp/types.js";
import { loadModel } from "../../src/io/files.js";

import { expectOneLineError, runCli } from "../helpers/cli.js";
import { runOrt } from "../helpers/ort.js";

const root = join(import.meta.dirname, "..", "..");

describe("simplify on a real BERT (deployed corpus)", () => {
  const bert = join(root, "test", "data", "deployed", "bert_fp32", "model.onnx");

  it("with fixed dims its shape arithmetic folds away, and onnxruntime gives the same numbers", async () => {
    const m = loadModel(bert);
    const dims = parseDims("batch=1,sequence=8");
    const r = simplify(m, { dims });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(m.graph.nodes.length).toBe(252);
    expect(r.model.graph.nodes.length).toBe(117);
    const ops = new Set(r.model.graph.nodes.map((n) => n.opType));
    expect(ops.has("Constant"), "Constant nodes are initializers").toBe(false);
    for (const op of ["Shape", "Range", "ConstantOfShape"]) expect(ops.has(op), op).toBe(false);
    const inputs = randomInputs(m, 4, dims) as Record<string, RTensor>;
    const [a, b] = [await runOrt(m, inputs), await runOrt(r.model, inputs)];
    for (const k of Object.keys(a))
      expect(compareTensors(b[k]!, a[k]!, { rtol: 1e-5, atol: 1e-6 }), k).toBeUndefined();
  });

  it("the command: writes the result; a dim the model lacks is one line, nothing written", () => {
    const dir = mkdtempSync(join(tmpdir(), "simplify-"));
    try {
      const out = join(dir, "bert.onnx");
      const ok = runCli(["simplify", bert, "--dim", "batch=1,sequence=8", "-o", out]);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toBe(
        `wrote ${out} (252 -> 117 nodes)\n` +
          "  folded: 112 nodes taken out (Constant 50, Gather 18, Shape 17, Unsqueeze 17, Concat 8, Cast 1, … 1 more op)\n" +
          "  no-ops removed: 1 node taken out (Unsqueeze 1); 1 put in (Unsqueeze 1)\n" +
          "  merged: 13 nodes rewritten (Add 6, Pow 4, Div 2, Mul 1); 13 taken out (Constant 13)\n" +
          "  lifted to initializers: 9 nodes taken out (Constant 9)\n" +
          "  dead removed: 1 node taken out (Unsqueeze 1)\n" +
          "  dims: fixed batch=1, sequence=8; none left symbolic\n",
      );
      expect(existsSync(out)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expectOneLineError(
      runCli(["simplify", bert, "--dim", "sequnce=8", "-o", join(root, "never-written.onnx")]),
      /dim 'sequnce' is not a symbolic dim/,
    );
  });
});

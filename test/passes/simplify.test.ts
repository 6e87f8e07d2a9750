// simplify (issue 31, item 4, first part): fix-dims, fold-constants, eliminate-identity,
// remove-dead-values; each result run beside the original (interpreter, and onnxruntime on a
// real BERT) with the same numbers.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDims, randomInputs, simplify } from "../../src/app/index.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import { loadModel } from "../../src/io/files.js";
import { eliminateIdentity, foldConstants, runPass } from "../../src/passes/index.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { runOrt } from "../helpers/ort.js";

const root = join(import.meta.dirname, "..", "..");

const SHAPE_CHAIN = `<ir_version: 9, opset_import: ["" : 18]>
g (float[2,3,4] x) => (float[6,4] y, float[2,3,4] r) {
  s = Shape (x)
  zero = Constant <value: tensor = int64[1] {0}> ()
  i0 = Constant <value: tensor = int64 {0}> ()
  i1 = Constant <value: tensor = int64 {1}> ()
  a = Gather <axis: int = 0> (s, i0)
  b = Gather <axis: int = 0> (s, i1)
  ab = Mul (a, b)
  ab1 = Unsqueeze (ab, zero)
  m1 = Constant <value: tensor = int64[1] {-1}> ()
  shape = Concat <axis: int = 0> (ab1, m1)
  t = Identity (x)
  y = Reshape (t, shape)
  r = RandomNormalLike (x)
}`;

describe("fold-constants", () => {
  it("folds a Shape → Gather → Concat chain into the Reshape's constant shape", () => {
    const m = parseModelText(SHAPE_CHAIN);
    const r = runPass(foldConstants(), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const ops = r.model.graph.nodes.map((n) => n.opType);
    expect(ops).toEqual(["Identity", "Reshape", "RandomNormalLike"]);
    const shape = r.model.graph.initializers.find((t) => t.name === "shape")!;
    expect(shape.numbers()).toEqual([6, -1]);
    const x = {
      x: { dtype: 1, shape: [2, 3, 4], data: Float32Array.from({ length: 24 }, (_, i) => i) },
    };
    const before = run(m, x as never);
    const after = run(r.model, x as never);
    expect(compareTensors(after.y!, before.y!, { rtol: 0, atol: 0 })).toBeUndefined();
  });

  it("never folds randomness, and keeps a result over the byte cap", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y, float[1000] z) {
  n = Constant <value: tensor = int64[1] {1000}> ()
  big = ConstantOfShape <value: tensor = float[1] {1}> (n)
  z = Identity (big)
  y = RandomUniformLike (x)
}`);
    const r = runPass(foldConstants({ limit: 100 }), m);
    expect(r.ok && r.modified).toBe(false);
    const r2 = runPass(foldConstants(), m);
    // under the default cap it folds into an initializer, and its Constant input goes too
    expect(r2.ok && r2.model.graph.nodes.map((n) => n.opType)).toEqual([
      "Identity",
      "RandomUniformLike",
    ]);
  });
});

describe("eliminate-identity", () => {
  it("removes an Identity, and keeps one that writes a graph output", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y) { t = Identity (x)
  u = Abs (t)
  y = Identity (u) }`);
    const r = runPass(eliminateIdentity(), m);
    expect(r.ok && r.model.graph.nodes.map((n) => `${n.opType}(${n.inputs})`)).toEqual([
      "Abs(x)",
      "Identity(u)",
    ]);
  });
});

describe("simplify on a real BERT (deployed corpus)", () => {
  const bert = join(root, "test", "data", "deployed", "bert_fp32", "model.onnx");

  it("with fixed dims its shape arithmetic folds away, and onnxruntime gives the same numbers", async () => {
    const m = loadModel(bert);
    const dims = parseDims("batch=1,sequence=8");
    const r = simplify(m, { dims });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(m.graph.nodes.length).toBe(252);
    expect(r.model.graph.nodes.length).toBe(127);
    const ops = new Set(r.model.graph.nodes.map((n) => n.opType));
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
      expect(ok.stdout).toMatch(
        /\(252 -> 127 nodes; fixed batch, sequence; folded 62 nodes.*merged 13 repeated/,
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

describe("common-subexpressions", () => {
  it("merges repeated computations, never randomness, and keeps graph outputs' names", async () => {
    const { commonSubexpressions } = await import("../../src/passes/index.js");
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y, float[2] z, float[2] w) {
  a = Abs (x)
  b = Abs (x)
  r1 = RandomUniformLike (x)
  r2 = RandomUniformLike (x)
  s = Add (a, r1)
  t = Add (b, r2)
  y = Mul (s, t)
  z = Abs (x)
  w = Neg (b)
}`);
    const r = runPass(commonSubexpressions(), m);
    expect(
      r.ok && r.model.graph.nodes.map((n) => `${n.outputs[0]}=${n.opType}(${n.inputs})`),
    ).toEqual([
      "a=Abs(x)",
      "r1=RandomUniformLike(x)",
      "r2=RandomUniformLike(x)",
      "s=Add(a,r1)",
      "t=Add(a,r2)",
      "y=Mul(s,t)",
      "z=Abs(x)",
      "w=Neg(a)",
    ]);
  });
});

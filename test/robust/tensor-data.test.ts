// One validation of a tensor's stored data (ir/tensor-data.ts), used alike by check, the
// interpreter's loader (run, folded constants) and the transforms; bool bytes other than 0 and 1
// read as onnxruntime reads them (any non-zero byte is true).

import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expand, lower, simplify } from "../../src/app/transform.js";
import { runModels } from "../../src/app/runnable.js";
import { checkModel } from "../../src/check/index.js";
import { run } from "../../src/interp/executor.js";
import { saveModel } from "../../src/io/files.js";
import { Tensor, type TensorData } from "../../src/ir/tensor.js";
import { tensorDataProblem } from "../../src/ir/tensor-data.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { shippedProfiles } from "../../src/targets/shipped.node.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { runOrt } from "../helpers/ort.js";

const tmp = () => mkdtempSync(join(tmpdir(), "onnx-expand-tensor-data-"));

/** y = x + x, and an initializer W (also an output) stored as given. */
function withInitializer(dataType: number, dims: number[], data: TensorData): Model {
  const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[3] x) => (float[3] y) {
  y = Add (x, x)
}`);
  m.graph.initializers.push(new Tensor(dataType, dims, data, "W"));
  m.graph.outputs.push({ name: "W" });
  return m;
}

const raw = (n: number): TensorData => ({ kind: "raw", bytes: new Uint8Array(n) });

const MALFORMED: [string, Model, RegExp][] = [
  ["element type 0", withInitializer(0, [3], raw(12)), /element type 0 \(UNDEFINED\)/],
  ["an unknown element type", withInitializer(99, [3], raw(12)), /unknown element type 99/],
  ["float[3] in 13 bytes", withInitializer(DataType.FLOAT, [3], raw(13)), /13 bytes .* needs 12/],
  ["float[0] in 16 bytes", withInitializer(DataType.FLOAT, [0], raw(16)), /16 bytes .* needs 0/],
  ["int4[2] in 3 bytes", withInitializer(DataType.INT4, [2], raw(3)), /3 bytes .* needs 1/],
  ["uint2[5] in 1 byte", withInitializer(DataType.UINT2, [5], raw(1)), /1 bytes .* needs 2/],
  [
    "int32[3] with 5 int32_data",
    withInitializer(DataType.INT32, [3], { kind: "int32", values: new Int32Array(5) }),
    /5 values in int32_data; shape \[3\] needs 3/,
  ],
  [
    "int2[5] with 3 int32_data",
    withInitializer(DataType.INT2, [5], { kind: "int32", values: new Int32Array(3) }),
    /3 values in int32_data; shape \[5\] needs 2/,
  ],
  [
    "complex64[2] with 3 float_data",
    withInitializer(DataType.COMPLEX64, [2], { kind: "float", values: new Float32Array(3) }),
    /3 values in float_data; shape \[2\] needs 4/,
  ],
  [
    "float[3] in int64_data",
    withInitializer(DataType.FLOAT, [3], { kind: "int64", values: new BigInt64Array(3) }),
    /holds its values in int64_data; float tensors keep them in float_data/,
  ],
  [
    "a string tensor as raw data",
    withInitializer(DataType.STRING, [2], raw(2)),
    /string tensor stored as raw data/,
  ],
];

describe("malformed tensor data", () => {
  it("well-formed tensors pass: strings, packed types, complex numbers", () => {
    const utf8 = (s: string) => new TextEncoder().encode(s);
    for (const t of [
      new Tensor(DataType.STRING, [2], { kind: "string", values: [utf8("a"), utf8("bc")] }),
      new Tensor(DataType.INT4, [3], raw(2)),
      new Tensor(DataType.UINT2, [5], { kind: "int32", values: new Int32Array(2) }),
      new Tensor(DataType.COMPLEX64, [2], { kind: "float", values: new Float32Array(4) }),
      new Tensor(DataType.FLOAT, [0], { kind: "none" }),
    ])
      expect(tensorDataProblem(t)).toBeUndefined();
  });

  const webnn = shippedProfiles().find((p) => p.name === "webnn")!;
  const x = { x: { dtype: DataType.FLOAT, shape: [3], data: new Float32Array([1, 2, 3]) } };
  for (const [what, model, why] of MALFORMED)
    it(`${what}: check reports it, run, simplify, lower and expand refuse it`, () => {
      const problems = checkModel(model).problems.filter((p) => p.code === "tensor-data");
      expect(problems.map((p) => p.message).join("\n")).toMatch(why);
      expect(() => runModels([{ name: "m", model }], () => x)).toThrow(why);
      for (const r of [simplify(model), lower(model, { profile: webnn }), expand(model)]) {
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.notes.map((n) => n.message).join("\n")).toMatch(why);
      }
    });

  it("the command line says it in one line and writes nothing", () => {
    const d = tmp();
    const file = join(d, "m.onnx");
    saveModel(MALFORMED[2]![1], file);
    const c = runCli(["check", file]);
    expect(c.code).toBe(1);
    expect(c.stdout).toMatch(/initializer 'W' holds 13 bytes of raw data; shape \[3\] needs 12/);
    for (const args of [
      ["run", file, "x=json:[1,2,3]", "--output-dir", join(d, "out")],
      ["simplify", file, "-o", join(d, "s.onnx")],
      ["lower", file, "--target", "webnn", "-o", join(d, "l.onnx")],
    ]) {
      expectOneLineError(runCli(args), /'W' holds 13 bytes of raw data; shape \[3\] needs 12$/);
    }
    for (const out of ["out", "s.onnx", "l.onnx"]) expect(existsSync(join(d, out))).toBe(false);
  }, 120_000);
});

describe("bool bytes other than 0 and 1", () => {
  // B holds the raw bytes 0, 1, 2, 255; onnxruntime reads every non-zero byte as true.
  const model = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (bool[4] t) => (float[4] c, int32[4] ci, bool[4] e, bool[4] a, bool[4] x, bool[4] n, bool[4] o) {
  c = Cast <to = 1> (B)
  ci = Cast <to = 6> (B)
  e = Equal (B, t)
  a = And (B, t)
  x = Xor (B, t)
  n = Not (B)
  o = Or (B, t)
}`);
  model.graph.initializers.push(
    new Tensor(DataType.BOOL, [4], { kind: "raw", bytes: new Uint8Array([0, 1, 2, 255]) }, "B"),
  );
  const t = { dtype: DataType.BOOL, shape: [4], data: new Uint8Array([1, 1, 1, 1]) };

  it("are true, as onnxruntime reads them: Cast, Equal, And, Xor, Not, Or agree", async () => {
    expect(checkModel(model).problems).toEqual([]);
    const ours = run(model, { t });
    const theirs = await runOrt(model, { t });
    for (const name of ["c", "ci", "e", "a", "x", "n", "o"])
      expect(Array.from(ours[name]!.data as ArrayLike<number>), name).toEqual(
        Array.from(theirs[name]!.data as ArrayLike<number>),
      );
    expect(Array.from(ours.c!.data as Float32Array)).toEqual([0, 1, 1, 1]);
    expect(Array.from(ours.x!.data as Uint8Array)).toEqual([1, 0, 0, 0]);
    // The model's bytes are not changed by reading them.
    expect(Array.from(model.graph.initializers[0]!.rawBytes())).toEqual([0, 1, 2, 255]);
  });

  it("fold to the values onnxruntime computes", async () => {
    const r = simplify(model);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const folded = run(r.model, { t });
    const theirs = await runOrt(model, { t });
    for (const name of ["c", "ci", "e", "a", "x", "n", "o"])
      expect(Array.from(folded[name]!.data as ArrayLike<number>), name).toEqual(
        Array.from(theirs[name]!.data as ArrayLike<number>),
      );
  });
});

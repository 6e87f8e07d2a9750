// The app layer: what the command line and the page share (loading, binding inputs, the runnable
// check, transforms, comparing outputs, notes).

import { describe, expect, it } from "vitest";
import {
  Session,
  assertRunnable,
  bindInputs,
  compareOutputs,
  convert,
  expand,
  formatNote,
  largestDifference,
  modelFromBytes,
  randomInputs,
  requestedInputs,
  tensorDifference,
} from "../../src/app/index.js";
import { encodeModel } from "../../src/io/codec.js";
import { fromFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import { encodeTensorProto } from "../../src/interp/value-proto.js";
import { DataType } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { printModel } from "../../src/text/print.js";

const TEXT = `<ir_version: 8, opset_import: ["" : 18]>
  g (float[2] x, int64[2] k, float[2] w) => (float[2] y) {
    t = Cast <to: int = 1> (k)
    s = Add (x, t)
    y = Mul (s, w)
  }`;
// w has a default: an initializer of the same name.
const MODEL = (() => {
  const m = parseModelText(TEXT);
  m.graph.initializers.push(
    parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
      g () => (float[2] w) <float[2] w = {2, 2}> { }`).graph.initializers[0]!,
  );
  return m;
})();

const f32 = (...v: number[]): RTensor =>
  fromFloat64(DataType.FLOAT, [v.length], Float64Array.from(v));
const noFiles = (f: string): never => {
  throw new Error(`read ${f}`);
};

describe("loading", () => {
  it("reads .onnxtxt as text and every other name (.onnx, .txt) as a binary model", () => {
    const bytes = encodeModel(MODEL);
    const text = new TextEncoder().encode(printModel(MODEL));
    expect(modelFromBytes(text, "m.onnxtxt").graph.nodes).toHaveLength(3);
    expect(modelFromBytes(bytes, "m.onnx").graph.nodes).toHaveLength(3);
    expect(modelFromBytes(bytes, "m.txt").graph.nodes).toHaveLength(3);
    expect(() => modelFromBytes(text, "m.txt")).toThrow(/^m\.txt: not a valid ModelProto/);
    expect(() => modelFromBytes(bytes, "m.onnxtxt")).toThrow(
      /^m\.onnxtxt: holds binary data, not ONNX text/,
    );
  });
});

describe("binding inputs", () => {
  it("binds named and positional inputs at the declared dtype, skipping inputs with defaults", () => {
    const read = (f: string) => ({ bytes: encodeTensorProto(f32(5, 6), f) });
    const v = bindInputs(MODEL, [{ name: "k", json: "[1, 2]" }, { file: "x.pb" }], read);
    expect(Object.keys(v).sort()).toEqual(["k", "x"]);
    expect((v.k as RTensor).dtype).toBe(DataType.INT64);
    expect(Array.from((v.x as RTensor).data as Float32Array)).toEqual([5, 6]);
    // A named input overrides a default; positional ones never reach it.
    expect(Object.keys(bindInputs(MODEL, [{ name: "w", json: "[1, 1]" }], noFiles))).toEqual(["w"]);
  });

  it("refuses an unknown name, an input given twice, and too many inputs, reading no file", () => {
    expect(() => bindInputs(MODEL, [{ name: "z", file: "z.pb" }], noFiles)).toThrow(
      "the model has no input named 'z' (inputs: x, k, w)",
    );
    const twice = [
      { name: "x", json: "[1, 2]" },
      { name: "x", file: "x.pb" },
    ];
    expect(() => bindInputs(MODEL, twice, noFiles)).toThrow("input 'x' is given twice");
    const many = [{ json: "[1, 2]" }, { json: "[1, 2]" }, { file: "third.pb" }];
    expect(() => bindInputs(MODEL, many, noFiles)).toThrow(
      "third.pb: too many inputs: the model takes 2 (x, k)",
    );
  });

  it("reads .npy by name or signature, a TensorProto otherwise", () => {
    // A 1-D float32 .npy of [1, 2].
    const header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    const pad = 64 - ((10 + header.length + 1) % 64);
    const head = `${header}${" ".repeat(pad)}\n`;
    const npy = new Uint8Array(10 + head.length + 8);
    npy.set([
      0x93,
      ...new TextEncoder().encode("NUMPY"),
      1,
      0,
      head.length & 0xff,
      head.length >> 8,
    ]);
    npy.set(new TextEncoder().encode(head), 10);
    new Float32Array(npy.buffer, 10 + head.length, 2).set([1, 2]);
    const v = bindInputs(MODEL, [{ name: "x", file: "x.bin" }], () => ({ bytes: npy }));
    expect(Array.from((v.x as RTensor).data as Float32Array)).toEqual([1, 2]);
  });

  it("draws seeded random inputs, the same for the same seed", () => {
    const a = randomInputs(MODEL, 7);
    expect(Object.keys(a)).toEqual(["x", "k"]);
    expect((a.k as RTensor).dtype).toBe(DataType.INT64);
    expect(tensorDifference(a.x as RTensor, randomInputs(MODEL, 7).x as RTensor).abs).toBe(0);
    expect(
      tensorDifference(a.x as RTensor, randomInputs(MODEL, 8).x as RTensor).abs,
    ).toBeGreaterThan(0);
  });

  it("binds the page's JSON and files as the command line binds them, and wants every input", () => {
    const v = requestedInputs(MODEL, { mode: "json", json: '{"k": [1, 2], "x": [0.5, 1]}' });
    expect(Object.keys(v).sort()).toEqual(["k", "x"]);
    expect(() => requestedInputs(MODEL, { mode: "json", json: '{"x": [1, 2]}' })).toThrow(
      "input 'k' is not given",
    );
    expect(() => requestedInputs(MODEL, { mode: "json", json: "[1]" })).toThrow(
      /must be an object/,
    );
    // k.pb goes to k by its name; the other file to the first input left, x.
    const files = [
      {
        name: "k.pb",
        bytes: encodeTensorProto(fromFloat64(DataType.INT64, [2], Float64Array.of(3, 4))),
      },
      { name: "data.pb", bytes: encodeTensorProto(f32(1, 2)) },
    ];
    const f = requestedInputs(MODEL, { mode: "files", files });
    expect(Array.from((f.x as RTensor).data as Float32Array)).toEqual([1, 2]);
    expect(Array.from((f.k as RTensor).data as BigInt64Array)).toEqual([3n, 4n]);
  });
});

describe("comparing outputs", () => {
  it("gives the largest absolute and relative differences, NaN equal to NaN", () => {
    expect(tensorDifference(f32(1, 2, NaN), f32(1, 2, NaN))).toEqual({ abs: 0, rel: 0 });
    const d = tensorDifference(f32(1, 4), f32(1.5, 3));
    expect(d.abs).toBe(1);
    expect(d.rel).toBeCloseTo(1 / 3, 12);
    expect(tensorDifference(f32(1), f32(NaN))).toEqual({ abs: Infinity, rel: Infinity });
    expect(tensorDifference(f32(1, 2), f32(1)).note).toBe("shapes differ: [2] vs [1]");
  });

  it("compares outputs by name, saying what it cannot compare", () => {
    const rows = compareOutputs({ y: f32(1, 2), z: f32(0) }, { y: f32(1, 2.5) });
    expect(rows.map((r) => [r.name, r.difference?.abs, r.note])).toEqual([
      ["y", 0.5, undefined],
      ["z", undefined, "not an output of the result"],
    ]);
    expect(largestDifference(rows)).toBe(0.5);
    expect(compareOutputs({ y: f32(1) })[0]!.b).toBeUndefined();
  });
});

describe("running and transforms", () => {
  it("refuses a model the interpreter would run wrongly, naming the first problem", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 12]>
      g (float[2] x) => (float[2] y) { y = Gelu (x) }`);
    expect(() => assertRunnable(m, "g.onnxtxt")).toThrow(
      /^g\.onnxtxt: node #0 \(Gelu\): Gelu is not defined at ai\.onnx opset 12/,
    );
    expect(() => assertRunnable(MODEL, "m.onnx")).not.toThrow();
  });

  it("converts and expands with notes, and reports a refusal as notes", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
      g (float[2] x) => (float[2] y) { y = Celu (x) }`);
    const e = expand(m);
    expect(e.ok && e.model.graph.nodes.map((n) => n.opType)).not.toContain("Celu");
    // Celu does not exist at 11: lowered to its body on the way, or refused with lower: false.
    const c = convert(m, 11);
    expect(c.ok && c.model.graph.nodes.map((n) => n.opType)).not.toContain("Celu");
    const refused = convert(m, 11, { lower: false });
    expect(refused.ok).toBe(false);
    expect(refused.notes.map(formatNote).join("\n")).toMatch(/^error: .*Celu/);
  });

  it("a session loads, expands, and runs both sides on the same inputs", () => {
    const progress: string[] = [];
    const s = new Session((t) => progress.push(t));
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
      g (float[3] x) => (float[3] y) { y = Celu <alpha: float = 2.0> (x) }`);
    s.load("celu.onnx", encodeModel(m));
    expect(() => s.convert(6)).toThrow(/^refused: 1 problem$/);
    s.expand({}, "expanded");
    expect(s.b!.name).toBe("celu.onnx (expanded)");
    const r = s.run({ mode: "json", json: '{"x": [-1, 0, 2]}' });
    expect(r.outputs).toHaveLength(1);
    expect(r.outputs[0]!.difference!.abs).toBeLessThan(1e-6);
    expect(progress).toContain("running celu.onnx (expanded)…");
  });
});

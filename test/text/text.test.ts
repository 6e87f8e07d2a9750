// ONNX text syntax on real models: every backend test model survives print → parse → print, and
// .onnxtxt files load and save through src/io/files.ts.

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import { decodeModel, encodeModel, loadModel, saveModel } from "../../src/io/files.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { ELIDE_LIMIT, printModel } from "../../src/text/print.js";
import { canonModel } from "../helpers/text-compare.js";

const NODE_TESTS = new URL("../data/onnx-node-tests/", import.meta.url).pathname;
const dirs = readdirSync(NODE_TESTS)
  .filter((d) => d.startsWith("test_"))
  .sort();

function load(d: string): Model {
  return decodeModel(readFileSync(join(NODE_TESTS, d, "model.onnx")));
}

describe("backend test models round-trip through text", () => {
  it("finds all 184 models", () => {
    expect(dirs.length).toBe(184);
  });

  it("parse(print(m)) equals m and print(parse(print(m))) === print(m), for every model", () => {
    const failures: string[] = [];
    for (const d of dirs) {
      const m = load(d);
      const text = printModel(m);
      const back = parseModelText(text, `${d}.onnxtxt`);
      expect(canonModel(back), d).toEqual(canonModel(m));
      if (printModel(back) !== text) failures.push(d);
    }
    expect(failures).toEqual([]);
  });

  it("prints a model in the documented layout", () => {
    const text = printModel(load("test_reduce_sum_keepdims_example"));
    expect(text).toBe(
      [
        "<",
        "   ir_version: 7,",
        '   opset_import: ["" : 13],',
        '   producer_name: "backend-test"',
        ">",
        "test_reduce_sum_keepdims_example (float[3,2,2] data, int64[1] axes) => (float[3,1,2] reduced) {",
        "   reduced = ReduceSum <keepdims: int = 1> (data, axes)",
        "}",
        "",
      ].join("\n"),
    );
  });

  it("re-encodes a parsed model to the same protobuf as the original (graph part)", () => {
    for (const d of ["test_abs", "test_cumsum_2d_negative_axis", "test_where_long_example"]) {
      const m = load(d);
      const back = parseModelText(printModel(m));
      expect(canonModel(decodeModel(encodeModel(back)))).toEqual(canonModel(m));
    }
  });
});

describe(".onnxtxt files", () => {
  const dir = mkdtempSync(join(tmpdir(), "onnx-text-"));

  it("saveModel writes text that loadModel reads back, and the .onnx form agrees", () => {
    const m = load("test_reduce_log_sum_exp_default_axes_keepdims_example_expanded");
    const path = join(dir, "m.onnxtxt");
    saveModel(m, path);
    const text = readFileSync(path, "utf8");
    expect(text).toBe(printModel(m));
    const back = loadModel(path);
    expect(canonModel(back)).toEqual(canonModel(m));
    saveModel(back, join(dir, "m.onnx"));
    expect(canonModel(loadModel(join(dir, "m.onnx")))).toEqual(canonModel(m));
  });

  it("external tensor references round-trip and their data loads relative to the text file", () => {
    const bytes = new Uint8Array(new Float32Array([1, 2, 3, 4, 5, 6]).buffer);
    writeFileSync(join(dir, "w.bin"), Buffer.concat([Buffer.alloc(8), Buffer.from(bytes)]));
    const text = [
      '<ir_version: 8, opset_import: ["" : 18]>',
      'g (float[2,3] x) => (float[2,3] y) <float[2,3] w = ["location": "w.bin", "offset": "8", "length": "24"]> {',
      "  y = Add (x, w)",
      "}",
    ].join("\n");
    const path = join(dir, "ext.onnxtxt");
    writeFileSync(path, text);
    const m = loadModel(path);
    const w = m.graph.initializers[0]!;
    expect(w.data.kind).toBe("external");
    if (w.data.kind === "external")
      expect(w.data.entries).toEqual([
        ["location", "w.bin"],
        ["offset", "8"],
        ["length", "24"],
      ]);
    expect(printModel(m)).toContain(
      'float[2,3] w = ["location": "w.bin", "offset": "8", "length": "24"]',
    );
    const loaded = loadModel(path, { loadExternal: true });
    expect(loaded.graph.initializers[0]!.values()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("a file starting with a byte-order mark, with CRLF line ends and comments, loads", () => {
    const path = join(dir, "bom.onnxtxt");
    writeFileSync(
      path,
      '\ufeff# comment\r\n<ir_version: 8, opset_import: ["" : 18]>\r\ng (float x) => (float y) {\r\n  y = Abs (x) # abs\r\n}\r\n',
    );
    const m = loadModel(path);
    expect(m.graph.nodes[0]).toMatchObject({ opType: "Abs", inputs: ["x"], outputs: ["y"] });
  });

  it("a missing external data file is reported by loadModel", () => {
    const path = join(dir, "missing.onnxtxt");
    writeFileSync(
      path,
      'g () => (float[2] y) <float[2] w = ["location": "nope.bin"]> { y = Identity (w) }',
    );
    expect(() => loadModel(path)).toThrow(/nope\.bin/);
  });

  it("a syntax error in a .onnxtxt file names the file, line and column", () => {
    const path = join(dir, "bad.onnxtxt");
    writeFileSync(path, "g (float x) => (float y) {\n  y = Abs (x\n}\n");
    try {
      loadModel(path);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(OnnxError);
      expect((e as OnnxError).code).toBe("E_PARSE");
      expect((e as OnnxError).where).toBe(`${path}:3:1`);
    }
  });

  it("with initializers: false, large tensors are elided and small ones kept", () => {
    const m = load("test_abs");
    const big = Tensor.from(
      DataType.FLOAT,
      [ELIDE_LIMIT + 1],
      new Array(ELIDE_LIMIT + 1).fill(1.5),
      "big",
    );
    const small = Tensor.from(DataType.FLOAT, [2], [1, 2], "small");
    m.graph.initializers.push(big, small);
    const path = join(dir, "elided.onnxtxt");
    saveModel(m, path, { initializers: false });
    const text = readFileSync(path, "utf8");
    expect(text).toContain(`float[${ELIDE_LIMIT + 1}] big = ...`);
    expect(text).toContain("float[2] small = {1.0, 2.0}");
    expect(() => parseModelText(text)).toThrow(/elided/);
    expect(printModel(m)).toContain(`float[${ELIDE_LIMIT + 1}] big = {1.5, 1.5,`);
  });
});

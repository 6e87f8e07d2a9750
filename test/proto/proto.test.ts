// The wire format: lossless round trips, int64 precision, views instead of copies, and every
// way bytes can be wrong.

import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  existsSync,
  mkdirSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import * as ort from "onnxruntime-node";
import { OnnxError } from "../../src/errors.js";
import {
  decodeModel,
  encodeModel,
  loadExternalData,
  loadModel,
  saveModel,
} from "../../src/io/files.js";
import { attr, graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { messageType } from "../../src/proto/wire.js";

const NODE_TESTS = new URL("../data/onnx-node-tests/", import.meta.url).pathname;
const ModelProto = messageType("ModelProto");

/** Decoded message as a plain object, defaults filled in so absent and default compare equal. */
function plain(bytes: Uint8Array): unknown {
  return ModelProto.toObject(ModelProto.decode(bytes), {
    longs: String,
    bytes: String,
    defaults: true,
    arrays: true,
    enums: Number,
  });
}

function tmp(): string {
  return mkdtempSync(join(tmpdir(), "onnx-expand-"));
}

/** A model that uses IR-10+ fields, functions, sparse initializers and metadata. */
function richModel(): Model {
  const big = Tensor.from(DataType.FLOAT, [4], [1, 2, 3, 4], "w");
  big.metadataProps = [["origin", "test"]];
  const m = model(
    graph({
      name: "rich",
      nodes: [
        node(
          "Add",
          ["x", "w"],
          ["y"],
          {},
          { name: "add0", metadataProps: [["k", "v"]], overload: "" },
        ),
        node("Twice", ["y"], ["z"], { scale: 2 }, { domain: "local", name: "call" }),
        node("Constant", [], ["big"], {
          value_ints: [9223372036854775807n, -9223372036854775808n, 0n],
        }),
      ],
      inputs: [valueInfo("x", "float", [4])],
      outputs: [valueInfo("z", "float", ["N"]), valueInfo("big", "int64", [3])],
      initializers: [big],
      sparseInitializers: [
        {
          values: Tensor.from(DataType.FLOAT, [2], [5, 6], "sp"),
          indices: Tensor.from(DataType.INT64, [2], [1n, 3n], ""),
          dims: [4],
        },
      ],
      metadataProps: [["graph-meta", "1"]],
    }),
    [
      { domain: "", version: 18 },
      { domain: "local", version: 1 },
    ],
    10,
  );
  m.metadataProps = [["author", "onnx-expand"]];
  m.producerName = "onnx-expand-test";
  m.modelVersion = 9007199254740993n;
  m.functions.push({
    name: "Twice",
    domain: "local",
    overload: "",
    inputs: ["a"],
    outputs: ["b"],
    attributes: [],
    attributeProtos: [attr("scale", 1)],
    nodes: [
      node(
        "Constant",
        [],
        ["s"],
        {},
        {
          attributes: [
            { name: "value_float", type: "FLOAT", value: undefined, refAttrName: "scale" },
          ],
        },
      ),
      node("Mul", ["a", "s"], ["b"]),
    ],
    opsetImports: [{ domain: "", version: 18 }],
    valueInfo: [valueInfo("s", "float", [])],
    metadataProps: [["fn", "meta"]],
  });
  return m;
}

describe("wire format round trip", () => {
  const dirs = readdirSync(NODE_TESTS, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

  it("covers all 184 backend-test models", () => {
    expect(dirs.length).toBe(184);
  });

  it("decode → IR → encode → decode is lossless for every backend-test model", () => {
    const failures: string[] = [];
    for (const d of dirs) {
      const bytes = readFileSync(join(NODE_TESTS, d, "model.onnx"));
      const again = encodeModel(decodeModel(bytes));
      if (!isDeepStrictEqual(plain(bytes), plain(again))) failures.push(d);
    }
    expect(failures).toEqual([]);
  });

  it("re-encodes every backend-test model to the very same bytes (canonical field order)", () => {
    const differ = dirs.filter((d) => {
      const bytes = readFileSync(join(NODE_TESTS, d, "model.onnx"));
      return !Buffer.from(encodeModel(decodeModel(bytes))).equals(bytes);
    });
    expect(differ).toEqual([]);
  });

  it("keeps functions, sparse initializers, metadata, overloads and int64 extremes", () => {
    const m = richModel();
    const bytes = encodeModel(m);
    const back = decodeModel(bytes);
    expect(plain(encodeModel(back))).toEqual(plain(bytes));
    expect(back.modelVersion).toBe(9007199254740993n);
    const c = back.graph.nodes[2]!.attributes[0]!;
    expect(c.type === "INTS" && c.value).toEqual([9223372036854775807n, -9223372036854775808n, 0n]);
    expect(back.functions[0]!.attributeProtos[0]).toMatchObject({
      name: "scale",
      type: "INT",
      value: 1n,
    });
    expect(back.functions[0]!.nodes[0]!.attributes[0]!.refAttrName).toBe("scale");
    expect(back.graph.sparseInitializers[0]!.indices.values()).toEqual([1n, 3n]);
    expect(back.graph.initializers[0]!.metadataProps).toEqual([["origin", "test"]]);
    expect(back.graph.nodes[0]!.metadataProps).toEqual([["k", "v"]]);
    expect(back.metadataProps).toEqual([["author", "onnx-expand"]]);
  });

  it("keeps typed-field tensor data, including 64-bit integers beyond 2^53", () => {
    const ints = new Tensor(
      DataType.INT64,
      [3],
      {
        kind: "int64",
        values: BigInt64Array.from([2n ** 63n - 1n, -(2n ** 63n), 9007199254740993n]),
      },
      "i",
    );
    const u = new Tensor(
      DataType.UINT64,
      [1],
      { kind: "uint64", values: BigUint64Array.from([2n ** 64n - 1n]) },
      "u",
    );
    const h = new Tensor(
      DataType.FLOAT16,
      [2],
      { kind: "int32", values: Int32Array.from([0x3c00, 0x8000]) },
      "h",
    );
    const m = model(
      graph({ nodes: [], initializers: [ints, u, h], outputs: [valueInfo("i", "int64", [3])] }),
    );
    const back = decodeModel(encodeModel(m));
    expect(back.graph.initializers[0]!.values()).toEqual([
      2n ** 63n - 1n,
      -(2n ** 63n),
      9007199254740993n,
    ]);
    expect(back.graph.initializers[1]!.values()).toEqual([2n ** 64n - 1n]);
    expect(back.graph.initializers[2]!.values()).toEqual([1, -0]);
  });

  it("leaves raw_data as a view of the file's bytes", () => {
    const w = Tensor.from(DataType.FLOAT, [1000], new Float32Array(1000).fill(1.5), "w");
    const file = encodeModel(
      model(graph({ nodes: [], initializers: [w], outputs: [valueInfo("w", "float", [1000])] })),
    );
    const m = decodeModel(file);
    const t = m.graph.initializers[0]!;
    expect(t.data.kind).toBe("raw");
    if (t.data.kind === "raw") expect(t.data.bytes.buffer).toBe(file.buffer);
  });

  it("writes models that onnxruntime loads and runs", async () => {
    const m = model(
      graph({
        nodes: [node("ReduceSum", ["x", "axes"], ["y"], { keepdims: 0 })],
        inputs: [valueInfo("x", "float", [2, 3])],
        outputs: [valueInfo("y", "float", [2])],
        initializers: [Tensor.from(DataType.INT64, [1], [1n], "axes")],
      }),
      13,
    );
    const session = await ort.InferenceSession.create(encodeModel(m));
    const out = await session.run({
      x: new ort.Tensor("float32", Float32Array.from([1, 2, 3, 4, 5, 6]), [2, 3]),
    });
    expect(Array.from(out.y!.data as Float32Array)).toEqual([6, 15]);
  });
});

describe("bad bytes", () => {
  const real = readFileSync(join(NODE_TESTS, "test_reduce_sum_keepdims_random", "model.onnx"));
  const cases: [string, Uint8Array, RegExp][] = [
    ["an empty file", new Uint8Array(0), /empty file/],
    ["a wrong wire type", Uint8Array.from([0x0f, 0x01]), /invalid wire type 7/],
    [
      "a length prefix past the end",
      Uint8Array.from([0x3a, 0xff, 0xff, 0xff, 0x0f]),
      /truncated or corrupt/,
    ],
    ["a truncated model", real.subarray(0, real.length - 7), /truncated or corrupt/],
    ["a model without a graph", Uint8Array.from([0x08, 0x07]), /has no graph/],
  ];
  for (const [what, bytes, message] of cases)
    it(`rejects ${what} with one clear line`, () => {
      let err: unknown;
      try {
        decodeModel(bytes, { where: "m.onnx" });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(OnnxError);
      expect((err as OnnxError).code).toBe("E_DECODE");
      expect((err as OnnxError).message).toMatch(message);
      expect((err as OnnxError).message).toMatch(/^m\.onnx: /);
      expect((err as OnnxError).message).not.toContain("\n");
    });

  it("rejects every truncation of a real model, never crashing", () => {
    for (let n = 1; n < real.length; n++) {
      try {
        decodeModel(real.subarray(0, n));
      } catch (e) {
        expect(e).toBeInstanceOf(OnnxError);
      }
    }
  });

  it("rejects random bytes (seeded) without crashing or hanging", () => {
    let s = 12345;
    const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    for (let i = 0; i < 300; i++) {
      const bytes = Uint8Array.from({ length: 1 + (i % 97) * 7 }, rand);
      try {
        decodeModel(bytes);
      } catch (e) {
        expect(e).toBeInstanceOf(OnnxError);
      }
    }
  });
});

describe("external data", () => {
  function withWeights(n: number): Model {
    const values = Float32Array.from({ length: n }, (_, i) => i * 0.5);
    return model(
      graph({
        nodes: [node("Add", ["x", "w"], ["y"])],
        inputs: [valueInfo("x", "float", [n])],
        outputs: [valueInfo("y", "float", [n])],
        initializers: [Tensor.from(DataType.FLOAT, [n], values, "w")],
      }),
      13,
    );
  }

  it("writes tensors to a data file on request, reads them back, and onnxruntime agrees", async () => {
    const dir = tmp();
    const path = join(dir, "m.onnx");
    saveModel(withWeights(2000), path, { externalData: { location: "m.data" } });
    expect(existsSync(join(dir, "m.data"))).toBe(true);
    const m = loadModel(path);
    const w = m.graph.initializers[0]!;
    expect(w.data.kind).toBe("external");
    loadExternalData(w);
    expect(w.numbers().slice(0, 3)).toEqual([0, 0.5, 1]);
    const session = await ort.InferenceSession.create(path);
    const out = await session.run({
      x: new ort.Tensor("float32", new Float32Array(2000).fill(1), [2000]),
    });
    expect((out.y!.data as Float32Array)[3]).toBe(2.5);
  });

  it("reports a missing data file and a location that escapes the model's folder", () => {
    const dir = tmp();
    const path = join(dir, "m.onnx");
    saveModel(withWeights(2000), path, { externalData: { location: "m.data" } });
    const bytes = readFileSync(path);
    const sub = join(dir, "sub");
    mkdirSync(sub);
    writeFileSync(join(sub, "m.onnx"), bytes);
    expect(() => loadModel(join(sub, "m.onnx"))).toThrow(
      /external data file 'm.data' of tensor 'w' does not exist/,
    );
    const m = decodeModel(bytes, { baseDir: sub });
    const w = m.graph.initializers[0]!;
    if (w.data.kind === "external") w.data.entries = [["location", "../m.data"]];
    writeFileSync(join(sub, "evil.onnx"), encodeModel(m));
    expect(() => loadModel(join(sub, "evil.onnx"))).toThrow(/escapes the model's folder/);
  });

  it("copies external data beside the output when saving into another folder", () => {
    const dir = tmp();
    saveModel(withWeights(2000), join(dir, "m.onnx"), { externalData: { location: "m.data" } });
    const other = tmp();
    saveModel(loadModel(join(dir, "m.onnx")), join(other, "copy.onnx"));
    const copy = loadModel(join(other, "copy.onnx"));
    const w = copy.graph.initializers[0]!;
    expect(w.data.kind).toBe("external");
    expect(w.data.kind === "external" && w.data.entries[0]).toEqual(["location", "copy.onnx.data"]);
    expect(w.numbers()[1999]).toBe(999.5);
  });
});

describe("writing files", () => {
  it("refuses to overwrite the input unless forced, and leaves it intact", () => {
    const dir = tmp();
    const path = join(dir, "m.onnx");
    const m = model(
      graph({
        nodes: [node("Abs", ["x"], ["y"])],
        inputs: [valueInfo("x", "float", [1])],
        outputs: [valueInfo("y", "float", [1])],
      }),
    );
    saveModel(m, path);
    const before = readFileSync(path);
    expect(() => saveModel(m, path, { inputPath: path })).toThrow(/overwrite the input/);
    expect(readFileSync(path)).toEqual(before);
    saveModel(m, path, { inputPath: path, force: true });
  });

  it("leaves neither a partial output nor a temporary file when encoding fails", () => {
    const dir = tmp();
    const path = join(dir, "out.onnx");
    const bad = model(graph({ nodes: [node("Abs", ["x"], ["y"])] }));
    (bad.graph.nodes[0]!.attributes as unknown[]).push({
      name: "broken",
      type: "INT",
      value: "not-a-number",
    });
    expect(() => saveModel(bad, path)).toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });
});

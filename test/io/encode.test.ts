// The one-walk encoder (src/io/encode.ts over proto/writer.ts): lengths written back when a
// message closes, in place or spliced in between pieces, give the bytes a two-pass encoder gives;
// large byte fields stay views; attributes shared between nodes are written as their own copies
// would be; and saving writes the pieces as one file.

import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeModel, encodeModel } from "../../src/io/codec.js";
import { encodeModelPieces, encodeTensorBytes } from "../../src/io/encode.js";
import { saveModel } from "../../src/io/files.js";
import { attr, graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Attribute, type Model, type Node } from "../../src/ir/types.js";
import { encodeMessage, messageType } from "../../src/proto/wire.js";
import { LEN, Writer } from "../../src/proto/writer.js";

/** A message for the writer test: byte fields and nested messages, in order. */
type Field = { field: number; bytes: Uint8Array } | { field: number; msg: Field[] };

/** Bytes of a varint, by hand. */
function varint(v: number): number[] {
  const out: number[] = [];
  while (v > 127) {
    out.push((v % 128) | 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** The reference: sizes first, then bytes (what the encoder did before it wrote in one walk). */
function reference(msg: Field[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of msg) {
    const body = "bytes" in f ? Buffer.from(f.bytes) : reference(f.msg);
    parts.push(Buffer.from([...varint(f.field * 8 + LEN), ...varint(body.length)]), body);
  }
  return Buffer.concat(parts);
}

function write(w: Writer, msg: Field[]): void {
  for (const f of msg) {
    if ("bytes" in f) {
      w.tag(f.field, LEN);
      w.varint(f.bytes.length);
      w.bytes(f.bytes);
    } else {
      w.open(f.field);
      write(w, f.msg);
      w.close();
    }
  }
}

/** A deterministic pseudo-random source. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

function bytesOf(n: number, r: () => number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i += 97) b[i] = Math.floor(r() * 256);
  return b;
}

/** A random tree: sizes around 128 (where the length varint grows), and some large fields. */
function tree(r: () => number, depth: number, budget: { left: number }): Field[] {
  const out: Field[] = [];
  const n = 1 + Math.floor(r() * 6);
  for (let i = 0; i < n && budget.left > 0; i++) {
    const field = 1 + Math.floor(r() * 30);
    if (depth < 6 && r() < 0.4) out.push({ field, msg: tree(r, depth + 1, budget) });
    else {
      const pick = r();
      const size =
        pick < 0.6
          ? Math.floor(r() * 140)
          : pick < 0.9
            ? 100 + Math.floor(r() * 20000)
            : 16384 + Math.floor(r() * 300000);
      budget.left -= size;
      out.push({ field, bytes: bytesOf(size, r) });
    }
  }
  return out;
}

describe("Writer: lengths written back on close", () => {
  it("gives a two-pass encoder's bytes, with large fields as views", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed);
      const msg = tree(r, 0, { left: 3_000_000 });
      const w = new Writer(undefined, undefined, true);
      write(w, msg);
      const pieces = w.pieces();
      expect(Buffer.concat(pieces).equals(reference(msg))).toBe(true);
      // Every field of 16 KiB or more is one of the pieces itself, not a copy.
      const big = new Set<Uint8Array>();
      const walk = (m: Field[]): void =>
        m.forEach((f) =>
          "bytes" in f ? f.bytes.length >= 16384 && big.add(f.bytes) : walk(f.msg),
        );
      walk(msg);
      for (const b of big) expect(pieces.includes(b)).toBe(true);
    }
  });

  it("splices lengths of messages that span segments (a graph of several MiB)", () => {
    const r = rng(7);
    const nodes: Field[] = [];
    for (let i = 0; i < 40000; i++)
      nodes.push({ field: 1, msg: [{ field: 1, bytes: bytesOf(60 + (i % 150), r) }] });
    const msg: Field[] = [
      { field: 7, msg: nodes },
      { field: 8, bytes: bytesOf(3, r) },
    ];
    const w = new Writer(undefined, undefined, true);
    write(w, msg);
    const pieces = w.pieces();
    expect(pieces.length).toBeGreaterThan(3);
    expect(Buffer.concat(pieces).equals(reference(msg))).toBe(true);
  });

  it("writes one buffer of a known size, copying large fields, for the reflective encoder", () => {
    const r = rng(3);
    const msg = tree(r, 0, { left: 400_000 });
    const ref = reference(msg);
    const w = new Writer(ref.length);
    write(w, msg);
    expect(Buffer.from(w.buf.subarray(0, w.pos)).equals(ref)).toBe(true);
  });
});

/** A model whose nodes share attribute objects, or (`copies`) hold equal objects of their own. */
function sharing(copies: boolean): Model {
  const make = (): Attribute[] => [
    attr("keepdims", 1n),
    attr("axes", [1, -1, 2 ** 40]),
    attr("mode", "constant"),
    attr("alpha", 0.5),
    attr("names", ["a", "é", "z".repeat(200)]),
    attr("value", Tensor.from(DataType.INT64, [1], [7n])),
  ];
  const shared = make();
  const nodes: Node[] = [];
  for (let i = 0; i < 300; i++) {
    const attrs = copies ? make() : shared;
    // Attribute lists differ between nodes (every third node drops one) and repeat.
    const list = i % 3 === 0 ? attrs.slice(1) : attrs;
    nodes.push({
      ...node("Op", [`v${i}`], [`v${i + 1}`], {}, { name: `n${i}` }),
      attributes: list,
    });
  }
  return model(
    graph({
      nodes,
      inputs: [valueInfo("v0", "float", [1])],
      outputs: [valueInfo("v300", "float", [1])],
    }),
  );
}

describe("encodeModel", () => {
  it("writes attributes shared between nodes as their own copies would be written", () => {
    const a = Buffer.from(encodeModel(sharing(false)));
    const b = Buffer.from(encodeModel(sharing(true)));
    expect(a.equals(b)).toBe(true);
    // And as the reflective encoder writes the same message.
    const msg = messageType("ModelProto").decode(a);
    expect(Buffer.from(encodeMessage("ModelProto", msg as never)).equals(a)).toBe(true);
  });

  it("refuses nesting at the same depth whether attributes are shared or not", () => {
    // Graphs nested through If's then_branch, each with Constants whose attribute list (a tensor
    // with a segment, an int) is shared between all of them, or each its own.
    const nested = (levels: number, copies: boolean): Model => {
      const make = (): Attribute[] => {
        const t = Tensor.from(DataType.FLOAT, [1], [1]);
        t.segment = { begin: 0n, end: 1n };
        return [attr("value", t), attr("k", 1n)];
      };
      const shared = make();
      const consts = (): Node[] =>
        [0, 1, 2].map((i) => ({
          ...node("Constant", [], [`c${i}`]),
          attributes: copies ? make() : shared,
        }));
      let g = graph({ nodes: consts(), inputs: [], outputs: [] });
      for (let i = 0; i < levels; i++)
        g = graph({
          nodes: [...consts(), node("If", ["c0"], ["y"], { then_branch: g })],
          inputs: [],
          outputs: [],
        });
      return model(g);
    };
    const outcome = (m: Model): string => {
      try {
        return Buffer.from(encodeModel(m)).toString("base64");
      } catch (e) {
        return String((e as Error).message);
      }
    };
    let refused = 0;
    for (let levels = 30; levels <= 34; levels++) {
      const a = outcome(nested(levels, false));
      expect(a).toBe(outcome(nested(levels, true)));
      if (/nest more than 100 levels deep/.test(a)) refused++;
    }
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(5);
  });

  it("writes strings of every length and kind as TextEncoder encodes them", () => {
    const kinds = ["abc", "é", "😀", "\ud800x", "z".repeat(127), "é".repeat(70)];
    const doc = kinds.join("") + "y".repeat(20000) + "\udc00é";
    const m = sharing(false);
    m.docString = doc;
    m.graph.nodes[0]!.attributes = [
      { name: "s", type: "STRING", value: doc },
      { name: "r", type: "FLOAT", refAttrName: "é" },
    ];
    kinds.forEach((k, i) => (m.graph.nodes[i + 1]!.name = k.repeat(1 + (i % 3))));
    const bytes = Buffer.from(encodeModel(m));
    const back = decodeModel(bytes);
    const fixed = new TextDecoder().decode(new TextEncoder().encode(doc));
    expect(back.docString === fixed).toBe(true);
    expect(back.graph.nodes[0]!.attributes[0]!.value === fixed).toBe(true);
    expect(back.graph.nodes[0]!.attributes[1]!.refAttrName).toBe("é");
    kinds.forEach((k, i) =>
      expect(back.graph.nodes[i + 1]!.name).toBe(
        new TextDecoder().decode(new TextEncoder().encode(k.repeat(1 + (i % 3)))),
      ),
    );
    expect(Buffer.from(encodeModel(back)).equals(bytes)).toBe(true);
  });

  it("hands large raw data out as views, and its pieces make up encodeModel's bytes", () => {
    const big = new Uint8Array(1 << 20).map((_, i) => i & 255);
    const w = new Tensor(DataType.FLOAT, [1 << 18], { kind: "raw", bytes: big }, "w");
    const c = new Tensor(DataType.FLOAT, [1 << 18], { kind: "raw", bytes: big }, "");
    const m = model(
      graph({
        nodes: [node("Constant", [], ["c"], { value: c }), node("Add", ["w", "c"], ["y"])],
        inputs: [],
        outputs: [valueInfo("y", "float", [1 << 18])],
        initializers: [w],
      }),
    );
    const pieces = encodeModelPieces(m);
    expect(pieces.filter((p) => p === big)).toHaveLength(2);
    const all = Buffer.concat(pieces);
    expect(all.equals(Buffer.from(encodeModel(m)))).toBe(true);
    expect(Buffer.from(encodeModel(decodeModel(all))).equals(all)).toBe(true);
    const lone = Buffer.from(encodeTensorBytes(w));
    const again = encodeMessage("TensorProto", messageType("TensorProto").decode(lone) as never);
    expect(Buffer.from(again).equals(lone)).toBe(true);
  });
});

describe("saveModel", () => {
  const dir = mkdtempSync(join(tmpdir(), "encode-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the pieces as one file, byte for byte", () => {
    const m = sharing(false);
    const path = join(dir, "m.onnx");
    saveModel(m, path);
    expect(readFileSync(path).equals(Buffer.from(encodeModel(m)))).toBe(true);
  });

  it("calls the tensor hook once for each tensor it writes out, shared or not", () => {
    const t = Tensor.from(
      DataType.FLOAT,
      [300],
      Array.from({ length: 300 }, (_, i) => i),
    );
    const value: Attribute = { name: "value", type: "TENSOR", value: t };
    const nodes = Array.from({ length: 5 }, (_, i) => ({
      ...node("Constant", [], [`c${i}`]),
      attributes: [value],
    }));
    const m = model(graph({ nodes, inputs: [], outputs: [valueInfo("c4", "float", [300])] }));
    let calls = 0;
    encodeModelPieces(m, {
      tensorHook: (x) => {
        calls++;
        return x;
      },
    });
    expect(calls).toBe(5);
    // Saved with external data, the one tensor's bytes are written once and shared.
    const path = join(dir, "ext.onnx");
    saveModel(m, path, { externalData: { location: "ext.bin", threshold: 100 } });
    const back = decodeModel(readFileSync(path), { baseDir: dir });
    const offsets = back.graph.nodes.map((n) => {
      const v = n.attributes[0]!.value as Tensor;
      return v.data.kind === "external" ? v.data.entries.find(([k]) => k === "offset")![1] : "";
    });
    expect(offsets).toEqual(["0", "0", "0", "0", "0"]);
    expect(statSync(join(dir, "ext.bin")).size).toBe(1200);
  });
});

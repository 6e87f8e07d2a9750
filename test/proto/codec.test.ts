// The model codec's reader and writer (src/io/decode.ts, src/io/encode.ts) on what protobuf
// writers other than this one produce: fields out of order, packed and unpacked repeated scalars,
// unknown fields, a field given twice, wire types that do not match, and every kind of string.

import { describe, expect, it } from "vitest";
import { decodeModel, encodeModel } from "../../src/io/codec.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Attribute } from "../../src/ir/types.js";
import { decodeMessage, encodeMessage, messageType } from "../../src/proto/wire.js";

/** Bytes of a protobuf field, written by hand. */
function varint(v: bigint): number[] {
  const out: number[] = [];
  let x = BigInt.asUintN(64, v);
  while (x > 127n) {
    out.push(Number(x & 127n) | 128);
    x >>= 7n;
  }
  out.push(Number(x));
  return out;
}
const tag = (field: number, wire: number): number[] => varint(BigInt(field * 8 + wire));
const len = (field: number, body: number[]): number[] => [
  ...tag(field, 2),
  ...varint(BigInt(body.length)),
  ...body,
];
const str = (field: number, s: string): number[] => len(field, [...new TextEncoder().encode(s)]);

function sample() {
  const attrs: Record<string, unknown> = { axes: [-1n, 2n ** 62n, -(2n ** 63n)], alpha: 0.25 };
  const m = model(
    graph({
      name: "g",
      nodes: [node("ReduceSum", ["x"], ["y"], attrs, { name: "n0" })],
      inputs: [valueInfo("x", "float", [2, "batch", null])],
      outputs: [valueInfo("y", "float", [])],
      initializers: [
        new Tensor(DataType.INT64, [2], { kind: "int64", values: BigInt64Array.of(-5n, 7n) }, "k"),
      ],
    }),
    11,
  );
  return m;
}

describe("model codec", () => {
  it("reads what protobufjs reads and writes what it wrote, on a model with every value kind", () => {
    const m = sample();
    m.graph.nodes[0]!.name = "ünïcödé 名前 😀";
    m.graph.initializers.push(
      new Tensor(
        DataType.STRING,
        [2],
        { kind: "string", values: [Uint8Array.of(0xff, 0), Uint8Array.of()] },
        "s",
      ),
      new Tensor(DataType.DOUBLE, [1], { kind: "double", values: Float64Array.of(-0) }, "d"),
      new Tensor(
        DataType.UINT64,
        [1],
        { kind: "uint64", values: BigUint64Array.of(2n ** 64n - 1n) },
        "u",
      ),
      new Tensor(
        DataType.INT32,
        [2],
        { kind: "int32", values: Int32Array.of(-1, 2 ** 31 - 1) },
        "i",
      ),
    );
    const bytes = encodeModel(m);
    const again = decodeModel(bytes);
    expect(encodeModel(again)).toEqual(bytes);
    expect(again.graph.nodes[0]!.name).toBe("ünïcödé 名前 😀");
    const axes = again.graph.nodes[0]!.attributes.find((a) => a.name === "axes") as Attribute;
    expect(axes.value).toEqual([-1n, 2n ** 62n, -(2n ** 63n)]);
    // protobufjs's reflection reads the same message from our bytes.
    const msg = decodeMessage("ModelProto", bytes);
    expect(msg.graph.node[0].name).toBe("ünïcödé 名前 😀");
    expect(msg.graph.initializer[3].uint64_data[0].toString()).toBe("18446744073709551615");
    expect(msg.graph.input[0].type.tensor_type.shape.dim[1].dim_param).toBe("batch");
  });

  it("reads packed and unpacked repeated scalars alike, and fields in any order", () => {
    // A tensor with dims packed (writers may pack any repeated scalar), float_data unpacked,
    // the name before the dims, then an unknown field 99 and a wrong-wire-type data_type.
    const tensor = [
      ...str(8, "t"),
      ...len(1, [...varint(2n), ...varint(3n)]),
      ...tag(2, 0),
      ...varint(1n),
      ...tag(4, 5),
      ...[0, 0, 128, 63],
      ...tag(4, 5),
      ...[0, 0, 0, 64],
      ...tag(99, 0),
      ...varint(5n),
      ...str(2, "not a varint: skipped"),
    ];
    const body = [
      ...len(7, [...len(5, tensor), ...str(2, "g")]),
      ...tag(1, 0),
      ...varint(8n),
      ...len(8, [...str(1, ""), ...tag(2, 0), ...varint(17n)]),
    ];
    const m = decodeModel(Uint8Array.from(body));
    expect(m.irVersion).toBe(8);
    expect(m.opsetImports).toEqual([{ domain: "", version: 17 }]);
    const t = m.graph.initializers[0]!;
    expect(t.dims).toEqual([2, 3]);
    expect(t.dataType).toBe(1);
    expect(Array.from((t.data as { values: Float32Array }).values)).toEqual([1, 2]);
    expect(t.name).toBe("t");
    // And protobufjs agrees on every field.
    const viaReflection = decodeMessage("ModelProto", Uint8Array.from(body));
    expect(viaReflection.graph.initializer[0].float_data).toEqual([1, 2]);
  });

  it("keeps the last value of a scalar field given twice", () => {
    const body = [
      ...len(7, str(2, "first")),
      ...tag(1, 0),
      ...varint(3n),
      ...tag(1, 0),
      ...varint(9n),
    ];
    expect(decodeModel(Uint8Array.from(body)).irVersion).toBe(9);
  });

  it("gives each repeated short name back as the string it spells, hash collisions included", () => {
    // Thousands of distinct short names: a table slot is reused many times over.
    const nodes = [];
    for (let i = 0; i < 5000; i++)
      nodes.push(node("Relu", [i ? `v${i - 1}` : "x"], [`v${i}`], {}, { name: `n${i}` }));
    const m = model(
      graph({
        nodes,
        inputs: [valueInfo("x", "float", [1])],
        outputs: [valueInfo("v4999", "float", [1])],
      }),
      14,
    );
    const back = decodeModel(encodeModel(m));
    for (let i = 0; i < 5000; i++) {
      expect(back.graph.nodes[i]!.name).toBe(`n${i}`);
      expect(back.graph.nodes[i]!.outputs[0]).toBe(`v${i}`);
    }
  });

  it("refuses messages nested more than 100 deep, as protobuf readers do", () => {
    // TypeProto.Sequence nested: each level is two messages.
    const deep = (levels: number): Uint8Array => {
      let type: number[] = len(1, [...tag(1, 0), ...varint(1n)]);
      for (let i = 0; i < levels; i++) type = len(4, len(1, type));
      return Uint8Array.from(len(7, len(11, [...str(1, "x"), ...len(2, type)])));
    };
    expect(() => decodeModel(deep(60))).toThrow(/messages nest more than 100 levels deep/);
    expect(() => messageType("ModelProto").decode(deep(60))).toThrow(/max depth/);
    expect(decodeModel(deep(40)).graph.inputs[0]!.type?.kind).toBe("sequence");
    expect(() => messageType("ModelProto").decode(deep(40))).not.toThrow();
  });

  it("writes what the reflective encoder writes for the messages it keeps as decoded", () => {
    const m = sample();
    m.trainingInfo = [{ initialization: { name: "init" } }];
    const bytes = encodeModel(m);
    const back = decodeModel(bytes);
    expect(back.trainingInfo?.[0]).toMatchObject({ initialization: { name: "init" } });
    expect(encodeModel(back)).toEqual(bytes);
    const reflective = encodeMessage("TrainingInfoProto", { initialization: { name: "init" } });
    expect(messageType("TrainingInfoProto").decode(reflective)).toMatchObject({
      initialization: { name: "init" },
    });
  });
});

// The IR's structure helpers: producers/consumers, order, cycles, names, traversal, tensors.

import { describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import { graph, model, node, nodeWith, valueInfo } from "../../src/ir/builder.js";
import {
  GraphIndex,
  NameScope,
  freeNames,
  sortNodes,
  topologicalOrder,
} from "../../src/ir/graph.js";
import { Tensor, type TensorData } from "../../src/ir/tensor.js";
import { walkGraphs, walkNodes, walkTensors } from "../../src/ir/visit.js";
import { DataType, type Node } from "../../src/ir/types.js";
import { numberToBfloat16Bits, numberToFloat16Bits } from "../../src/ir/dtype.js";

describe("graph structure", () => {
  const g = graph({
    nodes: [
      node("Log", ["s"], ["y"]),
      node("ReduceSum", ["x", "axes"], ["s"]),
      node("Abs", ["x"], ["a"]),
    ],
    inputs: [valueInfo("x", "float", [2, 3])],
    outputs: [valueInfo("y", "float", [])],
    initializers: [Tensor.from(DataType.INT64, [1], [1n], "axes")],
  });

  it("finds producers and consumers in constant time per lookup", () => {
    const idx = new GraphIndex(g);
    expect(idx.producer.get("s")?.node.opType).toBe("ReduceSum");
    expect(idx.usesOf("x").map((u) => u.node.opType)).toEqual(["ReduceSum", "Abs"]);
    expect(idx.usesOf("nothing")).toEqual([]);
  });

  it("orders nodes after their producers, keeping the given order otherwise", () => {
    expect(topologicalOrder(g)).toEqual([1, 0, 2]);
    const copy = { ...g, nodes: [...g.nodes] };
    expect(sortNodes(copy)).toBe(true);
    expect(copy.nodes.map((n) => n.opType)).toEqual(["ReduceSum", "Log", "Abs"]);
    expect(sortNodes(copy)).toBe(false);
  });

  it("reports a cycle naming its nodes", () => {
    const cyc = graph({
      nodes: [
        node("Add", ["x", "b"], ["a"], {}, { name: "first" }),
        node("Relu", ["a"], ["b"], {}, { name: "second" }),
        node("Abs", ["x"], ["c"]),
      ],
    });
    expect(() => topologicalOrder(cyc)).toThrow(OnnxError);
    expect(() => topologicalOrder(cyc)).toThrow(
      /cycle through node 'first' \(Add\), node 'second' \(Relu\)$/,
    );
  });

  it("sees outer-scope values used inside subgraphs as dependencies", () => {
    const then = graph({ nodes: [node("Identity", ["outer"], ["t"])], outputs: [valueInfo("t")] });
    const els = graph({ nodes: [node("Neg", ["outer"], ["e"])], outputs: [valueInfo("e")] });
    const g2 = graph({
      nodes: [
        node("If", ["cond"], ["r"], { then_branch: then, else_branch: els }),
        node("Abs", ["x"], ["outer"]),
      ],
      inputs: [valueInfo("cond", "bool", []), valueInfo("x", "float", [1])],
      outputs: [valueInfo("r")],
    });
    expect(freeNames(then)).toEqual(new Set(["outer"]));
    expect(topologicalOrder(g2)).toEqual([1, 0]);
    expect(new GraphIndex(g2).usesOf("outer")).toMatchObject([{ slot: -1 }]);
    const m = model(g2);
    expect([...walkGraphs(m)].length).toBe(3);
    expect([...walkNodes(m)].map((v) => `${v.node.opType}@${v.depth}`)).toEqual([
      "If@0",
      "Identity@1",
      "Neg@1",
      "Abs@0",
    ]);
  });

  it("hands out fresh names that collide with nothing in the scope", () => {
    const scope = new NameScope(g);
    expect(scope.fresh("s")).toBe("s_1");
    expect(scope.fresh("s")).toBe("s_2");
    expect(scope.fresh("new")).toBe("new");
    expect(scope.fresh("new")).toBe("new_1");
  });

  it("claims a prefix only when no name of the scope starts with it, and then gives what fresh() would", () => {
    const g2 = graph({
      nodes: [node("Abs", ["x"], ["a__b"], {}, { name: "k___t" }), node("Neg", ["a__b"], ["y"])],
      inputs: [valueInfo("x", "float", [1])],
      outputs: [valueInfo("y", "float", [1])],
    });
    const scope = new NameScope(g2);
    expect(scope.claimPrefix("a", ["c"])).toBe(false); // "a__b" is in use
    expect(scope.claimPrefix("k", ["c"])).toBe(false); // "k___t" = "k" + "__" + "_t"
    expect(scope.claimPrefix("k_", ["c"])).toBe(false); // and "k_" + "__" + "t"
    expect(scope.claimPrefix("y", ["Abs", "Abs_1"])).toBe(true);
    expect(scope.claimPrefix("y", ["Neg"])).toBe(false); // claimed once
    // Claimed names are used names for everything after.
    expect(scope.has("y__Abs")).toBe(true);
    expect(scope.fresh("y__Abs")).toBe("y__Abs_2");
    expect(scope.fresh("y__Neg")).toBe("y__Neg");
    // Names fresh() hands out count for later claims.
    expect(scope.fresh("z__q")).toBe("z__q");
    expect(scope.claimPrefix("z", ["r"])).toBe(false);
    expect(scope.claimPrefix("x", ["r"])).toBe(true);
    expect(scope.fresh("x__r")).toBe("x__r_1");
  });

  it("nodeWith copies every field of a node but the names", () => {
    const n: Node = {
      opType: "Foo",
      domain: "d",
      name: "old",
      inputs: ["a"],
      outputs: ["b"],
      attributes: [{ name: "k", type: "INT", value: 1n }],
      overload: "o",
      docString: "doc",
      metadataProps: [{ key: "k", value: "v" }],
      deviceConfigurations: [{}],
    };
    expect(nodeWith(n, ["x"], ["y"], "new")).toEqual({
      ...n,
      inputs: ["x"],
      outputs: ["y"],
      name: "new",
    });
    // Node's fields: a new optional field must be added to nodeWith (and here).
    expect(Object.keys(n).sort()).toEqual(Object.keys(nodeWith(n, [], [], "")).sort());
  });

  it("walks every tensor, including attribute tensors in function bodies", () => {
    const m = model(g);
    m.functions.push({
      name: "F",
      domain: "local",
      inputs: [],
      outputs: ["o"],
      attributes: [],
      attributeProtos: [],
      nodes: [node("Constant", [], ["o"], { value: Tensor.scalar(DataType.FLOAT, 1, "c") })],
      opsetImports: [{ domain: "", version: 18 }],
      valueInfo: [],
    });
    expect([...walkTensors(m)].map((t) => t.name)).toEqual(["axes", "c"]);
  });
});

describe("tensors", () => {
  it("round-trips every numeric dtype through raw bytes", () => {
    const cases: [number, (number | bigint | boolean)[]][] = [
      [DataType.FLOAT, [1.5, -0, Infinity]],
      [DataType.DOUBLE, [Math.PI, -1e300]],
      [DataType.INT8, [-128, 127]],
      [DataType.UINT8, [0, 255]],
      [DataType.INT16, [-32768, 32767]],
      [DataType.UINT16, [65535]],
      [DataType.INT32, [-(2 ** 31), 2 ** 31 - 1]],
      [DataType.UINT32, [2 ** 32 - 1]],
      [DataType.INT64, [-(2n ** 63n), 2n ** 63n - 1n]],
      [DataType.UINT64, [2n ** 64n - 1n]],
      [DataType.BOOL, [true, false]],
      [DataType.FLOAT16, [1, -2.5, 65504, 2 ** -24]],
      [DataType.BFLOAT16, [1, -2.5, 3.3895313892515355e38]],
    ];
    for (const [dt, values] of cases) {
      const t = Tensor.from(dt, [values.length], values);
      expect(t.values()).toEqual(values);
    }
    expect(Tensor.from(DataType.STRING, [2], ["a", "ü"]).values()).toEqual(["a", "ü"]);
  });

  it("gives raw bytes bit-exactly from every typed field", () => {
    const raw = (dataType: number, data: TensorData) => [
      ...new Tensor(dataType, [], data).rawBytes(),
    ];
    // A float16 NaN with a payload, and a float32 one, keep their bits.
    expect(raw(DataType.FLOAT16, { kind: "int32", values: Int32Array.of(0x7d01, 0x3c00) })).toEqual(
      [0x01, 0x7d, 0x00, 0x3c],
    );
    const f32 = new Float32Array(new Uint32Array([0x7fa00001]).buffer);
    expect(raw(DataType.FLOAT, { kind: "float", values: f32 })).toEqual([0x01, 0x00, 0xa0, 0x7f]);
    expect(raw(DataType.INT8, { kind: "int32", values: Int32Array.of(-1, 5) })).toEqual([255, 5]);
    expect(
      raw(DataType.UINT32, { kind: "uint64", values: BigUint64Array.of(2n ** 32n - 1n) }),
    ).toEqual([255, 255, 255, 255]);
    // int4: each int32 entry holds one packed byte.
    expect(raw(DataType.INT4, { kind: "int32", values: Int32Array.of(0x21) })).toEqual([0x21]);
    expect(() => raw(DataType.STRING, { kind: "string", values: [] })).toThrow(/no raw form/);
  });

  it("rounds float16 and bfloat16 to nearest even", () => {
    // 1 + 2^-11 is halfway between 1 and the next float16 (1 + 2^-10): ties go to even (1).
    expect(numberToFloat16Bits(1 + 2 ** -11)).toBe(0x3c00);
    expect(numberToFloat16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(numberToFloat16Bits(65520)).toBe(0x7c00);
    expect(numberToBfloat16Bits(1 + 2 ** -8)).toBe(0x3f80);
    expect(numberToBfloat16Bits(1 + 3 * 2 ** -8)).toBe(0x3f82);
    expect(numberToBfloat16Bits(NaN) & 0x7fc0).toBe(0x7fc0);
  });
});

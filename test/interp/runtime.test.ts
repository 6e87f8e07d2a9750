// Run-time limits end a runaway model with an error naming the node, instead of running for hours;
// sparse tensors run as the dense tensors they stand for.

import { describe, expect, it } from "vitest";
import { run } from "../../src/interp/executor.js";
import { parseModelText } from "../../src/text/parse.js";
import { DataType } from "../../src/ir/types.js";
import * as ort from "onnxruntime-node";
import { checkModel } from "../../src/check/index.js";
import { encodeModel } from "../../src/io/files.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";

const LOOP = `<ir_version: 8, opset_import: ["" : 18]>
g (int64 m) => (float[1] y) <float[1] init = {1.5}> {
   y = Loop (m, , init) <body = b (int64 i, bool c, float[1] s) => (bool c2, float[1] s2) {
      c2 = Identity (c)
      s2 = Identity (s)
   }>
}`;

const trips = (n: bigint) => ({
  m: { dtype: DataType.INT64, shape: [], data: BigInt64Array.of(n) },
});

describe("Loop iteration limit", () => {
  const model = parseModelText(LOOP);

  it("runs loops up to the limit", () => {
    const out = run(model, trips(50n), { maxIterations: 50 });
    expect(Array.from(out.y!.data as Float32Array)).toEqual([1.5]);
  });

  it("stops a loop that would go past the limit, naming the node", () => {
    expect(() => run(model, trips(51n), { maxIterations: 50 })).toThrow(
      /node #0 \(Loop\): loop would run more than 50 iterations/,
    );
  });

  it("ends a huge trip count at the limit instead of running it", () => {
    expect(() => run(model, trips(2n ** 62n), { maxIterations: 1000 })).toThrow(
      /more than 1000 iterations/,
    );
  });
});

describe("sparse tensors", () => {
  // W is 3x4 with three non-zeros, given once by linear positions and once by coordinates.
  const build = (coordinates: boolean) => {
    const values = Tensor.from(DataType.FLOAT, [3], [1.5, -2, 4], "W");
    const indices = coordinates
      ? Tensor.from(DataType.INT64, [3, 2], [0n, 1n, 1n, 3n, 2n, 0n])
      : Tensor.from(DataType.INT64, [3], [1n, 7n, 8n]);
    return model(
      graph({
        name: "g",
        nodes: [
          node("Add", ["x", "W"], ["y"]),
          node(
            "Constant",
            [],
            ["k"],
            {},
            {
              attributes: [
                {
                  name: "sparse_value",
                  type: "SPARSE_TENSOR",
                  value: {
                    values: Tensor.from(DataType.FLOAT, [1], [10], "k"),
                    indices: Tensor.from(DataType.INT64, [1], [2n]),
                    dims: [4],
                  },
                },
              ],
            },
          ),
          node("Add", ["y", "k"], ["z"]),
        ],
        inputs: [valueInfo("x", "float", [3, 4])],
        outputs: [valueInfo("z", "float", [3, 4])],
        sparseInitializers: [{ values, indices, dims: [3, 4] }],
      }),
      13,
    );
  };
  const want = [0, 1.5, 10, 0, 0, 0, 10, -2, 4, 0, 10, 0];

  for (const coordinates of [false, true])
    it(`sparse initializers and sparse Constants run as dense tensors (${coordinates ? "coordinates" : "linear indices"}), as in onnxruntime`, async () => {
      const m = build(coordinates);
      expect(checkModel(m).problems).toEqual([]);
      const x = { dtype: DataType.FLOAT, shape: [3, 4], data: new Float32Array(12) };
      expect(Array.from(run(m, { x }).z!.data as Float32Array)).toEqual(want);
      const session = await ort.InferenceSession.create(encodeModel(m));
      const out = await session.run({ x: new ort.Tensor("float32", new Float32Array(12), [3, 4]) });
      expect(Array.from(out.z!.data as Float32Array)).toEqual(want);
    });

  it("an index out of range is an error naming the tensor", () => {
    const m = build(true);
    m.graph.sparseInitializers[0]!.indices = Tensor.from(
      DataType.INT64,
      [3, 2],
      [0n, 1n, 1n, 4n, 2n, 0n],
    );
    const x = { dtype: DataType.FLOAT, shape: [3, 4], data: new Float32Array(12) };
    expect(() => run(m, { x })).toThrow(
      /sparse initializer 'W': index 4 of value 1 is out of range for dimension 1 of size 4/,
    );
  });
});

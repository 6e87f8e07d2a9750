// fuse-conv-batchnorm: a BatchNormalization after a Conv folds into the Conv's weights and bias
// (with and without a Conv bias, grouped too), onnxruntime gives the original's numbers within
// rounding; left alone: a Conv output something else also reads, a BatchNormalization whose
// statistics are graph inputs, training outputs.

import { describe, expect, it } from "vitest";

import { compareTensors } from "../../src/interp/backend-test.js";
import { Tensor } from "../../src/ir/tensor.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { DataType, type Model, type Node } from "../../src/ir/types.js";
import { fuseConvBatchNorm, runPass } from "../../src/passes/index.js";
import { random, runOrt } from "../helpers/ort.js";

const init = (name: string, shape: number[], seed: number, lo = -1, hi = 1) =>
  Tensor.from(
    DataType.FLOAT,
    shape,
    random(DataType.FLOAT, shape, seed, lo, hi).data as Float32Array,
    name,
  );

/** x [1,4,6,6] → Conv (6 out, group g) → BatchNormalization → (extra nodes). */
function net(
  opts: {
    bias?: boolean;
    group?: number;
    extra?: Node[];
    outputs?: string[];
    statsAsInputs?: boolean;
  } = {},
): Model {
  const g = opts.group ?? 1;
  const convIn = ["x", "w", ...(opts.bias ? ["b"] : [])];
  const stats = [
    init("scale", [6], 3, 0.5, 2),
    init("beta", [6], 4),
    init("mean", [6], 5),
    init("var", [6], 6, 0.1, 3),
  ];
  return model(
    graph({
      nodes: [
        node("Conv", convIn, ["c"], { pads: [1, 1, 1, 1], group: g }),
        node("BatchNormalization", ["c", "scale", "beta", "mean", "var"], ["y"], { epsilon: 1e-3 }),
        ...(opts.extra ?? []),
      ],
      inputs: [
        valueInfo("x", DataType.FLOAT, [1, 4, 6, 6]),
        ...(opts.statsAsInputs ? stats.map((t) => valueInfo(t.name, DataType.FLOAT, [6])) : []),
      ],
      outputs: (opts.outputs ?? ["y"]).map((n) => valueInfo(n)),
      initializers: [
        init("w", [6, 4 / g, 3, 3], 1),
        ...(opts.bias ? [init("b", [6], 2)] : []),
        ...stats,
      ],
    }),
    15,
  );
}

async function sameOnOrt(a: Model, b: Model): Promise<void> {
  const x = random(DataType.FLOAT, [1, 4, 6, 6], 9);
  const [ra, rb] = [await runOrt(a, { x }), await runOrt(b, { x })];
  for (const k of Object.keys(ra))
    expect(compareTensors(rb[k]!, ra[k]!, { rtol: 1e-5, atol: 1e-5 }), k).toBeUndefined();
}

describe("fuse-conv-batchnorm", () => {
  for (const [name, opts] of [
    ["no Conv bias", {}],
    ["with a Conv bias", { bias: true }],
    ["grouped", { bias: true, group: 2 }],
  ] as const)
    it(`fuses (${name}), and onnxruntime gives the same numbers`, async () => {
      const m = net(opts);
      const r = runPass(fuseConvBatchNorm(), m);
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      expect(r.model.graph.nodes.map((n) => n.opType)).toEqual(["Conv"]);
      expect(r.model.graph.nodes[0]!.outputs).toEqual(["y"]);
      // The old weights and statistics are gone; the new ones are there.
      expect(r.model.graph.initializers.map((t) => t.name).sort()).toEqual(
        opts.bias ? ["b_bn", "w_bn"] : ["w_bias_bn", "w_bn"],
      );
      await sameOnOrt(m, r.model);
    });

  it("fuses a ConvTranspose (output channels on the weights' axis 1)", async () => {
    const m = net({ bias: true });
    const g = m.graph;
    const t = model(
      {
        ...g,
        nodes: [node("ConvTranspose", ["x", "w", "b"], ["c"], { strides: [2, 2] }), g.nodes[1]!],
        initializers: [init("w", [4, 6, 3, 3], 1), ...g.initializers.filter((x) => x.name !== "w")],
      },
      15,
    );
    const r = runPass(fuseConvBatchNorm(), t);
    expect(r.ok && r.model.graph.nodes.map((n) => n.opType)).toEqual(["ConvTranspose"]);
    if (r.ok) await sameOnOrt(t, r.model);
  });

  it("leaves a Conv whose output is read elsewhere, and statistics that are graph inputs", () => {
    const shared = net({ extra: [node("Relu", ["c"], ["z"])], outputs: ["y", "z"] });
    expect(
      runPass(fuseConvBatchNorm(), shared).ok && runPass(fuseConvBatchNorm(), shared),
    ).toMatchObject({ modified: false });
    const fed = net({ statsAsInputs: true });
    expect(runPass(fuseConvBatchNorm(), fed)).toMatchObject({ ok: true, modified: false });
  });
});

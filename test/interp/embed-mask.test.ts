// onnxruntime's EmbedLayerNormalization counts, for mask_index, the mask entries equal to 1 (a 2
// or a -1 is not counted), and so do this kernel and the body `expand` writes for it: checked on
// onnxruntime-node with masks holding 0, 1 and other values.

import { describe, expect, it } from "vitest";
import { expand } from "../../src/app/index.js";
import { run } from "../../src/interp/executor.js";
import { fromFloat64, type RTensor } from "../../src/interp/tensor.js";
import { DataType, oneNodeModel } from "../helpers/interp.js";
import { random, runOrt } from "../helpers/ort.js";

const I32 = DataType.INT32;
const ints = (shape: number[], v: number[]): RTensor =>
  fromFloat64(I32, shape, Float64Array.from(v));

describe("EmbedLayerNormalization's mask_index", () => {
  it("counts the entries equal to 1, as onnxruntime", async () => {
    const B = 3;
    const S = 6;
    const H = 4;
    const inputs = [
      ints([B, S], [0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 0, 1, 1, 2, 2, 3, 3]),
      ints(
        [B, S],
        Array.from({ length: B * S }, (_, i) => i % 2),
      ),
      random(DataType.FLOAT, [8, H], 1),
      random(DataType.FLOAT, [S, H], 2),
      random(DataType.FLOAT, [2, H], 3),
      random(DataType.FLOAT, [H], 4),
      random(DataType.FLOAT, [H], 5),
      ints([B, S], [1, 1, 1, 0, 0, 0, 2, 2, 1, -1, 0, 0, -3, 2, -2, 1, 1, 5]),
    ];
    const m = oneNodeModel({
      op: "EmbedLayerNormalization",
      inputs,
      attrs: { epsilon: 1e-5 },
      outputs: 2,
      opset: 17,
      extra: { domain: "com.microsoft" },
    });
    m.opsetImports.push({ domain: "com.microsoft", version: 1 });
    const feeds = Object.fromEntries(inputs.map((t, i) => [`x${i}`, t]));
    const theirs = (await runOrt(m, feeds)).y1!;
    expect(Array.from(theirs.data as Int32Array)).toEqual([3, 1, 2]);
    expect(Array.from(run(m, feeds).y1!.data as Int32Array)).toEqual([3, 1, 2]);
    const e = expand(m);
    expect(e.ok).toBe(true);
    if (!e.ok) return;
    expect(e.model.graph.nodes.some((n) => n.opType === "EmbedLayerNormalization")).toBe(false);
    expect(Array.from((await runOrt(e.model, feeds)).y1!.data as Int32Array)).toEqual([3, 1, 2]);
  });
});

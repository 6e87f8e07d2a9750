// The shipped examples: each checks clean, runs in the interpreter, and (where onnxruntime knows
// every op) gives onnxruntime's numbers.

import * as ort from "onnxruntime-node";
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkModel } from "../../src/check/index.js";
import { fromFloat64, run, toFloat64 } from "../../src/interp/index.js";
import { loadModel } from "../../src/io/files.js";
import type { TensorType } from "../../src/ir/types.js";

const dir = new URL("../../examples/", import.meta.url).pathname;
const files = readdirSync(dir).filter((f) => f.endsWith(".onnx") || f.endsWith(".onnxtxt"));

describe("shipped examples", () => {
  it("exist", () => expect(files.length).toBeGreaterThanOrEqual(3));

  for (const f of files)
    it(`${f} checks clean and runs like onnxruntime`, async () => {
      const m = loadModel(dir + f);
      expect(checkModel(m).problems).toEqual([]);
      const inputs = Object.fromEntries(
        m.graph.inputs.map((vi, k) => {
          const t = vi.type as TensorType;
          const shape = t.shape as number[];
          const n = shape.reduce((a, b) => a * b, 1);
          return [
            vi.name,
            fromFloat64(
              t.elemType,
              shape,
              Float64Array.from({ length: n }, (_, i) => 0.25 + ((i * 7 + k) % 11) / 4),
            ),
          ];
        }),
      );
      const ours = run(m, inputs);
      const opset = m.opsetImports.find((o) => o.domain === "")!.version;
      if (opset > 24) return; // onnxruntime 1.30 does not know LogCumSumExp-29
      const session = await ort.InferenceSession.create(dir + f);
      const feeds = Object.fromEntries(
        Object.entries(inputs).map(([k, v]) => [
          k,
          new ort.Tensor("float32", v.data as Float32Array, v.shape),
        ]),
      );
      const theirs = await session.run(feeds);
      for (const out of m.graph.outputs) {
        const a = toFloat64(ours[out.name]!);
        const b = Array.from(theirs[out.name]!.data as Float32Array);
        expect(ours[out.name]!.shape).toEqual([...theirs[out.name]!.dims]);
        b.forEach((y, i) =>
          expect(Math.abs(a[i]! - y)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(y))),
        );
      }
    });
});

// sort-nodes: nodes stored out of order (as a float16 conversion that keeps float32 inputs writes
// its input Casts last) put in order, so that simplify keeps them; a cycle named.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { simplify } from "../../src/app/index.js";
import { loadModel } from "../../src/io/files.js";
import { runPass, sortNodes } from "../../src/passes/index.js";
import { parseModelText } from "../../src/text/parse.js";
import { random, runOrt } from "../helpers/ort.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { DataType } from "../../src/ir/types.js";

describe("sort-nodes", () => {
  it("puts producers first, keeps an order that already is one", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] z) { z = Relu (y) a = Abs (x) y = Neg (a) }`);
    const r = runPass(sortNodes(), m);
    expect(r.ok && r.model.graph.nodes.map((n) => n.opType)).toEqual(["Abs", "Neg", "Relu"]);
    const again = runPass(sortNodes(), r.ok ? r.model : m);
    expect(again.ok && again.modified).toBe(false);
  });

  it("names a cycle", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] z) { a = Add (x, b) b = Neg (a) z = Relu (b) }`);
    expect(() => runPass(sortNodes(), m)).toThrow(/cycle/);
  });

  it("simplify keeps the input Casts a float16 conversion appended last", async () => {
    const file = join(import.meta.dirname, "..", "data", "deployed", "cnn_fp16_io32", "model.onnx");
    const m = loadModel(file);
    // The Cast of the model's input is stored after the Conv that reads it.
    const cast = m.graph.nodes.findIndex((n) => n.outputs.includes("graph_input_cast_0"));
    const conv = m.graph.nodes.findIndex((n) => n.inputs.includes("graph_input_cast_0"));
    expect(cast).toBeGreaterThan(conv);
    const r = simplify(m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const input = { input: random(DataType.FLOAT, [1, 3, 32, 32], 5) };
    const [a, b] = [await runOrt(m, input), await runOrt(r.model, input)];
    expect(compareTensors(b.probs!, a.probs!, { rtol: 0, atol: 0 })).toBeUndefined();
  });
});

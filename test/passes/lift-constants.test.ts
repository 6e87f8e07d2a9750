// lift-constants: Constant nodes of the main graph become initializers of the same name (every
// value form), the graph computes the same numbers on onnxruntime, and what must stay stays: a
// Constant writing a graph output, one in a subgraph, every one below IR 4.

import { describe, expect, it } from "vitest";

import { liftConstants, runPass } from "../../src/passes/index.js";
import { parseModelText } from "../../src/text/parse.js";
import { runOrt, random } from "../helpers/ort.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { DataType } from "../../src/ir/types.js";

const TEXT = (ir: number) => `<ir_version: ${ir}, opset_import: ["" : 18]>
g (float[2,3] x) => (float[2,3] y, float[3] k) {
  w = Constant <value = float[3] {1.5, -2, 0.25}> ()
  s = Constant <value_float = 3.0> ()
  sh = Constant <value_ints = [3, 2]> ()
  a = Mul (x, w)
  b = Add (a, s)
  r = Reshape (b, sh)
  back = Constant <value_ints = [2, 3]> ()
  y = Reshape (r, back)
  k = Constant <value = float[3] {7, 8, 9}> ()
}`;

describe("lift-constants", () => {
  it("makes every form of Constant an initializer, with the same numbers on onnxruntime", async () => {
    const m = parseModelText(TEXT(9));
    const r = runPass(liftConstants(), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.model.graph.nodes.map((n) => n.opType)).toEqual([
      "Mul",
      "Add",
      "Reshape",
      "Reshape",
      "Constant",
    ]);
    const inits = Object.fromEntries(r.model.graph.initializers.map((t) => [t.name, t]));
    expect(Object.keys(inits).sort()).toEqual(["back", "s", "sh", "w"]);
    expect([inits.s!.dataType, inits.s!.dims]).toEqual([DataType.FLOAT, []]);
    expect([inits.sh!.dataType, inits.sh!.dims]).toEqual([DataType.INT64, [2]]);
    expect(r.notes.map((n) => n.message)).toEqual(["lifted 4 Constant nodes into initializers"]);
    const x = random(DataType.FLOAT, [2, 3], 1);
    const [a, b] = [await runOrt(m, { x }), await runOrt(r.model, { x })];
    for (const name of ["y", "k"]) expect(compareTensors(b[name]!, a[name]!)).toBeUndefined();
  });

  it("keeps them all below IR 4 (an initializer had to be a graph input there)", () => {
    const r = runPass(liftConstants(), parseModelText(TEXT(3)));
    expect(r.ok && r.modified).toBe(false);
  });

  it("keeps a subgraph's Constants", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (bool c) => (float[1] y) {
  y = If (c) <then_branch = t () => (float[1] a) { a = Constant <value = float[1] {1}> () },
              else_branch = e () => (float[1] b) { b = Constant <value = float[1] {2}> () }>
}`);
    const r = runPass(liftConstants(), m);
    expect(r.ok && r.modified).toBe(false);
  });
});

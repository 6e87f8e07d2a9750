// A refusal of `convert` names the step that would get past it (src/convert/next-step.ts), or
// says that none exists; where it names one, that step is taken here and gives onnxruntime's
// numbers.

import { describe, expect, it } from "vitest";
import { convert, convertModel, simplify } from "../../src/app/transform.js";
import { parseModelText } from "../../src/text/index.js";
import { random, runOrt } from "../helpers/ort.js";
import { DataType } from "../helpers/interp.js";

/** Reshape allowzero = 1 to a shape computed from the input's symbolic dims (as decoders do). */
const withInits = `
  < ir_version: 8, opset_import: ["" : 14] >
  g (float[batch,seq,8] x) => (float[batch,seq,2,4] y)
    <int64[1] zero = {0}, int64[1] two = {2}, int64[2] tail = {2, 4}> {
    s = Shape (x)
    bs = Slice (s, zero, two)
    shape = Concat <axis: int = 0> (bs, tail)
    y = Reshape <allowzero: int = 1> (x, shape)
  }`;

const lines = (text: string, target: number) =>
  convertModel(parseModelText(text), target).plan.blocked.map((b) => b.message);

describe("refusals name the way through", () => {
  it("a shape computed from symbolic dims: --dim by the model's own names, and lower", () => {
    expect(lines(withInits, 13)).toEqual([
      `allowzero = 1 with shape 'shape' computed at run time: a 0 in it would mean "copy the input's dim" in Reshape-13; it may be known once the symbolic dims are fixed: \`onnx-expand simplify --dim batch=…,seq=…\`, then convert; or \`onnx-expand lower --target ai.onnx-13 --dim batch=…,seq=…\``,
    ]);
  });

  it("the step it names works: simplify --dim, then convert, with onnxruntime's numbers", async () => {
    const model = parseModelText(withInits);
    const s = simplify(model, {
      dims: new Map([
        ["batch", 2],
        ["seq", 3],
      ]),
    });
    if (!s.ok) throw new Error(s.notes.map((n) => n.message).join("; "));
    const r = convert(s.model, 13);
    if (!r.ok) throw new Error(r.notes.map((n) => n.message).join("; "));
    const feeds = { x: random(DataType.FLOAT, [2, 3, 8], 7) };
    const [a, b] = [await runOrt(model, feeds), await runOrt(r.model, feeds)];
    expect(b.y!.shape).toEqual([2, 3, 2, 4]);
    expect(Array.from(b.y!.data as Float32Array)).toEqual(Array.from(a.y!.data as Float32Array));
  });

  it("a shape read from an input's values: no step gets past it", () => {
    const text = `
      < ir_version: 8, opset_import: ["" : 14] >
      g (float[2,3] x, int64[2] s) => (float[3,2] y) {
        y = Reshape <allowzero: int = 1> (x, s)
      }`;
    expect(lines(text, 13)[0]).toMatch(
      /; it comes from the values of input 's', known only at run time: no step of onnx-expand gets past it$/,
    );
  });

  it("an op with no form below the opset it came in: none exists", () => {
    const text = `
      < ir_version: 8, opset_import: ["" : 14] >
      g (float[2,3] x) => (float[2,3] y) { y = Trilu (x) }`;
    expect(lines(text, 13)).toEqual([
      "Trilu does not exist before opset 14; no step of onnx-expand gets past it",
    ]);
  });
});

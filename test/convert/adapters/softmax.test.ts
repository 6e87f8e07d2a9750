// Softmax / LogSoftmax / Hardmax 11 <-> 13: the axis meaning changed (2-D coercion -> one axis).

import { describe, expect, it } from "vitest";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";

const model = (opset: number, op: string, attrs: string, shape = "2,3,4") => `<
  ir_version: 7,
  opset_import: ["" : ${opset}]
>
g (float[${shape}] x) => (float[${shape}] y) {
  y = ${op}${attrs}(x)
}`;

describe("Softmax family 11 -> 13", () => {
  for (const op of ["Softmax", "LogSoftmax", "Hardmax"]) {
    it(`${op}: default axis 1 of a 3-D input becomes Flatten -> ${op}(axis=1) -> Reshape`, async () => {
      const text = await convertAndCompare({
        text: model(11, op, ""),
        target: 13,
      });
      expect(nodeLines(text)).toEqual([
        "y_2d = Flatten <axis: int = 1> (x)",
        `y_2d_out = ${op} <axis: int = 1> (y_2d)`,
        "x_shape = Shape (x)",
        "y = Reshape (y_2d_out, x_shape)",
      ]);
    });
    it(`${op}: the last axis is kept`, async () => {
      const text = await convertAndCompare({
        text: model(11, op, "<axis = 2>"),
        target: 13,
      });
      expect(nodeLines(text)).toEqual([`y = ${op} <axis: int = 2> (x)`]);
    });
  }
  it("axis 0 normalises over the whole tensor", async () => {
    await convertAndCompare({
      text: model(11, "Softmax", "<axis = 0>"),
      target: 13,
    });
  });
  it("default axis of a 2-D input is the last one: set explicitly", async () => {
    const text = await convertAndCompare({
      text: model(11, "LogSoftmax", "", "3,5"),
      target: 13,
    });
    expect(nodeLines(text)).toEqual(["y = LogSoftmax <axis: int = 1> (x)"]);
  });
});

describe("Softmax family 13 -> 11", () => {
  for (const op of ["Softmax", "LogSoftmax", "Hardmax"]) {
    it(`${op}: a middle axis is moved last and back with Transpose`, async () => {
      const text = await convertAndCompare({
        text: model(13, op, "<axis = 1>"),
        target: 11,
      });
      expect(nodeLines(text)).toEqual([
        "x_t = Transpose <perm: ints = [0, 2, 1]> (x)",
        `y_t = ${op} <axis: int = -1> (x_t)`,
        "y = Transpose <perm: ints = [0, 2, 1]> (y_t)",
      ]);
    });
    it(`${op}: the default (last) axis becomes axis -1`, async () => {
      const text = await convertAndCompare({
        text: model(13, op, ""),
        target: 11,
      });
      expect(nodeLines(text)).toEqual([`y = ${op} <axis: int = -1> (x)`]);
    });
  }
  it("axis 0 of a 4-D input", async () => {
    await convertAndCompare({
      text: model(13, "Softmax", "<axis = -4>", "2,3,2,2"),
      target: 11,
    });
  });
  it("a middle axis of an input of unknown rank blocks", () => {
    const t = `<ir_version: 7, opset_import: ["" : 13]>
g (tensor(float) x) => (tensor(float) y) { y = Softmax<axis = 1>(x) }`;
    expect(() => convertText(t, 11)).toThrow();
    expect(() => convertText(t, 11)).toThrow(/rank is unknown/);
  });
  it("the last axis of an input of unknown rank needs no rank", () => {
    const t = `<ir_version: 7, opset_import: ["" : 13]>
g (tensor(float) x) => (tensor(float) y) { y = Softmax(x) }`;
    const m = convertText(t, 11);
    expect(m.graph.nodes.length).toBe(1);
  });
});

// Kernels run the version of an op in force at the imported opset: each form an op had, on both
// sides of the version that changed it (attribute → input, new defaults, new meaning).

import { describe, expect, it } from "vitest";
import { DataType, T, f32, graph, i64, node, runOne, vals, valueInfo } from "../helpers/interp.js";
import { attr } from "../../src/ir/builder.js";

const one = (spec: Parameters<typeof runOne>[0]) => runOne(spec)[0]!;
const close = (a: (number | bigint | string)[], b: number[]) =>
  a.forEach((x, i) => expect(x as number).toBeCloseTo(b[i]!, 5));

describe("broadcasting before and after opset 7", () => {
  const a = f32([2, 3], [1, 2, 3, 4, 5, 6]);
  it("Add-6 with broadcast=1 and axis aligns B at the axis; Add-7 broadcasts from the end", () => {
    const at0 = one({
      op: "Add",
      inputs: [a, f32([2], [10, 20])],
      opset: 6,
      attrs: { broadcast: 1, axis: 0 },
    });
    expect(vals(at0)).toEqual([11, 12, 13, 24, 25, 26]);
    const tail = one({ op: "Add", inputs: [a, f32([3], [10, 20, 30])], opset: 7 });
    expect(vals(tail)).toEqual([11, 22, 33, 14, 25, 36]);
  });

  it("PRelu-6 applies a 1-D slope per channel (axis 1); PRelu-9 broadcasts it from the end", () => {
    const x = f32([1, 2, 2], [-1, -1, -1, -1]);
    const slope = f32([2], [2, 3]);
    expect(vals(one({ op: "PRelu", inputs: [x, slope], opset: 6 }))).toEqual([-2, -2, -3, -3]);
    expect(vals(one({ op: "PRelu", inputs: [x, slope], opset: 9 }))).toEqual([-2, -3, -2, -3]);
  });
});

describe("attributes that became inputs", () => {
  const x = f32([2, 3], [1, 2, 3, 4, 5, 6]);

  it("TopK: k attribute (1), K input (10)", () => {
    expect(vals(one({ op: "TopK", inputs: [x], opset: 1, attrs: { k: 1 }, outputs: 2 }))).toEqual([
      3, 6,
    ]);
    expect(vals(one({ op: "TopK", inputs: [x, i64([1], [2])], opset: 10, outputs: 2 }))).toEqual([
      3, 2, 6, 5,
    ]);
  });

  it("Clip: min/max attributes (6), inputs (11)", () => {
    const want = [1.5, 2, 3, 4, 4.5, 4.5];
    expect(vals(one({ op: "Clip", inputs: [x], opset: 6, attrs: { min: 1.5, max: 4.5 } }))).toEqual(
      want,
    );
    expect(
      vals(one({ op: "Clip", inputs: [x, f32([], [1.5]), f32([], [4.5])], opset: 11 })),
    ).toEqual(want);
  });

  it("Reshape: shape attribute (1), input (5)", () => {
    expect(one({ op: "Reshape", inputs: [x], opset: 1, attrs: { shape: [3, 2] } }).shape).toEqual([
      3, 2,
    ]);
    expect(one({ op: "Reshape", inputs: [x, i64([2], [3, 2])], opset: 5 }).shape).toEqual([3, 2]);
  });

  it("Slice: starts/ends attributes (1), inputs (10)", () => {
    const old = one({
      op: "Slice",
      inputs: [x],
      opset: 1,
      attrs: { starts: [0, 1], ends: [1, 3] },
    });
    expect(vals(old)).toEqual([2, 3]);
    const now = one({ op: "Slice", inputs: [x, i64([2], [0, 1]), i64([2], [1, 3])], opset: 10 });
    expect(vals(now)).toEqual([2, 3]);
  });

  it("Split: split attribute (2), input (13); equal parts only before num_outputs (18)", () => {
    const v = f32([5], [1, 2, 3, 4, 5]);
    const two = runOne({
      op: "Split",
      inputs: [v],
      opset: 2,
      attrs: { split: [2, 3] },
      outputs: 2,
    });
    expect(two.map((t) => t.shape)).toEqual([[2], [3]]);
    const thirteen = runOne({ op: "Split", inputs: [v, i64([2], [4, 1])], opset: 13, outputs: 2 });
    expect(thirteen.map((t) => t.shape)).toEqual([[4], [1]]);
    expect(() => runOne({ op: "Split", inputs: [v], opset: 13, outputs: 2 })).toThrow(
      /does not split evenly/,
    );
    const uneven = runOne({
      op: "Split",
      inputs: [v],
      opset: 18,
      attrs: { num_outputs: 2 },
      outputs: 2,
    });
    expect(uneven.map((t) => t.shape)).toEqual([[3], [2]]);
  });

  it("Upsample: scales attribute (7), input (9); Resize-10 reads scales at input 1", () => {
    const s = f32([1, 2], [1, 2]);
    const want = [1, 1, 2, 2];
    expect(
      vals(one({ op: "Upsample", inputs: [s], opset: 7, attrs: { scales: [1.0, 2.0] } })),
    ).toEqual(want);
    expect(vals(one({ op: "Upsample", inputs: [s, f32([2], [1, 2])], opset: 9 }))).toEqual(want);
    expect(vals(one({ op: "Resize", inputs: [s, f32([2], [1, 2])], opset: 10 }))).toEqual(want);
  });

  it("ReduceMean: axes attribute (13), input (18)", () => {
    expect(
      vals(one({ op: "ReduceMean", inputs: [x], opset: 13, attrs: { axes: [1], keepdims: 0 } })),
    ).toEqual([2, 5]);
    expect(
      vals(
        one({ op: "ReduceMean", inputs: [x, i64([1], [1])], opset: 18, attrs: { keepdims: 0 } }),
      ),
    ).toEqual([2, 5]);
  });

  it("Dropout: a mask of the input's type (7), bool (10); ratio and training_mode inputs (12)", () => {
    const [, m7] = runOne({ op: "Dropout", inputs: [x], opset: 7, outputs: 2 });
    expect(m7!.dtype).toBe(DataType.FLOAT);
    const [, m10] = runOne({ op: "Dropout", inputs: [x], opset: 10, outputs: 2 });
    expect(m10!.dtype).toBe(DataType.BOOL);
    const [y12] = runOne({
      op: "Dropout",
      inputs: [x, f32([], [0.5]), T(DataType.BOOL, [], [false])],
      opset: 12,
    });
    expect(vals(y12!)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(() =>
      runOne({
        op: "Dropout",
        inputs: [x, f32([], [0.5]), T(DataType.BOOL, [], [true])],
        opset: 12,
      }),
    ).toThrow(/training-mode dropout/);
  });
});

describe("defaults and meanings that changed", () => {
  it("Concat-1 joins along axis 1 when axis is absent", () => {
    const c = one({ op: "Concat", inputs: [f32([1, 1], [1]), f32([1, 1], [2])], opset: 1 });
    expect(c.shape).toEqual([1, 2]);
  });

  it("Softmax: before 13 the input is flattened to 2-D at axis 1; from 13 along axis -1", () => {
    const x = f32([1, 2, 2], [0, 0, 0, 0]);
    close(vals(one({ op: "Softmax", inputs: [x], opset: 11 })), [0.25, 0.25, 0.25, 0.25]);
    close(vals(one({ op: "Softmax", inputs: [x], opset: 13 })), [0.5, 0.5, 0.5, 0.5]);
  });

  it("DFT: axis attribute defaulting to 1 (17), optional axis input defaulting to -2 (20)", () => {
    const x = f32([1, 4, 1], [1, 0, 0, 0]);
    const want = [1, 0, 1, 0, 1, 0, 1, 0];
    expect(vals(one({ op: "DFT", inputs: [x], opset: 17 }))).toEqual(want);
    expect(vals(one({ op: "DFT", inputs: [x], opset: 20 }))).toEqual(want);
    const given = one({
      op: "DFT",
      inputs: [x, i64([], [1])],
      names: ["x", "", "axis"],
      opset: 20,
    });
    expect(vals(given)).toEqual(want);
  });

  it("GridSample: the default mode is bilinear (16) and linear (20), the same sampling", () => {
    const x = f32([1, 1, 2, 2], [1, 2, 3, 4]);
    const grid = f32([1, 1, 1, 2], [0, 0]);
    expect(vals(one({ op: "GridSample", inputs: [x, grid], opset: 16 }))).toEqual([2.5]);
    expect(vals(one({ op: "GridSample", inputs: [x, grid], opset: 20 }))).toEqual([2.5]);
  });

  it("RoiAlign-10 samples as output_half_pixel; RoiAlign-16 defaults to half_pixel", () => {
    const x = f32(
      [1, 1, 4, 4],
      Array.from({ length: 16 }, (_, i) => i),
    );
    const rois = f32([1, 4], [0, 0, 3, 3]);
    const idx = i64([1], [0]);
    const attrs = { output_height: 2, output_width: 2, sampling_ratio: 1 };
    const run = (opset: number, extra = {}) =>
      vals(one({ op: "RoiAlign", inputs: [x, rois, idx], opset, attrs: { ...attrs, ...extra } }));
    const ten = run(10);
    expect(run(16, { coordinate_transformation_mode: "output_half_pixel" })).toEqual(ten);
    expect(run(16)).toEqual(run(16, { coordinate_transformation_mode: "half_pixel" }));
    expect(run(16)).not.toEqual(ten);
  });
});

describe("Scan before and after 9", () => {
  const body = graph({
    nodes: [node("Add", ["s", "x"], ["s2"]), node("Identity", ["s2"], ["y"])],
    inputs: [valueInfo("s", "float", [1]), valueInfo("x", "float", [1])],
    outputs: [valueInfo("s2", "float", [1]), valueInfo("y", "float", [1])],
  });
  it("Scan-8 has a batch axis and a sequence_lens input; Scan-9 neither", () => {
    const [s8, y8] = runOne({
      op: "Scan",
      inputs: [f32([1, 1], [0]), f32([1, 3, 1], [1, 2, 3])],
      names: ["", "init", "xs"],
      opset: 8,
      attributes: [attr("body", body), attr("num_scan_inputs", 1)],
      outputs: 2,
    });
    expect(vals(s8!)).toEqual([6]);
    expect(vals(y8!)).toEqual([1, 3, 6]);
    const [s9, y9] = runOne({
      op: "Scan",
      inputs: [f32([1], [0]), f32([3, 1], [1, 2, 3])],
      opset: 9,
      attributes: [attr("body", body), attr("num_scan_inputs", 1)],
      outputs: 2,
    });
    expect(vals(s9!)).toEqual([6]);
    expect(vals(y9!)).toEqual([1, 3, 6]);
  });
});

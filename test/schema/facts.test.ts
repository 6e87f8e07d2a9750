import { describe, expect, it } from "vitest";
import {
  attributeDefault,
  broadcastsMultidirectionally,
  firstVersion,
  firstVersionWhere,
  hasAttribute,
  hasInput,
  inputIndex,
  isAttributeRequired,
  outputTypes,
  versionInForce,
} from "../../src/schema/facts.js";
import {
  MAX_IR_VERSION,
  ONNX_RELEASES,
  maxOpsetForIrVersion,
  minIrVersionForOpset,
  releasedIrVersion,
} from "../../src/schema/ir-versions.js";
import { SchemaRegistry } from "../../src/schema/registry.js";
import type { OpVersion } from "../../src/schema/types.js";

const registry = SchemaRegistry.default();
const at = (op: string, since: number): OpVersion => {
  const v = registry.versions("", op).find((x) => x.since === since);
  if (!v) throw new Error(`no ${op}-${since}`);
  return v;
};

describe("facts of one version", () => {
  it("input positions and presence", () => {
    expect(inputIndex(at("ReduceLogSum", 18), "axes")).toBe(1);
    expect(inputIndex(at("ReduceLogSum", 13), "axes")).toBe(-1);
    expect(hasInput(at("ReduceSum", 13), "axes")).toBe(true);
    expect(inputIndex(at("Pad", 18), "axes")).toBe(3);
    expect(inputIndex(at("DFT", 20), "axis")).toBe(2);
  });

  it("attributes, defaults and whether they are required", () => {
    expect(hasAttribute(at("ReduceLogSum", 13), "axes")).toBe(true);
    expect(hasAttribute(at("ReduceLogSum", 18), "axes")).toBe(false);
    expect(attributeDefault(at("ReduceLogSum", 18), "keepdims")).toBe(1);
    expect(attributeDefault(at("GridSample", 16), "mode")).toBe("bilinear");
    expect(attributeDefault(at("GridSample", 20), "mode")).toBe("linear");
    expect(attributeDefault(at("RoiAlign", 16), "coordinate_transformation_mode")).toBe(
      "half_pixel",
    );
    expect(attributeDefault(at("RoiAlign", 10), "coordinate_transformation_mode")).toBeUndefined();
    expect(attributeDefault(at("DFT", 17), "axis")).toBe(1);
    expect(isAttributeRequired(at("Concat", 1), "axis")).toBe(false);
    expect(isAttributeRequired(at("Concat", 4), "axis")).toBe(true);
  });

  it("the types an output may have", () => {
    expect(outputTypes(at("Dropout", 10), "mask")).toEqual(["tensor(bool)"]);
    expect(outputTypes(at("Dropout", 7), "mask")).toContain("tensor(float)");
    expect(outputTypes(at("Dropout", 7), "nope")).toEqual([]);
  });

  it("multidirectional broadcasting from opset 7", () => {
    expect(broadcastsMultidirectionally(at("Add", 6))).toBe(false);
    expect(broadcastsMultidirectionally(at("Add", 7))).toBe(true);
    expect(broadcastsMultidirectionally(at("Max", 6))).toBe(false);
    expect(broadcastsMultidirectionally(at("Max", 8))).toBe(true);
    expect(broadcastsMultidirectionally(at("PRelu", 7))).toBe(true);
  });
});

// Each query the checker and the interpreter ask instead of a version number gives the same
// answer as that number did, for every version of the op.
describe("the queries that replaced version numbers agree with them", () => {
  const cases: [op: string, query: (v: OpVersion) => boolean, from: number][] = [
    ["Slice", (v) => hasInput(v, "starts"), 10],
    ["Pad", (v) => hasInput(v, "pads"), 11],
    ["Pad", (v) => hasInput(v, "axes"), 18],
    ["Squeeze", (v) => hasInput(v, "axes"), 13],
    ["Unsqueeze", (v) => hasInput(v, "axes"), 13],
    ["Reshape", (v) => hasInput(v, "shape"), 5],
    ["Split", (v) => !hasAttribute(v, "split"), 13],
    ["Split", (v) => hasAttribute(v, "num_outputs"), 18],
    ["TopK", (v) => !hasAttribute(v, "k"), 10],
    ["Scan", (v) => !hasInput(v, "sequence_lens"), 9],
    ["DFT", (v) => hasInput(v, "axis"), 20],
    ["Upsample", (v) => hasInput(v, "scales"), 9],
    ["Resize", (v) => hasInput(v, "sizes"), 11],
    ["Dropout", (v) => hasInput(v, "training_mode"), 12],
    ["Dropout", (v) => outputTypes(v, "mask").every((t) => t === "tensor(bool)"), 10],
    ["Concat", (v) => isAttributeRequired(v, "axis"), 4],
    ...["Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "Greater", "And", "Or", "Xor"].map(
      (op): [string, (v: OpVersion) => boolean, number] => [op, broadcastsMultidirectionally, 7],
    ),
    ...["Max", "Min", "Sum", "Mean"].map((op): [string, (v: OpVersion) => boolean, number] => [
      op,
      broadcastsMultidirectionally,
      8,
    ]),
  ];
  it.each(cases)("%s (case %#)", (op, query, from) => {
    const versions = registry.versions("", op);
    expect(versions.length).toBeGreaterThan(1);
    for (const v of versions) expect([v.since, query(v)]).toEqual([v.since, v.since >= from]);
  });

  it("the Reduce ops take axes as an input from 13 (ReduceSum) or 18 (the others)", () => {
    const since = (op: string) => firstVersionWhere("", op, (v) => hasInput(v, "axes"))?.since;
    expect(since("ReduceSum")).toBe(13);
    for (const op of ["ReduceMean", "ReduceMax", "ReduceL1", "ReduceLogSum", "ReduceLogSumExp"])
      expect(since(op)).toBe(18);
  });
});

describe("versions of an operator", () => {
  it("the version in force, cached", () => {
    const v = versionInForce("", "ReduceLogSum", 17);
    expect(v?.since).toBe(13);
    expect(versionInForce("ai.onnx", "ReduceLogSum", 17)).toBe(v);
    expect(versionInForce("", "ReduceLogSum", 18)?.since).toBe(18);
    expect(versionInForce("", "LogCumSumExp", 28)).toBeUndefined();
    expect(versionInForce("", "NoSuchOp", 18)).toBeUndefined();
    expect(versionInForce("", "Relu", 1e9)?.since).toBe(14);
  });

  it("the first version", () => {
    expect(firstVersion("", "LogCumSumExp")?.since).toBe(29);
    expect(firstVersion("", "NoSuchOp")).toBeUndefined();
  });
});

describe("IR versions and opsets (ONNX's release table)", () => {
  it("the IR version each opset first shipped with", () => {
    const table = Array.from({ length: 28 }, (_, i) => [i + 1, releasedIrVersion(i + 1)]);
    expect(table.filter(([, ir]) => ir !== undefined)).toEqual([
      [1, 3],
      [5, 3],
      [6, 3],
      [7, 3],
      [8, 3],
      [9, 4],
      [10, 5],
      [11, 6],
      [12, 7],
      [13, 7],
      [14, 7],
      [15, 8],
      [16, 8],
      [17, 8],
      [18, 8],
      [19, 9],
      [20, 9],
      [21, 10],
      [22, 10],
      [23, 11],
      [24, 12],
      [25, 13],
      [26, 13],
      [27, 13],
      [28, 13],
    ]);
    expect(releasedIrVersion(29)).toBeUndefined();
  });

  it("the lowest IR version a model of an opset needs", () => {
    expect([1, 2, 3, 4, 5, 8, 9, 23, 24, 25, 28].map(minIrVersionForOpset)).toEqual([
      3, 3, 3, 3, 3, 3, 4, 11, 12, 13, 13,
    ]);
    // An opset after the newest release needs no more than that release's IR version.
    expect(minIrVersionForOpset(29)).toBe(13);
  });

  it("the newest opset a model of an IR version may import", () => {
    expect([2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14].map(maxOpsetForIrVersion)).toEqual([
      0, 8, 9, 11, 14, 18, 20, 22, 23, 24, 28, 28,
    ]);
  });

  it("the two directions agree, and the table stays within what the tool reads", () => {
    for (let opset = 1; opset <= 28; opset++) {
      const ir = minIrVersionForOpset(opset);
      expect(maxOpsetForIrVersion(ir)).toBeGreaterThanOrEqual(opset);
      expect(maxOpsetForIrVersion(ir - 1)).toBeLessThan(opset);
    }
    for (const r of ONNX_RELEASES) expect(r.irVersion).toBeLessThanOrEqual(MAX_IR_VERSION);
  });
});

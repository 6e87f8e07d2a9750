// The driver: every graph, subgraph and function; IR versions; other domains; nodes not touched
// stay the same objects; all-or-nothing with every blocked node named; the pass contract.

import { describe, expect, it } from "vitest";
import { convertModel, convertPass, minIrVersionForFeatures } from "../../src/convert/index.js";
import { runPass } from "../../src/passes/manager.js";
import { failureError } from "../../src/passes/pass.js";
import { printModel } from "../../src/text/print.js";
import { OnnxError } from "../../src/errors.js";
import { expectBlocked, expectConverted, expectValid, parse } from "../helpers/convert.js";
import { NEWEST_OPSET } from "../helpers/registry.js";

describe("convert: where it goes", () => {
  it("converts Loop bodies and If branches at any depth", () => {
    const before = `<ir_version: 7, opset_import: ["" : 12]>
      g (float[2,3] x, bool c, int64 n) => (float[?] y) {
        y = If (c) <
          then_branch = t () => (float[?] a) {
            a = ReduceSum <axes: ints = [1], keepdims: int = 0> (x)
          },
          else_branch = e () => (float[?] b) {
            b = If (c) <
              then_branch = t2 () => (float[?] b1) { b1 = ReduceSum <axes: ints = [0], keepdims: int = 0> (x) },
              else_branch = e2 () => (float[?] b2) { b2 = ReduceSum <axes: ints = [1], keepdims: int = 0> (x) }>
          }> }`;
    const after = `<ir_version: 7, opset_import: ["" : 13]>
      g (float[2,3] x, bool c, int64 n) => (float[?] y) {
        y = If (c) <
          then_branch = t () => (float[?] a) {
            a_axes = Constant <value: tensor = int64[1] {1}> ()
            a = ReduceSum <keepdims: int = 0> (x, a_axes)
          },
          else_branch = e () => (float[?] b) {
            b = If (c) <
              then_branch = t2 () => (float[?] b1) {
                b1_axes = Constant <value: tensor = int64[1] {0}> ()
                b1 = ReduceSum <keepdims: int = 0> (x, b1_axes) },
              else_branch = e2 () => (float[?] b2) {
                b2_axes = Constant <value: tensor = int64[1] {1}> ()
                b2 = ReduceSum <keepdims: int = 0> (x, b2_axes) }>
          }> }`;
    expectConverted(before, 13, after);
    expectConverted(after, 12, before);
  });

  it("converts model-local functions, each from its own ai.onnx import", () => {
    const before = `<ir_version: 8, opset_import: ["" : 13, "local" : 1]>
      g (float[2,3] x) => (float[2] y) { y = local.F (x) }
      <domain: "local", opset_import: ["" : 11]>
      F (a) => (b) { b = ReduceL1 <axes: ints = [1], keepdims: int = 0> (a) }`;
    const after = `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2,3] x) => (float[2] y) { y = local.F (x) }
      <domain: "local", opset_import: ["" : 18]>
      F (a) => (b) {
        b_axes = Constant <value: tensor = int64[1] {1}> ()
        b = ReduceL1 <keepdims: int = 0> (a, b_axes) }`;
    expectConverted(before, 18, after);
  });

  it("keeps nodes of other domains, and their opset imports, as they are", () => {
    const r = expectConverted(
      `<ir_version: 7, opset_import: ["" : 12, "com.example" : 3]>
        g (float[2] x) => (float[2] y) { y = com.example.Thing <k: int = 1> (x) }`,
      13,
      `<ir_version: 7, opset_import: ["" : 13, "com.example" : 3]>
        g (float[2] x) => (float[2] y) { y = com.example.Thing <k: int = 1> (x) }`,
      { run: false },
    );
    expect(r.plan.blocked).toEqual([]);
  });
});

describe("convert: what stays", () => {
  it("nodes and tensors a step does not touch are the same objects", () => {
    const m = parse(`<ir_version: 7, opset_import: ["" : 12]>
      g (float[2,3] x) => (float[2] y, float[2,3] z) <float[1] w = {2.0}> {
        a = Mul (x, w)
        y = ReduceSum <axes: ints = [1], keepdims: int = 0> (a)
        z = Relu (a) }`);
    const out = convertModel(m, 13).model!;
    expect(out.graph.nodes[0]).toBe(m.graph.nodes[0]);
    expect(out.graph.nodes[3]).toBe(m.graph.nodes[2]);
    expect(out.graph.initializers[0]).toBe(m.graph.initializers[0]);
    expect(out.graph.inputs).toBe(m.graph.inputs);
  });

  it("a model already at the target is given back unchanged", () => {
    const m = parse(
      `<ir_version: 8, opset_import: ["" : 18]> g (float[2] x) => (float[2] y) { y = Relu (x) }`,
    );
    const r = runPass(convertPass(18), m);
    expect(r.ok && r.modified).toBe(false);
    expect(r.ok && printModel(r.model)).toBe(printModel(m));
  });
});

describe("convert: IR version", () => {
  const relu = (opset: number, ir: number, extra = "") =>
    `<ir_version: ${ir}, opset_import: ["" : ${opset}]> g (float[2] x) => (float[2] y)${extra} { y = Relu (x) }`;

  it("is raised to what the target opset needs on the way up", () => {
    expect(convertModel(parse(relu(8, 3)), 18).model!.irVersion).toBe(8);
    expect(convertModel(parse(relu(8, 3)), 21).model!.irVersion).toBe(10);
  });

  it("goes down to the IR released with the target, or what the model's features need", () => {
    expect(convertModel(parse(relu(18, 8)), 11).model!.irVersion).toBe(6);
    // An initializer that is not a graph input needs IR 4.
    const withInit = parse(relu(18, 8, " <float[1] w = {1.0}>"));
    expect(minIrVersionForFeatures(withInit)).toBe(4);
    expect(convertModel(withInit, 7).model!.irVersion).toBe(4);
    expect(convertModel(parse(relu(18, 8)), 7).model!.irVersion).toBe(3);
  });

  it("local functions keep IR 8 on the way down, and the result checks", () => {
    const m = parse(`<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2] x) => (float[2] y) { y = local.F (x) }
      <domain: "local", opset_import: ["" : 18]>
      F (a) => (b) { b = Relu (a) }`);
    const out = convertModel(m, 11).model!;
    expect(out.irVersion).toBe(8);
    expectValid(out);
  });
});

describe("convert: all or nothing", () => {
  it("names every blocked node and gives no model", () => {
    const lines = expectBlocked(
      `<ir_version: 10, opset_import: ["" : 29]>
        g (float[4] x, int64[1] a) => (float[4] y, float[?] z, float[4] w) {
          [c1] y = LogCumSumExp (x)
          [r1] z = ReduceSum (x, a)
          [c2] w = LogCumSumExp (y) }`,
      12,
    );
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /node 'c1' \(LogCumSumExp\): .*expand it first \(`onnx-expand expand`\)/,
    );
    expect(lines.some((l) => /node 'r1' \(ReduceSum\): .*computed at run time/.test(l))).toBe(true);
  });

  it("the pass fails with an error note per blocked node; as an error, the first named and the count", () => {
    const m = parse(`<ir_version: 10, opset_import: ["" : 29]>
      g (float[4] x) => (float[4] y, float[4] w) { [c1] y = LogCumSumExp (x)  [c2] w = LogCumSumExp (y) }`);
    const r = runPass(convertPass(28), m);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.notes.filter((n) => n.level === "error")).toHaveLength(2);
    expect(r.pass).toBe("convert(opset 28)");
    const err = failureError(r);
    expect(err).toBeInstanceOf(OnnxError);
    expect(err.message).toMatch(/node 'c1' \(LogCumSumExp\).*\(and 1 more\)/);
  });

  it("a function op that does not exist at the target suggests expanding it", () => {
    const lines = expectBlocked(
      `<ir_version: 9, opset_import: ["" : 20]> g (float[4] x) => (float[4] y) { y = Gelu (x) }`,
      19,
    );
    expect(lines[0]).toMatch(
      /Gelu does not exist before opset 20; it is a function op: expand it first/,
    );
  });

  it("a deprecated target version is taken only through its row (Upsample 9 -> 10 becomes Resize)", () => {
    const r = convertModel(
      parse(`<ir_version: 3, opset_import: ["" : 9]>
        g (float[1,1,2,2] x, float[4] s) => (float[?,?,?,?] y) { y = Upsample (x, s) }`),
      10,
    );
    expect(r.model!.graph.nodes.map((n) => n.opType)).toEqual(["Resize"]);
    expect(r.plan.adapted.map((a) => a.op)).toEqual(["Upsample"]);
  });

  it("refuses a target opset it does not know", () => {
    const m = parse(
      `<ir_version: 8, opset_import: ["" : 18]> g (float[2] x) => (float[2] y) { y = Relu (x) }`,
    );
    expect(() => convertModel(m, NEWEST_OPSET + 1)).toThrow(
      `target opset '${NEWEST_OPSET + 1}' is not one this tool knows`,
    );
    expect(() => convertModel(m, 0)).toThrow(/target opset '0'/);
  });
});

describe("convert: steps the diff cannot see", () => {
  it("a behaviour break without an adapter row blocks (Resize 19 -> 18)", () => {
    const lines = expectBlocked(
      `<ir_version: 9, opset_import: ["" : 19]> g (float[1,1,2,2] x, float[4] s) => (float[?,?,?,?] y) { y = Resize <mode: string = "linear"> (x, , s) }`,
      18,
    );
    expect(lines[0]).toMatch(/Resize.*half_pixel_symmetric/);
  });

  it("free steps are free: elementwise ops 11 -> 18 need nothing", () => {
    const r = expectConverted(
      `<ir_version: 6, opset_import: ["" : 11]> g (float[2] x) => (float[2] y) { a = Relu (x)  y = Add (a, x) }`,
      18,
      `<ir_version: 8, opset_import: ["" : 18]> g (float[2] x) => (float[2] y) { a = Relu (x)  y = Add (a, x) }`,
    );
    expect(r.plan.freeSteps).toBe(4); // Relu and Add change at 13 and 14
    expect(r.plan.adapted).toEqual([]);
  });

  it("a step down that drops a type blocks only nodes using it (Add int8 13 -> 12)", () => {
    const m = (t: string) =>
      `<ir_version: 7, opset_import: ["" : 14]> g (${t}[2] x) => (${t}[2] y) { y = Add (x, x) }`;
    expect(expectBlocked(m("int8"), 13)[0]).toMatch(/int8, which Add-13 does not accept/);
    expectConverted(
      m("float"),
      13,
      `<ir_version: 7, opset_import: ["" : 13]> g (float[2] x) => (float[2] y) { y = Add (x, x) }`,
    );
  });

  it("element types follow Cast and the ops' type variables through the graph", () => {
    const lines = expectBlocked(
      `<ir_version: 7, opset_import: ["" : 14]> g (float[2] x) => (int8[2] z) {
        y = Cast <to: int = 3> (x)
        a = Neg (y)
        [add] z = Add (a, y) }`,
      13,
    );
    expect(lines).toEqual([
      "graph > node 'add' (Add): input 'a' is int8, which Add-13 does not accept",
    ]);
  });
});

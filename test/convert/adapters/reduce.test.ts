// The Reduce adapters, text in and text out (SEMANTICS.md "Opset conversion").

import { describe, expect, it } from "vitest";
import { expectBlocked, expectConverted } from "../../helpers/convert.js";

const head = (opset: number, ir = 8) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

describe("ReduceSum 12 <-> 13 (axes attribute <-> input)", () => {
  it("one axis becomes a Constant input, and back", () => {
    const v12 = `${head(12, 7)}
      g (float[2,3] x) => (float[2] y) { y = ReduceSum <axes: ints = [1], keepdims: int = 0> (x) }`;
    const v13 = `${head(13, 7)}
      g (float[2,3] x) => (float[2] y) {
        y_axes = Constant <value: tensor = int64[1] {1}> ()
        y = ReduceSum <keepdims: int = 0> (x, y_axes)
      }`;
    expectConverted(v12, 13, v13);
    expectConverted(v13, 12, v12);
  });

  it("several and negative axes", () => {
    expectConverted(
      `${head(11, 6)} g (float[2,3,4] x) => (float[1,3,1] y) { y = ReduceSum <axes: ints = [0, -1]> (x) }`,
      13,
      `${head(13, 7)} g (float[2,3,4] x) => (float[1,3,1] y) {
        y_axes = Constant <value: tensor = int64[2] {0, -1}> ()
        y = ReduceSum (x, y_axes) }`,
    );
  });

  it("absent axes and axes=[] stay absent (all axes)", () => {
    const after = `${head(13, 7)} g (float[2,3] x) => (float[1,1] y, float[1,1] z) {
        y = ReduceSum (x)
        z = ReduceSum (x) }`;
    expectConverted(
      `${head(12, 7)} g (float[2,3] x) => (float[1,1] y, float[1,1] z) {
        y = ReduceSum (x)
        z = ReduceSum <axes: ints = []> (x) }`,
      13,
      after,
    );
  });

  it("down: axes from an initializer; the initializer goes when nothing else reads it", () => {
    expectConverted(
      `${head(13, 7)} g (float[2,3] x) => (float[2] y) <int64[1] ax = {-1}> {
        y = ReduceSum <keepdims: int = 0> (x, ax) }`,
      12,
      `${head(12, 7)} g (float[2,3] x) => (float[2] y) {
        y = ReduceSum <axes: ints = [-1], keepdims: int = 0> (x) }`,
    );
  });

  it("down: a constant shared by two nodes is removed only with its last reader", () => {
    expectConverted(
      `${head(13, 7)} g (float[2,3] x) => (float[2] y, float[2] z, int64[1] k) {
        ax = Constant <value_ints: ints = [1]> ()
        y = ReduceSum <keepdims: int = 0> (x, ax)
        z = ReduceSum <keepdims: int = 0> (x, ax)
        k = Identity (ax) }`,
      12,
      `${head(12, 7)} g (float[2,3] x) => (float[2] y, float[2] z, int64[1] k) {
        ax = Constant <value_ints: ints = [1]> ()
        y = ReduceSum <axes: ints = [1], keepdims: int = 0> (x)
        z = ReduceSum <axes: ints = [1], keepdims: int = 0> (x)
        k = Identity (ax) }`,
    );
    expectConverted(
      `${head(13, 7)} g (float[2,3] x) => (float[2] y, float[2] z) {
        ax = Constant <value: tensor = int64[1] {1}> ()
        y = ReduceSum <keepdims: int = 0> (x, ax)
        z = ReduceSum <keepdims: int = 0> (x, ax) }`,
      12,
      `${head(12, 7)} g (float[2,3] x) => (float[2] y, float[2] z) {
        y = ReduceSum <axes: ints = [1], keepdims: int = 0> (x)
        z = ReduceSum <axes: ints = [1], keepdims: int = 0> (x) }`,
    );
  });

  it("down: noop_with_empty_axes=1 with no axes is the identity", () => {
    expectConverted(
      `${head(13, 7)} g (float[2,3] x) => (float[2,3] y) {
        y = ReduceSum <noop_with_empty_axes: int = 1> (x) }`,
      12,
      `${head(12, 7)} g (float[2,3] x) => (float[2,3] y) { y = Identity (x) }`,
    );
  });

  it("down: noop_with_empty_axes=1 with axes given is dropped (it changes nothing there)", () => {
    expectConverted(
      `${head(13, 7)} g (float[2,3] x, int64[1] unused) => (float[2,1] y) {
        ax = Constant <value: tensor = int64[1] {1}> ()
        y = ReduceSum <noop_with_empty_axes: int = 1> (x, ax) }`,
      11,
      `${head(11, 6)} g (float[2,3] x, int64[1] unused) => (float[2,1] y) {
        y = ReduceSum <axes: ints = [1]> (x) }`,
    );
  });

  it("down: axes computed at run time block the step, naming the node", () => {
    const lines = expectBlocked(
      `${head(13, 7)} g (float[2,3] x, int64[1] ax) => (float[?,?] y) {
        [r1] y = ReduceSum (x, ax) }`,
      12,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /graph > node 'r1' \(ReduceSum\): input 'ax' \(axes\) is computed at run time/,
    );
  });
});

describe("the other Reduce ops, 17 <-> 18", () => {
  it("ReduceLogSum-13 (opset 13) comes out as ReduceLogSum-18 with an axes input", () => {
    expectConverted(
      `${head(13, 7)} g (float[2,3] x) => (float[2,1] y) { y = ReduceLogSum <axes: ints = [1]> (x) }`,
      18,
      `${head(18, 8)} g (float[2,3] x) => (float[2,1] y) {
        y_axes = Constant <value: tensor = int64[1] {1}> ()
        y = ReduceLogSum (x, y_axes) }`,
    );
  });

  it("ReduceLogSum-1 (opset 1) goes all the way up", () => {
    expectConverted(
      `${head(1, 3)} g (float[2,3] x) => (float[2,1] y) { y = ReduceLogSum <axes: ints = [1]> (x) }`,
      18,
      `${head(18, 8)} g (float[2,3] x) => (float[2,1] y) {
        y_axes = Constant <value: tensor = int64[1] {1}> ()
        y = ReduceLogSum (x, y_axes) }`,
    );
  });

  const noop: [string, string][] = [
    ["ReduceLogSum", "y = Log (x)"],
    ["ReduceL1", "y = Abs (x)"],
    ["ReduceL2", "y = Abs (x)"],
    ["ReduceSumSquare", "y = Mul (x, x)"],
    ["ReduceLogSumExp", "y = Identity (x)"],
    ["ReduceMean", "y = Identity (x)"],
    ["ReduceMax", "y = Identity (x)"],
    ["ReduceMin", "y = Identity (x)"],
    ["ReduceProd", "y = Identity (x)"],
  ];
  for (const [op, body] of noop)
    it(`${op}: noop_with_empty_axes=1 and axes=[] become the elementwise equivalent`, () => {
      expectConverted(
        `${head(18)} g (float[2,3] x) => (float[2,3] y) {
          e = Constant <value: tensor = int64[0] {}> ()
          y = ${op} <noop_with_empty_axes: int = 1, keepdims: int = 0> (x, e) }`,
        17,
        `${head(17)} g (float[2,3] x) => (float[2,3] y) { ${body} }`,
      );
    });

  it("an empty axes input without noop means all axes: the attribute stays absent", () => {
    expectConverted(
      `${head(18)} g (float[2,3] x) => (float[1,1] y) {
        e = Constant <value: tensor = int64[0] {}> ()
        y = ReduceL2 (x, e) }`,
      17,
      `${head(17)} g (float[2,3] x) => (float[1,1] y) { y = ReduceL2 (x) }`,
    );
  });

  it("integer ReduceLogSum with noop and no axes is blocked (Log takes floats only)", () => {
    const lines = expectBlocked(
      `${head(18)} g (int32[2,3] x) => (int32[2,3] y) {
        y = ReduceLogSum <noop_with_empty_axes: int = 1> (x) }`,
      17,
    );
    expect(lines[0]).toMatch(/integer input/);
  });

  it("every blocked node is reported, inside subgraphs too", () => {
    const lines = expectBlocked(
      `${head(18)} g (float[2,3] x, int64[1] a, bool c) => (float[?,?] y, float[?,?] z) {
        y = ReduceMean (x, a)
        z = If (c) <
          then_branch = t () => (float[?,?] z1) { z1 = ReduceMax (x, a) },
          else_branch = e () => (float[?,?] z2) { z2 = ReduceMin (x, a) }> }`,
      17,
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^graph > node #1 \(If\) then_branch > node #0 \(ReduceMax\): /);
  });
});

describe("ReduceMax/ReduceMin type steps", () => {
  it("int8 ReduceMax cannot go below 12; float can", () => {
    const m = (t: string) =>
      `${head(12, 7)} g (${t}[2,3] x) => (${t}[2,1] y) { y = ReduceMax <axes: ints = [1]> (x) }`;
    expect(expectBlocked(m("int8"), 11)[0]).toMatch(/int8.*ReduceMax-11 does not accept/);
    expectConverted(
      m("float"),
      11,
      `${head(11, 6)} g (float[2,3] x) => (float[2,1] y) { y = ReduceMax <axes: ints = [1]> (x) }`,
    );
  });

  it("bool ReduceMin cannot go below 20", () => {
    const m = `${head(20, 9)} g (bool[2,3] x) => (bool[1,1] y) { y = ReduceMin (x) }`;
    expect(expectBlocked(m, 19)[0]).toMatch(/bool/);
  });
});

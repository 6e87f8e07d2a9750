// The legacy broadcast (broadcast/axis attributes) 6 <-> 7, Gemm and PRelu.

import { describe, expect, it } from "vitest";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";
import { DataType, T, f32, i64 } from "../../helpers/interp.js";

const head = (opset: number, ir = 7) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

describe("broadcasting 6 <-> 7", () => {
  it("B aligned at an axis gets trailing 1s", async () => {
    const m6 = `${head(6, 3)}
g (float[2,3,4] a, float[3] b) => (float[2,3,4] y) { y = Add<broadcast = 1, axis = 1>(a, b) }`;
    const t = await convertAndCompare({ text: m6, target: 7, noOrtBefore: true });
    expect(nodeLines(t)).toEqual([
      "b_aligned = Unsqueeze <axes: ints = [1]> (b)",
      "y = Add (a, b_aligned)",
    ]);
  });
  it("suffix broadcasting needs nothing up and broadcast=1 down", async () => {
    const m7 = `${head(7, 3)}
g (float[2,3,4] a, float[3,4] b) => (float[2,3,4] y) { y = Mul(a, b) }`;
    const t6 = await convertAndCompare({ text: m7, target: 6, noOrtAfter: true });
    expect(nodeLines(t6)).toEqual(["y = Mul <broadcast: int = 1> (a, b)"]);
    const back = await convertAndCompare({ text: t6, target: 7, noOrtBefore: true });
    expect(nodeLines(back)).toEqual(["y = Mul (a, b)"]);
  });
  it("numpy broadcasting of A blocks the step down", () => {
    const m7 = `${head(7, 3)}
g (float[3,1] a, float[1,4] b) => (float[3,4] y) { y = Sub(a, b) }`;
    expect(() => convertText(m7, 6)).toThrow(/legacy way/);
  });
  it("PRelu-6 per-channel slope becomes [C, 1, 1]", async () => {
    const m6 = `${head(6, 3)}
g (float[2,3,2,2] x, float[3] s) => (float[2,3,2,2] y) { y = PRelu(x, s) }`;
    const t = await convertAndCompare({ text: m6, target: 9, noOrtBefore: true });
    expect(nodeLines(t)).toEqual([
      "s_per_channel = Unsqueeze <axes: ints = [1, 2]> (s)",
      "y = PRelu (x, s_per_channel)",
    ]);
  });
  it("Div-6, Pow-1, And/Or/Xor-1 and Equal/Greater/Less-1 with B aligned at an axis, up to 7", async () => {
    const num = `${head(6, 3)}
g (float[2,3,4] a, float[3] b) => (float[2,3,4] q) { q = Div<broadcast = 1, axis = 1>(a, b) }`;
    const feeds = {
      a: f32(
        [2, 3, 4],
        Array.from({ length: 24 }, (_, i) => 0.5 + i / 4),
      ),
      b: f32([3], [0.5, 2, 1.5]),
    };
    const q = await convertAndCompare({ text: num, target: 7, feeds, noOrtBefore: true });
    expect(nodeLines(q)).toEqual([
      "b_aligned = Unsqueeze <axes: ints = [1]> (b)",
      "q = Div (a, b_aligned)",
    ]);
    // Pow-1 with B equal to A's trailing dimensions (the interpreter runs no aligned legacy Pow).
    const pow = `${head(1, 3)}
g (float[2,3,4] a, float[4] b) => (float[2,3,4] q) { q = Pow<broadcast = 1>(a, b) }`;
    const exps = { a: feeds.a, b: f32([4], [0.5, 2, 1.5, 1]) };
    const p = await convertAndCompare({ text: pow, target: 7, feeds: exps, noOrtBefore: true });
    expect(nodeLines(p)).toEqual(["q = Pow (a, b)"]);
    for (const op of ["And", "Or", "Xor"]) {
      const m = `${head(1, 3)}
g (bool[2,3] a, bool[3] b) => (bool[2,3] y) { y = ${op}<broadcast = 1>(a, b) }`;
      const bools = {
        a: T(DataType.BOOL, [2, 3], [1, 0, 1, 0, 0, 1]),
        b: T(DataType.BOOL, [3], [1, 1, 0]),
      };
      const t = await convertAndCompare({ text: m, target: 7, feeds: bools, noOrtBefore: true });
      expect(nodeLines(t)).toEqual([`y = ${op} (a, b)`]);
    }
    // Equal-1 compares integers and bools, Greater-1 and Less-1 floats.
    for (const [op, t, a, b] of [
      ["Equal", "int64", i64([2, 3], [1, 2, 3, 3, 2, 1]), i64([3], [1, 2, 1])],
      ["Greater", "float", f32([2, 3], [1, 2, 3, 3, 2, 1]), f32([3], [1, 2.5, 1])],
      ["Less", "float", f32([2, 3], [1, 2, 3, 3, 2, 1]), f32([3], [1, 2.5, 1])],
    ] as const) {
      const cmp = `${head(1, 3)}
g (${t}[2,3] a, ${t}[3] b) => (bool[2,3] y) { y = ${op}<broadcast = 1>(a, b) }`;
      const e = await convertAndCompare({
        text: cmp,
        target: 7,
        feeds: { a, b },
        noOrtBefore: true,
      });
      expect(nodeLines(e)).toEqual([`y = ${op} (a, b)`]);
    }
  });

  it("Gemm 6 <-> 7: broadcast dropped up; C of Y's trailing shape gets broadcast=1 down", async () => {
    const m6 = `${head(6, 3)}
g (float[2,3] a, float[3,4] b, float[4] c) => (float[2,4] y) { y = Gemm<broadcast = 1>(a, b, c) }`;
    const up = await convertAndCompare({ text: m6, target: 7, noOrtBefore: true });
    expect(nodeLines(up)).toEqual(["y = Gemm (a, b, c)"]);
    const down = await convertAndCompare({ text: up, target: 6, noOrtAfter: true });
    expect(nodeLines(down)).toEqual(["y = Gemm <broadcast: int = 1> (a, b, c)"]);
  });
});

// Reshape-14 with allowzero = 1 going to 13: adapted where the meaning is provably the same (a
// constant shape without 0, or 0s only where the input's dim is statically 0), refused otherwise.

import { describe, expect, it } from "vitest";
import { convertAndCompare, expectBlocked, nodeLines } from "../helpers/convert.js";

const model = (inputs: string, body: string, outputs: string) => `
  < ir_version: 8, opset_import: ["" : 14] >
  g (${inputs}) => (${outputs}) {
    ${body}
  }`;

describe("Reshape allowzero = 1 to opset 13", () => {
  it("a constant shape without 0 (initializer)", async () => {
    const text = `
      < ir_version: 8, opset_import: ["" : 14] >
      g (float[2,16,8] x) => (float[2,4,-1,16] y)
        <int64[4] s = {2, 4, -1, 16}> {
        y = Reshape <allowzero: int = 1> (x, s)
      }`.replace("float[2,4,-1,16]", "float[2,4,2,16]");
    const out = await convertAndCompare({ text, target: 13 });
    expect(nodeLines(out)).toEqual(["y = Reshape (x, s)"]);
  });

  it("a constant shape without 0 (Constant node), and allowzero = 0", async () => {
    const text = model(
      "float[1,512] x",
      `s = Constant <value: tensor = int64[2] {512, 1}> ()
       t = Reshape <allowzero: int = 1> (x, s)
       y = Reshape <allowzero: int = 0> (t, s)`,
      "float[512,1] y",
    );
    const out = await convertAndCompare({ text, target: 13 });
    expect(out).not.toContain("allowzero");
  });

  it("a 0 where the input's dim is statically 0", async () => {
    const text = model(
      "float[0,3] x",
      `s = Constant <value: tensor = int64[2] {0, 3}> ()
       y = Reshape <allowzero: int = 1> (x, s)`,
      "float[0,3] y",
    );
    const out = await convertAndCompare({ text, target: 13 });
    expect(out).not.toContain("allowzero");
  });

  it("refuses a 0 where the input's dim is symbolic or not 0", () => {
    for (const input of ["float[N,3] x", "float[2,3] x"])
      expect(
        expectBlocked(
          model(
            input,
            `s = Constant <value: tensor = int64[2] {0, 3}> ()
             y = Reshape <allowzero: int = 1> (x, s)`,
            "float[N,3] y",
          ),
          13,
        ),
      ).toEqual([
        "graph > node #1 (Reshape): allowzero = 1 and the shape holds 0 at index 0, where the input's dim is not statically 0: Reshape-13 would copy that dim instead",
      ]);
  });

  it("refuses a shape computed at run time", () => {
    expect(
      expectBlocked(
        model(
          "float[2,3] x, int64[2] s",
          "y = Reshape <allowzero: int = 1> (x, s)",
          "float[3,2] y",
        ),
        13,
      ),
    ).toEqual([
      `graph > node #0 (Reshape): allowzero = 1 with shape 's' computed at run time: a 0 in it would mean "copy the input's dim" in Reshape-13`,
    ]);
  });
});

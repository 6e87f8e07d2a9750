// AveragePool 19 -> 11: dilations of 1 dropped (any rank), others blocked.

import { describe, expect, it } from "vitest";
import { convertAndCompare, expectBlocked, nodeLines } from "../../helpers/convert.js";

const pool = (
  shape: string,
  out: string,
  attrs: string,
) => `<ir_version: 9, opset_import: ["" : 19]>
  g (float[${shape}] x) => (float[${out}] y) { y = AveragePool <${attrs}> (x) }`;

describe("AveragePool 19 -> 11", () => {
  it("unit dilations are dropped, for 2-D and 1-D pooling", async () => {
    const two = await convertAndCompare({
      text: pool(
        "1,1,4,4",
        "1,1,2,2",
        "kernel_shape: ints = [2, 2], strides: ints = [2, 2], dilations: ints = [1, 1]",
      ),
      target: 11,
    });
    expect(nodeLines(two)).toEqual([
      "y = AveragePool <kernel_shape: ints = [2, 2], strides: ints = [2, 2]> (x)",
    ]);
    const one = await convertAndCompare({
      text: pool(
        "1,2,6",
        "1,2,3",
        "kernel_shape: ints = [2], strides: ints = [2], dilations: ints = [1]",
      ),
      target: 11,
    });
    expect(nodeLines(one)).toEqual([
      "y = AveragePool <kernel_shape: ints = [2], strides: ints = [2]> (x)",
    ]);
  });

  it("other dilations block the step", () => {
    const m = pool("1,1,5,5", "1,1,3,3", "kernel_shape: ints = [2, 2], dilations: ints = [2, 2]");
    expect(expectBlocked(m, 11)[0]).toMatch(
      /attribute 'dilations' = \[2, 2\] has no equivalent in AveragePool-11/,
    );
  });
});

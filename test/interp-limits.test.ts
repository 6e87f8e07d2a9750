// Run-time limits end a runaway model with an error naming the node, instead of running for hours.

import { describe, expect, it } from "vitest";
import { run } from "../src/interp/executor.js";
import { parseModelText } from "../src/text/parse.js";
import { DataType } from "../src/ir/types.js";

const LOOP = `<ir_version: 8, opset_import: ["" : 18]>
g (int64 m) => (float[1] y) <float[1] init = {1.5}> {
   y = Loop (m, , init) <body = b (int64 i, bool c, float[1] s) => (bool c2, float[1] s2) {
      c2 = Identity (c)
      s2 = Identity (s)
   }>
}`;

const trips = (n: bigint) => ({
  m: { dtype: DataType.INT64, shape: [], data: BigInt64Array.of(n) },
});

describe("Loop iteration limit", () => {
  const model = parseModelText(LOOP);

  it("runs loops up to the limit", () => {
    const out = run(model, trips(50n), { maxIterations: 50 });
    expect(Array.from(out.y!.data as Float32Array)).toEqual([1.5]);
  });

  it("stops a loop that would go past the limit, naming the node", () => {
    expect(() => run(model, trips(51n), { maxIterations: 50 })).toThrow(
      /node #0 \(Loop\): loop would run more than 50 iterations/,
    );
  });

  it("ends a huge trip count at the limit instead of running it", () => {
    expect(() => run(model, trips(2n ** 62n), { maxIterations: 1000 })).toThrow(
      /more than 1000 iterations/,
    );
  });
});

// legalize-quantize: QuantizeLinear and DequantizeLinear, for a target without them, as the float32
// arithmetic onnxruntime computes; its bytes on ties, saturation, per tensor and per axis.

import { describe, expect, it } from "vitest";
import { legalizeForTarget } from "../../src/passes/legalize.js";
import { QDQ, qdqFeeds as feeds, same, without } from "../helpers/legalize.js";

describe("legalize-quantize", () => {
  it("Quantize/DequantizeLinear as float arithmetic; onnxruntime's bytes (rounding half to even, saturation)", async () => {
    const { ops } = await same(
      QDQ,
      legalizeForTarget({ has: without("QuantizeLinear", "DequantizeLinear") }),
      feeds,
    );
    expect(ops.filter((o) => /Quantize/.test(o))).toEqual([]);
  });
});

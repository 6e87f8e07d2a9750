import { describe, expect, it } from "vitest";
import { formatDims, parseDims } from "../../src/app/dims.js";

describe("parseDims", () => {
  it("reads name=value pairs, across several texts", () => {
    const d = parseDims("batch=1, sequence = 128", "past=0");
    expect([...d]).toEqual([
      ["batch", 1],
      ["sequence", 128],
      ["past", 0],
    ]);
    expect(formatDims(d)).toBe("batch=1,sequence=128,past=0");
  });
  it("keeps names with odd characters (dim_params as exporters write them)", () => {
    expect(parseDims("s0=3,unk__42=7,batch_size + 1=2").get("batch_size + 1")).toBe(2);
  });
  it("refuses a missing value, a negative or fractional one, and a name given twice", () => {
    expect(() => parseDims("batch")).toThrow(/dim 'batch' is not name=value/);
    expect(() => parseDims("batch=-1")).toThrow(/non-negative integer/);
    expect(() => parseDims("batch=1.5")).toThrow(/non-negative integer/);
    expect(() => parseDims("=3")).toThrow(/not name=value/);
    expect(() => parseDims("b=1,b=2")).toThrow(/dim 'b' is given twice, as 1 and 2/);
    expect(parseDims("b=1,b=1").get("b")).toBe(1);
  });
});

// Quantization going down (src/convert/adapters/quant.ts): QuantizeLinear and DequantizeLinear
// per axis (13 -> 10), blocked and 16-bit (21 -> 19), output_dtype and precision (23 -> 21);
// MaxPool on uint8 below 12; Cast to bfloat16 and Shape of float8 folded where the input is a
// constant. Each converted model is run beside the original in the interpreter and onnxruntime.

import { describe, expect, it } from "vitest";
import { convertAndCompare, expectBlocked, nodeLines } from "../../helpers/convert.js";

describe("DequantizeLinear and QuantizeLinear 13 -> 10: per-axis parameters written out", () => {
  it("DequantizeLinear per axis becomes Cast, Sub, Mul with the parameters reshaped", async () => {
    const text = await convertAndCompare({
      text: `<ir_version: 8, opset_import: ["" : 13]>
g (uint8[2,3,2] x) => (float[2,3,2] y)
  <float[3] s = {0.5, 0.25, 2.0}, uint8[3] z = {128, 3, 250}> {
  y = DequantizeLinear <axis: int = 1> (x, s, z)
}`,
      target: 10,
    });
    const ops = nodeLines(text).map((l) => l.split(" = ")[1]!.split(" ")[0]);
    expect(ops).not.toContain("DequantizeLinear");
    expect(ops).toEqual(expect.arrayContaining(["Cast", "Sub", "Mul"]));
  });

  it("QuantizeLinear per axis rounds half to even and saturates as the op does", async () => {
    const text = await convertAndCompare({
      text: `<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] x) => (int8[2,3] y) <float[3] s = {0.5, 0.01, 0.003}, int8[3] z = {0, -3, 7}> {
  y = QuantizeLinear <axis: int = 1> (x, s, z)
}`,
      target: 10,
    });
    expect(text).not.toContain("QuantizeLinear");
  });

  it("a per-tensor DequantizeLinear needs no change", async () => {
    const text = await convertAndCompare({
      text: `<ir_version: 8, opset_import: ["" : 13]>
g (uint8[4] x) => (float[4] y) <float s = {0.5}, uint8 z = {3}> { y = DequantizeLinear (x, s, z) }`,
      target: 10,
    });
    expect(nodeLines(text)).toEqual(["y = DequantizeLinear (x, s, z)"]);
  });
});

describe("21 -> 19: block_size and the 16-bit types", () => {
  it("a blocked DequantizeLinear repeats each scale block_size times along the axis", async () => {
    const text = await convertAndCompare({
      text: `<ir_version: 10, opset_import: ["" : 21]>
g (int8[2,4] x) => (float[2,4] y)
  <float[2,2] s = {0.5, 0.25, 2.0, 1.0}, int8[2,2] z = {1, -2, 0, 5}> {
  y = DequantizeLinear <axis: int = 1, block_size: int = 2> (x, s, z)
}`,
      target: 19,
    });
    expect(text).not.toContain("block_size");
  });

  it("a blocked QuantizeLinear is written out too", async () => {
    const text = await convertAndCompare({
      text: `<ir_version: 10, opset_import: ["" : 21]>
g (float[2,4] x) => (uint8[2,4] y)
  <float[2,2] s = {0.05, 0.25, 0.02, 1.0}, uint8[2,2] z = {128, 100, 0, 5}> {
  y = QuantizeLinear <axis: int = 1, block_size: int = 2> (x, s, z)
}`,
      target: 19,
    });
    expect(text).not.toContain("QuantizeLinear");
  });

  it("a 16-bit DequantizeLinear (absent at 19) is written out", async () => {
    const text = await convertAndCompare({
      text: `<ir_version: 10, opset_import: ["" : 21]>
g (int16[5] x) => (float[5] y) <float s = {0.001}, int16 z = {-300}> {
  y = DequantizeLinear (x, s, z)
}`,
      target: 19,
    });
    expect(text).not.toContain("DequantizeLinear");
  });

  it("a 4-bit QuantizeLinear output has no equivalent at 19: refused with the reason", () => {
    const blocked = expectBlocked(
      `<ir_version: 10, opset_import: ["" : 21]>
g (float[4] x) => (int4[4] y) <float s = {0.5}, int4 z = {1}> { y = QuantizeLinear (x, s, z) }`,
      19,
    );
    expect(blocked.join("\n")).toMatch(/int4/);
  });
});

describe("23 -> 21: output_dtype and precision", () => {
  it("DequantizeLinear's output_dtype becomes a Cast after", async () => {
    const text = await convertAndCompare({
      text: `<ir_version: 11, opset_import: ["" : 23]>
g (uint8[4] x) => (float16[4] y) <float s = {0.5}, uint8 z = {3}> {
  y = DequantizeLinear <output_dtype: int = 10> (x, s, z)
}`,
      target: 21,
      noOrtBefore: true,
    });
    expect(text).not.toContain("output_dtype");
    expect(text).toContain("Cast");
  });

  it("QuantizeLinear's precision is dropped when it is the default", async () => {
    const text = await convertAndCompare({
      text: `<ir_version: 11, opset_import: ["" : 23]>
g (float[4] x) => (uint8[4] y) <float s = {0.5}, uint8 z = {3}> {
  y = QuantizeLinear <precision: int = 0> (x, s, z)
}`,
      target: 21,
      noOrtBefore: true,
    });
    expect(nodeLines(text)).toEqual(["y = QuantizeLinear (x, s, z)"]);
  });
});

describe("MaxPool 12 -> 11 on 8-bit integers", () => {
  it("uint8 pools in float and casts back", async () => {
    const text = await convertAndCompare({
      text: `<ir_version: 8, opset_import: ["" : 12]>
g (uint8[1,1,4,4] x) => (uint8[1,1,2,2] y) {
  y = MaxPool <kernel_shape: ints = [2, 2], strides: ints = [2, 2]> (x)
}`,
      target: 11,
    });
    expect(text).toContain("Cast");
    expect(text).toContain("MaxPool");
  });
});

describe("types absent at the target: a constant input is folded", () => {
  it("Cast of a bfloat16 constant to float, 13 -> 9", async () => {
    const text = await convertAndCompare({
      text: `<ir_version: 8, opset_import: ["" : 13]>
g (float[3] x) => (float[3] y) <bfloat16[3] c = {1.0, 2.5, -3.0}> {
  f = Cast <to: int = 1> (c)
  y = Add (x, f)
}`,
      target: 9,
    });
    expect(text).not.toContain("bfloat16");
    expect(nodeLines(text)).not.toContainEqual(expect.stringContaining("Cast"));
  });

  it("Cast of a computed bfloat16 value has no equivalent at 9: refused", () => {
    const blocked = expectBlocked(
      `<ir_version: 8, opset_import: ["" : 13]>
g (float[3] x) => (float[3] y) { b = Cast <to: int = 16> (x)
  y = Cast <to: int = 1> (b) }`,
      9,
    );
    expect(blocked.join("\n")).toMatch(/Cast/);
  });

  it("Shape of a float8 constant, 19 -> 15", async () => {
    const text = await convertAndCompare({
      text: `<ir_version: 9, opset_import: ["" : 19]>
g (int64[2] x) => (int64[2] y) <float8e4m3fn[2,3] c = {56, 64, 68, 72, 74, 76}> {
  s = Shape (c)
  y = Add (x, s)
}`,
      target: 15,
    });
    expect(text).not.toContain("Shape");
  });
});

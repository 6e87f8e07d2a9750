// The 8-, 4- and 2-bit types: Cast to and from each against ONNX's reference evaluator (onnx
// 1.23.1, test/data/lowprec-casts.json from scripts/generate/lowprec-casts.py), and packed raw
// data (two int4 a byte, low bits first) read and written.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { dtypeByName } from "../../src/ir/dtype.js";
import { Tensor } from "../../src/ir/tensor.js";
import { fromIRTensor, toIRTensor } from "../../src/interp/ir-tensors.js";
import { DataType, runOne, T } from "../helpers/interp.js";

const ref = JSON.parse(
  readFileSync(new URL("../data/lowprec-casts.json", import.meta.url), "utf8"),
) as {
  inputs: (number | string)[];
  casts: Record<string, number[]>;
  decode: Record<string, (number | string)[]>;
};
const num = (v: number | string) =>
  typeof v === "string" ? Number(v.replace("inf", "Infinity").replace("nan", "NaN")) : v;
const xs = ref.inputs.map(num);

/** A tensor's codes: the bits of a minifloat, the value of a sub-byte integer. */
function codes(dtype: number, data: ArrayLike<number>): number[] {
  return Array.from(data, (v) => v);
}

describe("Cast to the low-precision types, as ONNX's reference", () => {
  it.each(Object.keys(ref.casts))("%s (type:saturate)", (key) => {
    const [name, sat] = key.split(":") as [string, string];
    const to = dtypeByName(name)!.id;
    const sub = [DataType.INT4, DataType.UINT4, DataType.INT2, DataType.UINT2].includes(to);
    const [y] = runOne({
      op: "Cast",
      inputs: [T(DataType.FLOAT, [xs.length], xs)],
      attrs: sub ? { to } : { to, saturate: Number(sat) },
      opset: 25,
    });
    const got = codes(to, y!.data as Uint8Array);
    const want = ref.casts[key]!;
    // NaN's sign does not survive JSON: compare the others.
    const keep = xs.map((x) => !Number.isNaN(x));
    expect(got.filter((_, i) => keep[i])).toEqual(want.filter((_, i) => keep[i]));
  });
});

describe("Cast from the low-precision types, as ONNX's reference", () => {
  it.each(Object.keys(ref.decode))("%s", (name) => {
    const from = dtypeByName(name)!.id;
    const want = ref.decode[name]!.map(num);
    const n = want.length;
    const signed = from === DataType.INT4 || from === DataType.INT2;
    // Every code (sub-byte integers: every value, in code order).
    const codeValues = Array.from({ length: n }, (_, c) => (signed && c >= n / 2 ? c - n : c));
    const x = { dtype: from, shape: [n], data: Uint8Array.from(codeValues, (v) => v & 0xff) };
    if (signed) x.data = new Int8Array(codeValues) as unknown as Uint8Array;
    const [y] = runOne({ op: "Cast", inputs: [x], attrs: { to: DataType.FLOAT }, opset: 25 });
    expect(Array.from(y!.data as Float32Array)).toEqual(want.map((v) => Math.fround(v)));
  });
});

describe("packed raw data", () => {
  it("int4 and uint2 unpack low bits first, sign-extended, and pack back to the same bytes", () => {
    const int4 = new Tensor(DataType.INT4, [3], { kind: "raw", bytes: Uint8Array.of(0x8f, 0x07) });
    const t = fromIRTensor(int4);
    expect(Array.from(t.data as Int8Array)).toEqual([-1, -8, 7]);
    const back = toIRTensor(t).data;
    expect(back.kind === "raw" && Array.from(back.bytes)).toEqual([0x8f, 0x07]);
    const uint2 = new Tensor(DataType.UINT2, [5], {
      kind: "raw",
      bytes: Uint8Array.of(0xe4, 0x03),
    });
    expect(Array.from(fromIRTensor(uint2).data as Uint8Array)).toEqual([0, 1, 2, 3, 3]);
  });

  it("int32_data holds a packed byte per entry", () => {
    const t = new Tensor(DataType.UINT4, [4], { kind: "int32", values: Int32Array.of(0x21, 0x43) });
    expect(Array.from(fromIRTensor(t).data as Uint8Array)).toEqual([1, 2, 3, 4]);
  });

  it("an odd count that does not fit its bytes is refused", () => {
    const t = new Tensor(DataType.INT4, [5], { kind: "raw", bytes: Uint8Array.of(1, 2) });
    expect(() => fromIRTensor(t)).toThrow(/holds 2 bytes of raw data; shape \[5\] needs 3/);
  });
});

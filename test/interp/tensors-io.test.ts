// Tensors in and out of the interpreter as files and literals: TensorProto bytes, .npy files and
// JSON literals; and how two tensors are compared.

import { describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import { parseJsonTensor } from "../../src/interp/json-tensor.js";
import { decodeNpy } from "../../src/interp/npy.js";
import { decodeTensorProto, encodeTensorProto } from "../../src/interp/value-proto.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { DataType, T, bytesOf, vals } from "../helpers/interp.js";

function npy(descr: string, shape: number[], body: Uint8Array, fortran = false): Uint8Array {
  let header = `{'descr': '${descr}', 'fortran_order': ${fortran ? "True" : "False"}, 'shape': (${shape.join(", ")}${shape.length === 1 ? "," : ""}), }`;
  while ((10 + header.length + 1) % 64 !== 0) header += " ";
  header += "\n";
  const out = new Uint8Array(10 + header.length + body.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(new TextEncoder().encode(header), 10);
  out.set(body, 10 + header.length);
  return out;
}

describe("TensorProto bytes round trip for every supported type", () => {
  const cases = [
    T(DataType.FLOAT, [2], [1.5, -Infinity]),
    T(DataType.DOUBLE, [1], [Math.PI]),
    T(DataType.FLOAT16, [2], [0.5, 65504]),
    T(DataType.BFLOAT16, [1], [-3]),
    T(DataType.INT8, [2], [-128, 127]),
    T(DataType.UINT8, [1], [255]),
    T(DataType.INT16, [1], [-32768]),
    T(DataType.UINT16, [1], [65535]),
    T(DataType.INT32, [2, 1], [-1, 2147483647]),
    T(DataType.UINT32, [1], [4294967295]),
    T(DataType.INT64, [1], [-(2n ** 63n)]),
    T(DataType.UINT64, [1], [2n ** 64n - 1n]),
    T(DataType.BOOL, [3], [1, 0, 1]),
    T(DataType.STRING, [2], ["héllo", ""]),
    T(DataType.FLOAT, [0, 3], []),
    T(DataType.INT64, [], [42n]),
  ];
  it.each(cases.map((t) => [`${t.dtype}[${t.shape}]`, t] as const))("%s", (_, t) => {
    const back = decodeTensorProto(encodeTensorProto(t, "v"));
    expect(back.name).toBe("v");
    expect(back.tensor.dtype).toBe(t.dtype);
    expect(back.tensor.shape).toEqual(t.shape);
    expect(vals(back.tensor)).toEqual(vals(t));
  });
});

describe(".npy files", () => {
  it("reads float32, float16, int64, bool and uint8 in C order", () => {
    expect(vals(decodeNpy(npy("<f4", [2], bytesOf(Float32Array.of(1, 2.5)))))).toEqual([1, 2.5]);
    const h = decodeNpy(npy("<f2", [1, 2], bytesOf(Uint16Array.of(0x3c00, 0x7c00))));
    expect(h.dtype).toBe(DataType.FLOAT16);
    expect(h.shape).toEqual([1, 2]);
    expect(vals(h)).toEqual([1, Infinity]);
    expect(vals(decodeNpy(npy("<i8", [1], bytesOf(BigInt64Array.of(-5n)))))).toEqual([-5n]);
    const b = decodeNpy(npy("|b1", [2], Uint8Array.of(1, 0)));
    expect(b.dtype).toBe(DataType.BOOL);
    expect(decodeNpy(npy("|u1", [], Uint8Array.of(9))).shape).toEqual([]);
  });

  it("refuses Fortran order, big-endian data and truncated files in one line", () => {
    expect(() => decodeNpy(npy("<f4", [2], bytesOf(Float32Array.of(1, 2)), true), "a.npy")).toThrow(
      /a\.npy: .*Fortran-order/,
    );
    expect(() => decodeNpy(npy(">f4", [1], new Uint8Array(4)))).toThrow(/big-endian/);
    expect(() => decodeNpy(npy("<f8", [4], new Uint8Array(8)))).toThrow(/truncated/);
    expect(() => decodeNpy(new Uint8Array(20))).toThrow(OnnxError);
  });
});

describe("JSON literals", () => {
  it("take the declared dtype, shape from nesting, nan/inf and exact int64 strings", () => {
    const f = parseJsonTensor("[[1, 2], [3, 4]]", DataType.FLOAT);
    expect(f.shape).toEqual([2, 2]);
    expect(vals(parseJsonTensor('["nan", "-inf", 1.5]', DataType.DOUBLE)).map(String)).toEqual([
      "NaN",
      "-Infinity",
      "1.5",
    ]);
    expect(vals(parseJsonTensor('["9007199254740993"]', DataType.INT64))).toEqual([
      9007199254740993n,
    ]);
    expect(parseJsonTensor("7", DataType.INT32).shape).toEqual([]);
    expect(vals(parseJsonTensor("[true, false]", DataType.BOOL))).toEqual([1, 0]);
  });
  it("reject ragged arrays and non-integers for integer types", () => {
    expect(() => parseJsonTensor("[[1], [2, 3]]", DataType.FLOAT, "input 'x'")).toThrow(
      /input 'x': nested arrays are ragged/,
    );
    expect(() => parseJsonTensor("[1.5]", DataType.INT32)).toThrow(/not an integer/);
  });
});

describe("comparison", () => {
  it("compares with rtol/atol, NaN equal to NaN, exact for integers", () => {
    const e = T(DataType.FLOAT, [3], [1, NaN, 100]);
    expect(compareTensors(T(DataType.FLOAT, [3], [1.0000001, NaN, 100.09]), e)).toBeUndefined();
    expect(compareTensors(T(DataType.FLOAT, [3], [1, NaN, 100.2]), e)).toMatch(
      /element 2 is 100.2, expected 100 \(1 of 3 differ\)/,
    );
    expect(compareTensors(T(DataType.INT32, [1], [1]), T(DataType.INT32, [1], [2]))).toMatch(
      /element 0/,
    );
    expect(compareTensors(T(DataType.INT32, [1], [1]), T(DataType.INT64, [1], [1]))).toMatch(
      /type int32, expected int64/,
    );
    expect(compareTensors(T(DataType.FLOAT, [1, 1], [1]), T(DataType.FLOAT, [1], [1]))).toMatch(
      /shape \[1,1\], expected \[1\]/,
    );
  });
});

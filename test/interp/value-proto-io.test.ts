// Tensor files read into the memory the kernels read (tensorFileBuffer) and written without
// copying the data into a message buffer (encodeTensorProtoParts): same values, same bytes.

import { describe, expect, it } from "vitest";
import { encodeTensorBytes } from "../../src/io/encode.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType } from "../../src/ir/types.js";
import {
  decodeTensorProto,
  encodeTensorProto,
  encodeTensorProtoParts,
  rawDataLayout,
  tensorFileBuffer,
} from "../../src/interp/value-proto.js";
import { WASM_BACKED_MIN_ELEMENTS } from "../../src/interp/tensor.js";

const floats = (n: number) => Float32Array.from({ length: n }, (_, i) => i * 0.5 - 3);
const proto = (name: string, data: Float32Array | Int32Array, dtype: number) =>
  encodeTensorBytes(
    new Tensor(dtype, [data.length], { kind: "raw", bytes: new Uint8Array(data.buffer) }, name),
  );

describe("tensor files into kernel memory", () => {
  it("finds raw_data and the data type from the message's head", () => {
    const bytes = proto("x", floats(10), DataType.FLOAT);
    const at = rawDataLayout(bytes)!;
    expect(at.dataType).toBe(DataType.FLOAT);
    expect(at.length).toBe(40);
    expect(new Float32Array(bytes.slice(at.offset, at.offset + 40).buffer)).toEqual(floats(10));
    expect(rawDataLayout(new Uint8Array([0x08]))).toBeUndefined();
    expect(rawDataLayout(new Uint8Array([0x0f, 1, 2]))).toBeUndefined();
  });

  it("reads a large float32 tensor into wasm-backed memory, aligned, decoded in place", () => {
    const x = floats(WASM_BACKED_MIN_ELEMENTS);
    for (const name of ["x", "xy", "xyz"]) {
      const file = proto(name, x, DataType.FLOAT);
      const buf = tensorFileBuffer(file.length, file.subarray(0, 1 << 16));
      expect(buf.buffer).toBeInstanceOf(SharedArrayBuffer);
      buf.set(file);
      const { tensor } = decodeTensorProto(buf, "x.pb");
      const d = tensor.data as Float32Array;
      expect(d.buffer).toBe(buf.buffer);
      expect(d.byteOffset % 4).toBe(0);
      expect(Buffer.from(d.buffer, d.byteOffset, d.byteLength).equals(Buffer.from(x.buffer))).toBe(
        true,
      );
    }
  });

  it("reads anything else into a plain buffer", () => {
    const small = proto("x", floats(10), DataType.FLOAT);
    expect(tensorFileBuffer(small.length, small).buffer).toBeInstanceOf(ArrayBuffer);
    const ints = proto("i", new Int32Array(WASM_BACKED_MIN_ELEMENTS), DataType.INT32);
    expect(tensorFileBuffer(ints.length, ints.subarray(0, 1 << 16)).buffer).toBeInstanceOf(
      ArrayBuffer,
    );
    const npy = new Uint8Array([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]);
    expect(tensorFileBuffer(1 << 23, npy).buffer).toBeInstanceOf(ArrayBuffer);
  });
});

describe("tensor files written in parts", () => {
  it("give the bytes encodeTensorProto gives, the data as a view", () => {
    const cases: [number, Float32Array | Float64Array | BigInt64Array | Uint8Array][] = [
      [DataType.FLOAT, floats(7)],
      [DataType.FLOAT, floats(100_000)],
      [DataType.DOUBLE, new Float64Array(1 << 17).fill(2.5)],
      [DataType.INT64, new BigInt64Array(1 << 15).fill(-3n)],
      [DataType.UINT8, new Uint8Array(1 << 16).fill(7)],
    ];
    for (const [dtype, data] of cases) {
      const t = { dtype, shape: [2, data.length / 2], data };
      const parts = encodeTensorProtoParts(t, "out");
      expect(Buffer.concat(parts).equals(encodeTensorProto(t, "out"))).toBe(true);
      if (data.byteLength >= 1 << 16) expect(parts[1]!.buffer).toBe(data.buffer);
    }
    const s = { dtype: DataType.STRING, shape: [2], data: ["a", "b"] };
    expect(encodeTensorProtoParts(s, "s")).toEqual([encodeTensorProto(s, "s")]);
  });
});

// IR tensors (initializers, attributes) as runtime tensors: every storage form, external data,
// counts that contradict the shape.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Tensor } from "../../src/ir/tensor.js";
import { fromIRTensor } from "../../src/interp/ir-tensors.js";
import { DataType, bytesOf, vals } from "../helpers/interp.js";

describe("IR tensor → runtime tensor", () => {
  it("views aligned raw data without copying and copies unaligned data", () => {
    const buf = new Uint8Array(4 + 12);
    new Float32Array(buf.buffer, 4, 3).set([1, 2, 3]);
    const aligned = fromIRTensor(
      new Tensor(DataType.FLOAT, [3], { kind: "raw", bytes: buf.subarray(4) }),
    );
    expect((aligned.data as Float32Array).buffer).toBe(buf.buffer);
    expect(vals(aligned)).toEqual([1, 2, 3]);
    const odd = new Uint8Array(1 + 12);
    odd.set(bytesOf(Float32Array.of(4, 5, 6)), 1);
    const copied = fromIRTensor(
      new Tensor(DataType.FLOAT, [3], { kind: "raw", bytes: odd.subarray(1) }),
    );
    expect((copied.data as Float32Array).buffer).not.toBe(odd.buffer);
    expect(vals(copied)).toEqual([4, 5, 6]);
  });

  it("reads the typed fields: int32_data for small types and 16-bit floats, int64, uint64, double", () => {
    const h = fromIRTensor(
      new Tensor(DataType.FLOAT16, [2], { kind: "int32", values: Int32Array.of(0x3c00, 0xc000) }),
    );
    expect(vals(h)).toEqual([1, -2]);
    const b = fromIRTensor(
      new Tensor(DataType.BOOL, [3], { kind: "int32", values: Int32Array.of(1, 0, 1) }),
    );
    expect(vals(b)).toEqual([1, 0, 1]);
    const i8 = fromIRTensor(
      new Tensor(DataType.INT8, [2], { kind: "int32", values: Int32Array.of(-5, 7) }),
    );
    expect(vals(i8)).toEqual([-5, 7]);
    const i64 = fromIRTensor(
      new Tensor(DataType.INT64, [1], { kind: "int64", values: BigInt64Array.of(-(2n ** 62n)) }),
    );
    expect(vals(i64)).toEqual([-(2n ** 62n)]);
    const u32 = fromIRTensor(
      new Tensor(DataType.UINT32, [1], { kind: "uint64", values: BigUint64Array.of(4294967295n) }),
    );
    expect(vals(u32)).toEqual([4294967295]);
    const d = fromIRTensor(
      new Tensor(DataType.DOUBLE, [1], { kind: "double", values: Float64Array.of(0.1) }),
    );
    expect(vals(d)).toEqual([0.1]);
  });

  it("reads external data relative to the model folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "onnx-expand-ext-"));
    writeFileSync(
      join(dir, "w.bin"),
      Buffer.concat([Buffer.alloc(8), Buffer.from(bytesOf(Int32Array.of(7, -8)))]),
    );
    const t = new Tensor(DataType.INT32, [2], {
      kind: "external",
      entries: [
        ["location", "w.bin"],
        ["offset", "8"],
        ["length", "8"],
      ],
      baseDir: dir,
    });
    expect(vals(fromIRTensor(t))).toEqual([7, -8]);
  });

  it("rejects a value count that contradicts the shape, naming the tensor", () => {
    const t = new Tensor(
      DataType.FLOAT,
      [2, 2],
      { kind: "float", values: Float32Array.of(1, 2, 3) },
      "w",
    );
    expect(() => fromIRTensor(t)).toThrow(
      /tensor 'w': tensor holds 3 values in float_data; shape \[2,2\] needs 4/,
    );
  });
});

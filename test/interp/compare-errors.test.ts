// How far outputs are from the expected ones: the largest absolute and relative error and where,
// the norm-wise error, judging by it (`test --norm-rtol`), and what `test` prints of it.

import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  compareTensors,
  DEFAULT_TOLERANCE,
  floatErrors,
  formatFloatErrors,
} from "../../src/interp/backend-test.js";
import { decodeTensorProto, encodeTensorProto } from "../../src/interp/value-proto.js";
import { runCli } from "../helpers/cli.js";
import { f32 } from "../helpers/interp.js";

const ADD = fileURLToPath(new URL("../data/onnx-node-tests/test_add", import.meta.url));

describe("floatErrors", () => {
  it("gives the largest absolute and relative errors with their indices, and the norm-wise error", () => {
    const want = f32([2, 3], [10, -20, 30, 0.001, 5, 0]);
    const got = f32([2, 3], [10, -20.5, 30, 0.0011, 5, 0]);
    const e = floatErrors(got, want)!;
    expect(e.maxAbs).toBeCloseTo(0.5, 6);
    expect(e.maxAbsAt).toEqual([0, 1]);
    expect(e.maxRel).toBeCloseTo(0.1, 3);
    expect(e.maxRelAt).toEqual([1, 0]);
    const norm = Math.hypot(0.5, 0.0001) / Math.hypot(10, 20, 30, 0.001, 5);
    expect(e.norm).toBeCloseTo(norm, 6);
    expect(e.nonFinite).toBe(0);
    expect(formatFloatErrors(e)).toMatch(
      /^max abs error 0\.5\d* at \[0,1\], max rel error 0\.1\d* at \[1,0\], norm-wise 0\.0132$/,
    );
  });

  it("is infinite where the expected value is 0 and the computed one is not; NaN matches NaN", () => {
    const e = floatErrors(f32([3], [1e-9, NaN, Infinity]), f32([3], [0, NaN, Infinity]))!;
    expect(e.maxRel).toBe(Infinity);
    expect(e.norm).toBe(Infinity);
    expect(e.nonFinite).toBe(0);
    expect(floatErrors(f32([2], [1, NaN]), f32([2], [1, 2]))!.nonFinite).toBe(1);
  });

  it("is undefined for tensors that are not floats or do not have the same shape", () => {
    expect(floatErrors(f32([2], [1, 2]), f32([1, 2], [1, 2]))).toBeUndefined();
  });
});

describe("compareTensors with normRtol", () => {
  // A large output with one element near 0 a little off: element-wise it fails, as a whole it
  // is within 1e-6 of the expected one.
  const n = 1000;
  const want = f32(
    [n],
    Array.from({ length: n }, (_, i) => (i === 7 ? 1e-4 : 1 + i / n)),
  );
  const got = f32(
    [n],
    Array.from({ length: n }, (_, i) => (i === 7 ? 1.05e-4 : 1 + i / n)),
  );

  it("passes an output whose norm-wise error is small where element-wise fails", () => {
    expect(compareTensors(got, want, DEFAULT_TOLERANCE)).toMatch(/^element 7 is /);
    expect(compareTensors(got, want, { ...DEFAULT_TOLERANCE, normRtol: 1e-6 })).toBeUndefined();
  });

  it("fails one whose norm-wise error is larger, saying how large and where", () => {
    const far = f32(
      [n],
      Array.from({ length: n }, (_, i) => (i === 3 ? 5 : 1 + i / n)),
    );
    expect(compareTensors(far, want, { ...DEFAULT_TOLERANCE, normRtol: 1e-3 })).toMatch(
      /^norm-wise error 0\.\d+ is over 0\.001 \(max abs error 4 at \[3\], .*\)$/,
    );
  });

  it("still wants NaN where NaN is expected", () => {
    expect(
      compareTensors(f32([2], [1, NaN]), f32([2], [1, 2]), { ...DEFAULT_TOLERANCE, normRtol: 1 }),
    ).toMatch(/1 unmatched NaN or infinities/);
  });
});

describe("onnx-expand test: errors per output", () => {
  // test_add with its expected output's first element moved by a relative 2e-3.
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), "onnx-expand-errors-"));
    cpSync(ADD, join(d, "add"), { recursive: true });
    const file = join(d, "add", "test_data_set_0", "output_0.pb");
    const { name, tensor } = decodeTensorProto(readFileSync(file));
    const data = Float32Array.from(tensor.data as Float32Array);
    data[0] = data[0]! * 1.002;
    writeFileSync(file, encodeTensorProto({ ...tensor, data }, name));
    return join(d, "add");
  };

  it("prints the errors of each output under a failure", () => {
    const r = runCli(["test", dir()]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^FAIL .*add: test_data_set_0: output 'sum': element 0 is /);
    expect(lines[1]).toMatch(
      /^ {2}test_data_set_0 'sum': max abs error \S+ at \[0,0,0\], max rel error 0\.002\d* at \[0,0,0\], norm-wise \S+$/,
    );
    expect(lines[2]).toBe("0 passed, 1 failed");
  });

  it("judges by the norm-wise error with --norm-rtol, and prints errors of passes with --errors", () => {
    const d = dir();
    const r = runCli(["test", d, "--norm-rtol", "1e-3", "--errors"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^PASS .*add$/);
    expect(lines[1]).toMatch(/^ {2}test_data_set_0 'sum': max abs error .* norm-wise \S+$/);
    expect(lines[2]).toBe("1 passed, 0 failed");
    expect(runCli(["test", d, "--norm-rtol", "1e-6"]).code).toBe(1);
    expect(runCli(["test", d, "--norm-rtol", "x"]).code).toBe(2);
  });
});

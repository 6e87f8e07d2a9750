// `onnx-expand run` and `onnx-expand test` as a user runs them.

import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { saveModel } from "../../src/io/files.js";
import { decodeTensorProto, encodeTensorProto } from "../../src/interp/value-proto.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { runCli } from "../helpers/cli.js";
import { f32, graph, model, node, valueInfo } from "../helpers/interp.js";

const TESTS = fileURLToPath(new URL("../data/onnx-node-tests", import.meta.url));
const ADD = join(TESTS, "test_add");
const tmp = () => mkdtempSync(join(tmpdir(), "onnx-expand-run-"));

/** A version-1 .npy file of float32 values. */
function npy(shape: number[], values: number[]): Uint8Array {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(", ")}${shape.length === 1 ? "," : ""}), }`;
  while ((10 + header.length + 1) % 64 !== 0) header += " ";
  header += "\n";
  const out = new Uint8Array(10 + header.length + values.length * 4);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(new TextEncoder().encode(header), 10);
  new Float32Array(out.buffer, 10 + header.length).set(values);
  return out;
}

function oneLineError(r: { code: number; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(2);
  const lines = r.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

describe("onnx-expand run", () => {
  it("takes .pb inputs in graph-input order, prints outputs and writes output_<i>.pb", () => {
    const out = tmp();
    const set = join(ADD, "test_data_set_0");
    const r = runCli([
      "run",
      join(ADD, "model.onnx"),
      join(set, "input_0.pb"),
      join(set, "input_1.pb"),
      "--output-dir",
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sum: float \[3,4,5\] = -?\d/);
    expect(readdirSync(out)).toEqual(["output_0.pb"]);
    const written = decodeTensorProto(readFileSync(join(out, "output_0.pb")));
    const expected = decodeTensorProto(readFileSync(join(set, "output_0.pb")));
    expect(written.name).toBe("sum");
    expect(compareTensors(written.tensor, expected.tensor)).toBeUndefined();
  });

  it("takes name=FILE.npy and name=json:[...] (typed by the declared input)", () => {
    const dir = tmp();
    const m = model(
      graph({
        nodes: [node("Add", ["a", "b"], ["c"]), node("Cast", ["c"], ["d"], { to: 7 })],
        inputs: [valueInfo("a", "float", [2, 2]), valueInfo("b", "float", [2])],
        outputs: [valueInfo("c", "float"), valueInfo("d", "int64")],
      }),
    );
    saveModel(m, join(dir, "m.onnx"));
    writeFileSync(join(dir, "a.npy"), npy([2, 2], [1, 2, 3, 4.5]));
    const r = runCli(["run", join(dir, "m.onnx"), `b=json:[10, 20]`, `a=${join(dir, "a.npy")}`]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("c: float [2,2] = 11, 22, 13, 24.5\nd: int64 [2,2] = 11, 22, 13, 24\n");
  });

  it("prints sequence outputs item by item and refuses to write them as TensorProto files", () => {
    const dir = tmp();
    const m = model(
      graph({
        nodes: [node("SequenceConstruct", ["a", "b"], ["s"])],
        inputs: [valueInfo("a", "int32", [2]), valueInfo("b", "int32", [1])],
        outputs: [{ name: "s", type: { kind: "sequence", elem: { kind: "tensor", elemType: 6 } } }],
      }),
    );
    saveModel(m, join(dir, "seq.onnx"));
    const r = runCli(["run", join(dir, "seq.onnx"), "a=json:[1,2]", "b=json:[3]"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "s: sequence of 2 int32 tensors\n  [0]: int32 [2] = 1, 2\n  [1]: int32 [1] = 3\n",
    );
    oneLineError(
      runCli([
        "run",
        join(dir, "seq.onnx"),
        "a=json:[1,2]",
        "b=json:[3]",
        "--output-dir",
        join(dir, "out"),
      ]),
      /output 's' is not a tensor/,
    );
  });

  it("reports bad inputs and limits in one line with exit code 2", () => {
    const set = join(ADD, "test_data_set_0");
    oneLineError(
      runCli(["run", join(ADD, "model.onnx"), join(set, "input_0.pb")]),
      /graph input 'y' \(read by node #0 \(Add\)\): no value was given/,
    );
    oneLineError(
      runCli(["run", join(ADD, "model.onnx"), join(set, "input_0.pb"), "y=json:[1,2]"]),
      /graph input 'y' \(read by node #0 \(Add\)\): expected rank 3/,
    );
    oneLineError(
      runCli([
        "run",
        join(ADD, "model.onnx"),
        join(set, "input_0.pb"),
        join(set, "input_1.pb"),
        "--max-elements",
        "10",
      ]),
      /node #0 \(Add\): shape \[3,4,5\] has 60 elements, more than the limit of 10/,
    );
    oneLineError(
      runCli(["run", join(ADD, "model.onnx"), "nope=json:[1]"]),
      /no input named 'nope'/,
    );
  });
});

describe("onnx-expand test", () => {
  it("passes every shared backend test and ends with the summary line", () => {
    const r = runCli(["test", TESTS]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(185);
    expect(lines.slice(0, -1).every((l) => l.startsWith("PASS "))).toBe(true);
    expect(lines.at(-1)).toBe("184 passed, 0 failed");
  });

  it("fails on a wrong expected output and on a missing kernel, with exit code 1", () => {
    const root = tmp();
    cpSync(ADD, join(root, "good"), { recursive: true });
    cpSync(ADD, join(root, "wrong"), { recursive: true });
    writeFileSync(
      join(root, "wrong", "test_data_set_0", "output_0.pb"),
      encodeTensorProto(f32([3, 4, 5], new Array(60).fill(0)), "sum"),
    );
    const conv = model(
      graph({
        nodes: [node("NoSuchOp", ["x", "w"], ["y"])],
        inputs: [valueInfo("x", "float", [1, 1, 3, 3]), valueInfo("w", "float", [1, 1, 1, 1])],
        outputs: [valueInfo("y", "float")],
      }),
    );
    cpSync(ADD, join(root, "conv"), { recursive: true });
    saveModel(conv, join(root, "conv", "model.onnx"));
    const r = runCli(["test", root]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^FAIL .*conv: no kernel for NoSuchOp$/);
    expect(lines[1]).toMatch(/^PASS .*good$/);
    expect(lines[2]).toMatch(
      /^FAIL .*wrong: test_data_set_0: output 'sum': element 0 is .*, expected 0 \(\d+ of 60 differ\)$/,
    );
    expect(lines[3]).toMatch(
      /^  test_data_set_0 'sum': max abs error \S+ at \[\d+,\d+,\d+\], max rel error Infinity at \[\d+,\d+,\d+\], norm-wise Infinity$/,
    );
    expect(lines[4]).toBe("1 passed, 2 failed");
  });
});

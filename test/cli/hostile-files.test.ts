// Files read only where they belong: external data of an input .pb resolves against that file's
// own folder; `test` refuses FIFOs, devices and folders where a file is expected, and finds test
// folders at any depth.

import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { saveModel } from "../../src/io/files.js";
import { encodeTensorBytes } from "../../src/io/encode.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType } from "../../src/ir/types.js";
import { encodeTensorProto } from "../../src/interp/value-proto.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";

const tmp = () => mkdtempSync(join(tmpdir(), "onnx-expand-hostile-"));

const IDENTITY = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (uint8[4] x) => (uint8[4] y) {
  y = Identity (x)
}
`);

/** A TensorProto file whose uint8[4] data lives in `location` (external data). */
function externalPb(location: string): Uint8Array {
  const t = new Tensor(
    DataType.UINT8,
    [4],
    { kind: "external", entries: [["location", location]] },
    "x",
  );
  return encodeTensorBytes(t);
}

describe("external data of an input .pb", () => {
  it("resolves against the .pb's folder, never the current one", () => {
    const d = tmp();
    const inputs = join(d, "inputs");
    const out = join(d, "out");
    mkdirSync(inputs);
    writeFileSync(join(d, "model.onnx"), new Uint8Array(0));
    saveModel(IDENTITY, join(d, "model.onnx"));
    writeFileSync(join(d, "secret.txt"), "SECRET");
    writeFileSync(join(inputs, "x.pb"), externalPb("secret.txt"));
    // Run from the folder that holds secret.txt: it must not be read.
    const r = runCli(["run", "model.onnx", "inputs/x.pb", "--output-dir", out], { cwd: d });
    expectOneLineError(
      r,
      /^onnx-expand: error: inputs\/x\.pb: external data file 'secret\.txt' of tensor 'x' does not exist$/,
    );
    expect(r.stdout).toBe("");
    expect(() => readdirSync(out)).toThrow();
    // Beside the .pb, it is the data.
    writeFileSync(join(inputs, "secret.txt"), "ABCD");
    const ok = runCli(["run", "model.onnx", "inputs/x.pb"], { cwd: d });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/= 65, 66, 67, 68/);
    // Escaping the .pb's folder is refused as for a model.
    writeFileSync(join(inputs, "up.pb"), externalPb("../secret.txt"));
    expectOneLineError(
      runCli(["run", "model.onnx", "inputs/up.pb"], { cwd: d }),
      /inputs\/up\.pb: external data location '\.\.\/secret\.txt' of tensor 'x' escapes/,
    );
  }, 240_000);

  it("in a test folder, resolves against test_data_set_*; a FIFO as the data is refused", () => {
    const d = tmp();
    const t = join(d, "case");
    const set = join(t, "test_data_set_0");
    mkdirSync(set, { recursive: true });
    saveModel(IDENTITY, join(t, "model.onnx"));
    writeFileSync(join(d, "secret.txt"), "SECRET");
    writeFileSync(join(t, "secret.txt"), "SECRET");
    writeFileSync(join(set, "input_0.pb"), externalPb("data.bin"));
    writeFileSync(join(set, "data.bin"), "ABCD");
    writeFileSync(
      join(set, "output_0.pb"),
      encodeTensorProto(
        { dtype: DataType.UINT8, shape: [4], data: Uint8Array.of(65, 66, 67, 68) },
        "y",
      ),
    );
    expect(runCli(["test", t], { cwd: t }).stdout).toMatch(/^PASS /);
    writeFileSync(join(set, "input_0.pb"), externalPb("secret.txt"));
    const r = runCli(["test", t], { cwd: t });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /input_0\.pb: external data file 'secret\.txt' of tensor 'x' does not exist/,
    );
    execFileSync("mkfifo", [join(set, "fifo.bin")]);
    writeFileSync(join(set, "input_0.pb"), externalPb("fifo.bin"));
    const f = runCli(["test", t], { cwd: t, timeout: 60_000 });
    expect(f.code).toBe(1);
    expect(f.stdout).toMatch(
      /external data location 'fifo\.bin' of tensor 'x' is not a regular file/,
    );
  }, 240_000);
});

describe("test refuses what is not a regular file", () => {
  /** A passing test folder, then `spoil` applied to it. */
  function spoiled(spoil: (dir: string, set: string) => void): string {
    const d = tmp();
    const t = join(d, "case");
    const set = join(t, "test_data_set_0");
    mkdirSync(set, { recursive: true });
    saveModel(IDENTITY, join(t, "model.onnx"));
    const x = encodeTensorProto(
      { dtype: DataType.UINT8, shape: [4], data: Uint8Array.of(1, 2, 3, 4) },
      "x",
    );
    writeFileSync(join(set, "input_0.pb"), x);
    writeFileSync(join(set, "output_0.pb"), x);
    spoil(t, set);
    return t;
  }
  const rm = (p: string) => execFileSync("rm", ["-rf", p]);

  it.each([
    [
      "a FIFO as model.onnx",
      (t: string) => (rm(join(t, "model.onnx")), execFileSync("mkfifo", [join(t, "model.onnx")])),
      /model\.onnx: is a FIFO \(named pipe\), not a regular model file/,
    ],
    [
      "a FIFO as input_0.pb",
      (_: string, s: string) => (
        rm(join(s, "input_0.pb")),
        execFileSync("mkfifo", [join(s, "input_0.pb")])
      ),
      /input_0\.pb: is a FIFO/,
    ],
    [
      "input_0.pb -> /dev/zero",
      (_: string, s: string) => (
        rm(join(s, "input_0.pb")),
        symlinkSync("/dev/zero", join(s, "input_0.pb"))
      ),
      /input_0\.pb: is a device or socket, not a tensor file/,
    ],
    [
      "output_0.pb -> /dev/zero",
      (_: string, s: string) => (
        rm(join(s, "output_0.pb")),
        symlinkSync("/dev/zero", join(s, "output_0.pb"))
      ),
      /output_0\.pb: is a device or socket, not a tensor file/,
    ],
    [
      "a folder as input_0.pb",
      (_: string, s: string) => (rm(join(s, "input_0.pb")), mkdirSync(join(s, "input_0.pb"))),
      /input_0\.pb: is a directory, not a tensor file/,
    ],
  ])(
    "%s: FAIL naming the path, no hang",
    (_name, spoil, pattern) => {
      const t = spoiled(spoil as (dir: string, set: string) => void);
      const r = runCli(["test", t]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^FAIL /);
      expect(r.stdout).toMatch(pattern);
      expect(r.stdout).not.toMatch(/EISDIR/);
    },
    60_000,
  );

  it("a test folder given as a file names the path", () => {
    const d = tmp();
    const f = join(d, "model.onnx");
    saveModel(IDENTITY, f);
    expectOneLineError(runCli(["test", f]), /model\.onnx: is a file, not a test folder/);
  }, 240_000);

  it("finds test folders nested deeper than 3 levels", () => {
    const t = spoiled(() => {});
    const deep = join(tmp(), "a", "b", "c", "d", "e", "f");
    mkdirSync(deep, { recursive: true });
    execFileSync("cp", ["-r", t, deep]);
    const r = runCli(["test", join(deep, "..", "..", "..", "..", "..", "..")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/1 passed, 0 failed/);
  }, 240_000);
});

describe("run --output-dir and long names", () => {
  const TWO = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] a, float[2] b) {
  a = Identity (x)
  b = Neg (x)
}
`);

  it("writes all outputs or none: output_1.pb failing leaves output_0.pb as it was", () => {
    const d = tmp();
    const out = join(d, "out");
    mkdirSync(join(out, "output_1.pb"), { recursive: true });
    writeFileSync(join(out, "output_0.pb"), "OLD");
    saveModel(TWO, join(d, "m.onnx"));
    const r = runCli(["run", join(d, "m.onnx"), "x=json:[1,2]", "--output-dir", out]);
    expectOneLineError(r, /output_1\.pb: is a directory/);
    expect(readFileSync(join(out, "output_0.pb"), "utf8")).toBe("OLD");
    expect(readdirSync(out).sort()).toEqual(["output_0.pb", "output_1.pb"]);
    // Once writable, both are written.
    execFileSync("rm", ["-r", join(out, "output_1.pb")]);
    const ok = runCli(["run", join(d, "m.onnx"), "x=json:[1,2]", "--output-dir", out]);
    expect(ok.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["output_0.pb", "output_1.pb"]);
  }, 240_000);

  it("file names of 230-255 characters are written (temporary names stay short)", () => {
    const d = tmp();
    const src = join(d, "m.onnxtxt");
    writeFileSync(
      src,
      '<ir_version: 8, opset_import: ["" : 13]>\ng (float[2] x) => (float[2] y) {\n  y = Neg (x)\n}\n',
    );
    for (const len of [230, 255]) {
      const name = "n".repeat(len - ".onnx".length) + ".onnx";
      const r = runCli(["parse", src, "-o", join(d, name)]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(readdirSync(d)).toContain(name);
    }
    expect(readdirSync(d).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  }, 240_000);
});

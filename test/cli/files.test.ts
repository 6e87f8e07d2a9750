// The file commands as a user runs them: output, exit codes, one-line errors, nothing lost.

import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { encodeModel, saveModel } from "../../src/io/files.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType } from "../../src/ir/types.js";
import { runCli } from "../helpers/cli.js";

const EXAMPLE = "examples/reduce-logsum-l1-18.onnx";
const tmp = () => mkdtempSync(join(tmpdir(), "onnx-expand-cli-"));

function expectOneLineError(
  r: { code: number; stderr: string; stdout: string },
  pattern: RegExp,
): void {
  expect(r.code).toBe(2);
  const lines = r.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^onnx-expand: error: /);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe("onnx-expand info", () => {
  it("summarises a model", () => {
    const r = runCli(["info", EXAMPLE]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ir_version:\s+8/);
    expect(r.stdout).toMatch(/opsets:\s+ai\.onnx 18/);
    expect(r.stdout).toMatch(/1\s+ReduceLogSum/);
    expect(r.stdout).toMatch(/inputs:\s+x: float\[3,4,5\]/);
  });

  it("gives JSON on request", () => {
    const r = runCli(["info", EXAMPLE, "--json"]);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout);
    expect(info.ops).toEqual({ ReduceL1: 1, ReduceLogSum: 1 });
    expect(info.opsetImports).toEqual([{ domain: "", version: 18 }]);
  });
});

describe("bad input gets one line and exit code 2", () => {
  const dir = tmp();
  const real = readFileSync(EXAMPLE);
  const files: Record<string, Uint8Array> = {
    "empty.onnx": new Uint8Array(0),
    "random.onnx": Uint8Array.from({ length: 512 }, (_, i) => (i * 7919 + 13) & 0xff),
    "truncated.onnx": real.subarray(0, real.length - 20),
    "wiretype.onnx": Uint8Array.from([0x0f, 0x01]),
    "pastend.onnx": Uint8Array.from([0x3a, 0xff, 0xff, 0xff, 0x0f]),
    "text.txt": new TextEncoder().encode(
      '<ir_version: 8, opset_import: ["" : 18]>\ng (float[2] x) => (float[2] y) { y = Relu (x) }\n',
    ),
  };
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
  mkdirSync(join(dir, "folder.onnx"));

  const cases: [string, string, RegExp][] = [
    ["an empty file", "empty.onnx", /empty\.onnx: empty file/],
    ["random bytes", "random.onnx", /random\.onnx: not a valid/],
    [
      "a truncated model",
      "truncated.onnx",
      /truncated\.onnx: not a valid ModelProto: truncated or corrupt/,
    ],
    ["a wrong wire type", "wiretype.onnx", /invalid wire type/],
    ["a length prefix past the end", "pastend.onnx", /truncated or corrupt/],
    [
      "ONNX text under another name: the hint to name it .onnxtxt",
      "text.txt",
      /text\.txt: not a valid ModelProto: .* \(the file holds ONNX text: name it \.onnxtxt\)$/,
    ],
    ["a directory", "folder.onnx", /is a directory/],
    ["a missing file", "missing.onnx", /missing\.onnx: no such file/],
  ];
  for (const [what, file, pattern] of cases)
    it(`${what}`, () => {
      expectOneLineError(runCli(["info", join(dir, file)]), pattern);
    });

  it("a missing external-data file", () => {
    const d = tmp();
    const m = model(
      graph({
        nodes: [node("Add", ["x", "w"], ["y"])],
        inputs: [valueInfo("x", "float", [512])],
        outputs: [valueInfo("y", "float", [512])],
        initializers: [Tensor.from(DataType.FLOAT, [512], new Float32Array(512), "w")],
      }),
    );
    saveModel(m, join(d, "m.onnx"), { externalData: { location: "weights.bin" } });
    const sub = join(d, "moved");
    mkdirSync(sub);
    writeFileSync(join(sub, "m.onnx"), readFileSync(join(d, "m.onnx")));
    expectOneLineError(
      runCli(["info", join(sub, "m.onnx")]),
      /external data file 'weights\.bin' of tensor 'w' does not exist/,
    );
  });

  it("an unknown command or option", () => {
    const r = runCli(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'frobnicate'/);
    expect(runCli(["info", EXAMPLE, "--bogus"]).code).toBe(2);
  });

  it("help and version exit 0", () => {
    const r = runCli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: onnx-expand/);
    expect(runCli(["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe("onnx-expand parse", () => {
  it("refuses to overwrite its input and writes nothing when the text is bad", () => {
    const dir = tmp();
    const text = join(dir, "bad.onnxtxt");
    writeFileSync(
      text,
      '<ir_version: 8, opset_import: ["" : 18]>\nagraph (float[2] x) => (float[2] y) {\n  y = Abs(x\n}\n',
    );
    const r = runCli(["parse", text, "-o", join(dir, "out.onnx")]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(dir, "out.onnx"))).toBe(false);
    expect(readdirSync(dir)).toEqual(["bad.onnxtxt"]);

    const same = runCli(["parse", text, "-o", text]);
    expect(same.code).toBe(2);
    expect(readFileSync(text, "utf8")).toContain("Abs(x\n");
  });
});

describe("the built CLI", () => {
  it("runs from any folder via the bin path in package.json", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8"));
    const bin = join(process.cwd(), pkg.bin["onnx-expand"]);
    if (!existsSync(bin))
      return expect.fail(`${bin} is missing: run npm run build (npm ci does it)`);
    const r = spawnSync(process.execPath, [bin, "info", join(process.cwd(), EXAMPLE)], {
      cwd: tmpdir(),
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/ReduceLogSum/);
  });
});

// A model file written by our encoder, read by a decoder we did not write (Debian's python3-onnx,
// where installed: it is not on a fresh machine).
// Debian's libonnx-testdata installs a stub `onnx` folder without the library: probe for the real
// package (onnx.load and the checker), not for the name.
const hasPythonOnnx =
  spawnSync("/usr/bin/python3", ["-c", "import onnx, onnx.checker; onnx.load"]).status === 0;
describe("independent decoders", () => {
  it.skipIf(!hasPythonOnnx)(
    "python onnx reads what we write and writes back the same bytes",
    () => {
      const dir = tmp();
      const m = model(
        graph({
          name: "g",
          nodes: [node("ReduceSum", ["x", "axes"], ["y"], { keepdims: 0 }, { name: "r" })],
          inputs: [valueInfo("x", "float", ["N", 3])],
          outputs: [valueInfo("y", "float", ["N"])],
          initializers: [Tensor.from(DataType.INT64, [1], [-1n], "axes")],
        }),
        13,
      );
      const bytes = encodeModel(m);
      writeFileSync(join(dir, "m.onnx"), bytes);
      const r = spawnSync(
        "/usr/bin/python3",
        [
          "-c",
          `import onnx,sys\nm=onnx.load(sys.argv[1])\nonnx.checker.check_model(m)\nopen(sys.argv[2],"wb").write(m.SerializeToString())`,
          join(dir, "m.onnx"),
          join(dir, "py.onnx"),
        ],
        { encoding: "utf8" },
      );
      expect(r.stderr).toBe("");
      expect(readFileSync(join(dir, "py.onnx"))).toEqual(Buffer.from(bytes));
    },
  );
});

describe("names with control characters", () => {
  it("print escaped in info and run output, one line per item", () => {
    const dir = tmp();
    const path = join(dir, "nl.onnx");
    const m = model(
      graph({
        name: "g\nx",
        nodes: [node("Abs", ["in\nput"], ["out\nput"])],
        inputs: [valueInfo("in\nput", "float", [2])],
        outputs: [valueInfo("out\nput", "float", [2])],
      }),
      13,
    );
    saveModel(m, path);
    const info = runCli(["info", path]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/^outputs: +out\\nput: float\[2\]$/m);
    const r = runCli(["run", path, "in\nput=json:[1,-2]"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toEqual(["out\\nput: float [2] = 1, 2"]);
  });
});

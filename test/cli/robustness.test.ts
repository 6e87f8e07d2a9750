// Adversarial input as a user meets it: every case must end in one clear line and the right exit
// code (2 bad input, 1 a failed test), never a crash, a hang, a lost file or a silent success.

import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import { decodeModel, encodeModel, loadModel, saveModel } from "../../src/io/files.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType } from "../../src/ir/types.js";
import { checkModel } from "../../src/check/index.js";
import { runBackendTest } from "../../src/interp/backend-test.js";
import { fromIRTensor } from "../../src/interp/ir-tensors.js";
import { parseJsonTensor } from "../../src/interp/json-tensor.js";
import { runValues } from "../../src/interp/executor.js";
import { parseModelText } from "../../src/text/parse.js";
import { printModel } from "../../src/text/print.js";
import { assertRunnable } from "../../src/app/index.js";
import { runCli } from "../helpers/cli.js";

const tmp = () => mkdtempSync(join(tmpdir(), "onnx-expand-robust-"));
const ADD_TEST = fileURLToPath(new URL("../data/onnx-node-tests/test_add", import.meta.url));
const REDUCE = "examples/reduce-13.onnx";

function expectOneLineError(r: { code: number; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(2);
  const lines = r.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^onnx-expand: error: /);
  expect(lines[0]).toMatch(pattern);
}

const HEADER = '<ir_version: 8, opset_import: ["" : 13]>\n';

/** A model whose output comes out of `depth` If nodes, each inside the previous one's then-branch. */
function nestedIfText(depth: number): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let d = depth; d >= 1; d--) {
    open.push(`r${d} = If (c) <then_branch = t${d} () => (float[2] r${d - 1}) {\n`);
    close.unshift(
      `}, else_branch = e${d} () => (float[2] r${d - 1}) { r${d - 1} = Identity (x) }>\n`,
    );
  }
  return (
    HEADER +
    "g (bool c, float[2] x) => (float[2] y) {\n" +
    open.join("") +
    "r0 = Identity (x)\n" +
    close.join("") +
    `y = Identity (r${depth})\n}\n`
  );
}

const SELF_CALL = `<ir_version: 8, opset_import: ["" : 13, "local" : 1]>
g (float[2] x) => (float[2] y) {
  y = local.F (x)
}
<domain: "local", opset_import: ["" : 13, "local" : 1]>
F (a) => (b) {
  b = local.G (a)
}
<domain: "local", opset_import: ["" : 13, "local" : 1]>
G (a) => (b) {
  b = local.F (a)
}
`;

describe("run refuses models it would otherwise run wrongly or forever", () => {
  const dir = tmp();
  const files: Record<string, string> = {
    "lcse18.onnxtxt": `<ir_version: 8, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y) {
  ax = Constant <value = int64 {0}> ()
  y = LogCumSumExp (x, ax)
}
`,
    "attrtype.onnxtxt": `<ir_version: 8, opset_import: ["" : 11]>
g (float[2,3] x) => (float y) {
  y = ReduceSum <axes = "0", keepdims = 1.5> (x)
}
`,
    "selfcall.onnxtxt": SELF_CALL,
    "loop.onnxtxt": `${HEADER}g (int64 n, float[1] x) => (float[1] y) {
  c = Constant <value = bool {1}> ()
  y = Loop (n, c, x) <body = body (int64 i, bool cin, float[1] v) => (bool cout, float[1] w) {
    cout = Identity (cin)
    w = Identity (v)
  }>
}
`,
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);

  it("an op missing from the imported opset (LogCumSumExp at opset 18)", () => {
    const r = runCli(["run", join(dir, "lcse18.onnxtxt"), "x=json:[1,2]"]);
    expectOneLineError(
      r,
      /LogCumSumExp\).*not defined at ai\.onnx opset 18; its first version is 29/,
    );
    expect(r.stdout).toBe("");
  });

  it("an attribute of the wrong type (which the kernel would have ignored)", () => {
    const r = runCli(["run", join(dir, "attrtype.onnxtxt"), "x=json:[[1,2,3],[4,5,6]]"]);
    expectOneLineError(r, /attribute 'axes' is STRING, but ReduceSum-11 expects INTS \(and 1 more/);
  });

  it("functions that call each other", () => {
    const r = runCli(["run", join(dir, "selfcall.onnxtxt"), "x=json:[1,2]"]);
    expectOneLineError(r, /'local\.F' -> 'local\.G' -> 'local\.F'.*recursion is not allowed/);
  });

  it("a trip count that JSON cannot hold exactly (it used to wrap to a negative count and exit 0)", () => {
    const r = runCli([
      "run",
      join(dir, "loop.onnxtxt"),
      "n=json:9223372036854775807",
      "x=json:[1]",
    ]);
    expectOneLineError(r, /input 'n': element 0 .* too large to be exact .*write it as a string/);
  });

  it("--output-dir whose output_0.pb is the input file being read is refused", () => {
    const out = tmp();
    const input = join(out, "output_0.pb");
    cpSync(join(ADD_TEST, "../test_abs/test_data_set_0/input_0.pb"), input);
    const before = readFileSync(input);
    const r = runCli(["run", join(ADD_TEST, "../test_abs/model.onnx"), input, "--output-dir", out]);
    expectOneLineError(r, /output_0\.pb would overwrite the input file/);
    expect(readFileSync(input)).toEqual(before);
  });

  it("--output-dir that is a file, or cannot be created, fails before anything is written", () => {
    const file = join(dir, "taken");
    writeFileSync(file, "keep");
    const r = runCli([
      "run",
      REDUCE,
      "x=json:[[1,2,3],[4,5,6]]",
      "--output-dir",
      join(file, "sub"),
    ]);
    expectOneLineError(r, /--output-dir .*taken' is a file, not a folder/);
    expect(readFileSync(file, "utf8")).toBe("keep");
    if (existsSync("/proc/self")) {
      // mkdirSync's recursive mode never returns for a path under /proc.
      const bin = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
      const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
      const args = ["--import", tsx, bin, "run", REDUCE, "x=json:[[1,2,3],[4,5,6]]"];
      const p = spawnSync(process.execPath, [...args, "--output-dir", "/proc/onnx-expand/x"], {
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(p.signal).toBeNull();
      expectOneLineError({ code: p.status ?? -1, stderr: p.stderr }, /cannot create folder/);
    }
  });
});

describe("run's preflight", () => {
  it("refuses a value defined twice (which would otherwise run, keeping the last one)", () => {
    const m = parseModelText(
      `${HEADER}g (float[2] x) => (float[2] y) {\n  y = Relu (x)\n  y = Neg (x)\n}\n`,
    );
    expect(() => assertRunnable(m, "m.onnxtxt")).toThrow(
      /^m\.onnxtxt: node #1 \(Neg\): value 'y' is defined twice/,
    );
    // Extra inputs a kernel or function would silently ignore.
    const extra = parseModelText(
      `${HEADER}g (float[2] x) => (float[2] y) {\n  y = Relu (x, x)\n}\n`,
    );
    expect(() => assertRunnable(extra, "e.onnxtxt")).toThrow(
      /Relu-13 takes exactly 1 input, got 2/,
    );
    // A model the checker merely has shape doubts about still runs.
    const ok = parseModelText(`${HEADER}g (float[2] x) => (float[3] y) {\n  y = Relu (x)\n}\n`);
    expect(() => assertRunnable(ok, "ok.onnxtxt")).not.toThrow();
  });
});

describe("files that would be lost or unreadable", () => {
  it("--external-data naming the input or the output itself is refused; the input survives", () => {
    const dir = tmp();
    const text = `${HEADER}g (float[2] x) => (float[2] y) {\n  y = Relu (x)\n}\n`;
    const input = join(dir, "m.onnxtxt");
    writeFileSync(input, text);
    let r = runCli(["parse", input, "-o", join(dir, "m.onnx"), "--external-data", "m.onnxtxt"]);
    expectOneLineError(r, /external data file 'm\.onnxtxt' would overwrite the input/);
    expect(readFileSync(input, "utf8")).toBe(text);
    r = runCli(["parse", input, "-o", join(dir, "m.onnx"), "--external-data", "m.onnx"]);
    expectOneLineError(r, /external data file 'm\.onnx' cannot be the output model itself/);
    expect(readdirSync(dir)).toEqual(["m.onnxtxt"]);
    // Text output refers to a data file as the text syntax writes it (a list of entries), and
    // reads back with the same values.
    const big = `${HEADER}g (float[300] x) => (float[300] y) <float[300] w = {${Array.from({ length: 300 }, (_, i) => i + 1).join(", ")}}> {\n  y = Add (x, w)\n}\n`;
    saveModel(parseModelText(big), join(dir, "n.onnxtxt"), {
      externalData: { location: "w.bin", threshold: 1000 },
    });
    expect(readdirSync(dir).sort()).toEqual(["m.onnxtxt", "n.onnxtxt", "w.bin"]);
    expect(readFileSync(join(dir, "n.onnxtxt"), "utf8")).toMatch(/"location": "w\.bin"/);
    const back = loadModel(join(dir, "n.onnxtxt"));
    expect(back.graph.initializers[0]!.numbers().slice(0, 3)).toEqual([1, 2, 3]);
  });

  it("parse will not write a binary too deeply nested to be read back; text nesting is bounded", () => {
    const dir = tmp();
    writeFileSync(join(dir, "deep.onnxtxt"), nestedIfText(40));
    const r = runCli(["parse", join(dir, "deep.onnxtxt"), "-o", join(dir, "deep.onnx")]);
    expectOneLineError(r, /messages nest more than 100 levels deep/);
    expect(readdirSync(dir)).toEqual(["deep.onnxtxt"]); // no output, no temp file
    writeFileSync(join(dir, "deeper.onnxtxt"), nestedIfText(2000));
    const c = runCli(["check", join(dir, "deeper.onnxtxt")]);
    expectOneLineError(c, /deeper\.onnxtxt:\d+:\d+: subgraphs are nested more than 200 deep/);
  });
});

describe("test folders whose outputs do not match the model", () => {
  it("no reference outputs, or more than the model has, is a failure, not a pass", () => {
    const dir = tmp();
    for (const name of ["none", "extra"]) {
      cpSync(ADD_TEST, join(dir, name), { recursive: true });
      const set = join(dir, name, "test_data_set_0");
      if (name === "none") rmSync(join(set, "output_0.pb"));
      else cpSync(join(set, "output_0.pb"), join(set, "output_1.pb"));
    }
    expect(runBackendTest(join(dir, "none")).reason).toBe(
      "test_data_set_0: 0 output_*.pb files, but the model has 1 output",
    );
    expect(runBackendTest(join(dir, "extra")).ok).toBe(false);
    // An extra input file that names an input already given is not silently used instead.
    const dup = join(dir, "..", `${basename(dir)}-dup`);
    cpSync(ADD_TEST, dup, { recursive: true });
    cpSync(join(dup, "test_data_set_0", "input_0.pb"), join(dup, "test_data_set_0", "input_2.pb"));
    expect(runBackendTest(dup).reason).toBe(
      "input_2.pb gives input 'x' again (an earlier input file already did)",
    );
    const r = runCli(["test", dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /FAIL \S*extra: test_data_set_0: 2 output_\*\.pb files, but the model has 1 output/,
    );
    expect(r.stdout).toMatch(/0 passed, 2 failed/);
  });
});

describe("library layers behind those commands", () => {
  it("JSON integers out of range for their element type are refused, not wrapped", () => {
    const bad: [string, number, RegExp][] = [
      ["[300]", DataType.INT8, /element 0 \(300\) is out of range for int8/],
      ["[-1]", DataType.UINT32, /out of range for uint32/],
      ["[2147483648]", DataType.INT32, /out of range for int32/],
      ['["-1"]', DataType.UINT64, /out of range for uint64/],
      ['["9223372036854775808"]', DataType.INT64, /out of range for int64/],
      ["[9007199254740993]", DataType.INT64, /too large to be exact/],
    ];
    for (const [text, dtype, msg] of bad)
      expect(() => parseJsonTensor(text, dtype, "input 'v'")).toThrow(msg);
    // The extremes themselves are fine.
    expect(parseJsonTensor("[-128, 255]", DataType.INT16).data).toEqual(Int16Array.of(-128, 255));
    expect(parseJsonTensor('["9223372036854775807"]', DataType.INT64).data[0]).toBe(2n ** 63n - 1n);
    expect(parseJsonTensor("[4294967295]", DataType.UINT32).data[0]).toBe(4294967295);
  });

  it("the interpreter stops recursive functions with an error, not a stack overflow", () => {
    const m = parseModelText(SELF_CALL);
    const x = { dtype: DataType.FLOAT, shape: [2], data: Float32Array.of(1, 2) };
    let err: unknown;
    try {
      runValues(m, { x });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OnnxError);
    expect((err as OnnxError).code).toBe("E_MODEL");
    expect((err as OnnxError).message).toMatch(/function 'local\.F' calls itself/);
  });

  it("the encoder's nesting limit is exactly what the decoder accepts", () => {
    const ok = parseModelText(nestedIfText(31));
    expect(decodeModel(encodeModel(ok)).graph.nodes).toHaveLength(2);
    const tooDeep = parseModelText(nestedIfText(32));
    expect(() => encodeModel(tooDeep)).toThrow(/nest more than 100 levels deep/);
  });

  it("re-saving into the external data file the model reads is refused; the data stays intact", () => {
    const dir = tmp();
    const values = Array.from({ length: 600 }, (_, i) => i * 0.5);
    const w = Tensor.from(DataType.FLOAT, [600], values, "w");
    const g = graph({
      nodes: [node("Add", ["x", "w"], ["y"])],
      inputs: [valueInfo("x", "float", [600])],
      outputs: [valueInfo("y", "float", [600])],
      initializers: [w],
    });
    saveModel(model(g, 13), join(dir, "a.onnx"), { externalData: { location: "w.bin" } });
    const loaded = loadModel(join(dir, "a.onnx"));
    expect(loaded.graph.initializers[0]!.data.kind).toBe("external");
    // Same folder, same data file name, but a different tensor layout (a smaller tensor first):
    // writing it would leave a.onnx reading other bytes, so it is refused.
    loaded.graph.initializers.unshift(
      Tensor.from(DataType.FLOAT, [300], values.slice(0, 300), "v"),
    );
    expect(() =>
      saveModel(loaded, join(dir, "b.onnx"), { externalData: { location: "w.bin" } }),
    ).toThrow(/would write over '.*w\.bin', a data file that tensors of the input are read from/);
    saveModel(loaded, join(dir, "b.onnx"), { externalData: { location: "b.bin" } });
    for (const file of ["a.onnx", "b.onnx"]) {
      const again = loadModel(join(dir, file), { loadExternal: true });
      const wAgain = again.graph.initializers.find((t) => t.name === "w")!;
      expect(wAgain.data.kind).toBe("raw");
      const bytes = (wAgain.data as { bytes: Uint8Array }).bytes;
      const f = new Float32Array(
        bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
      );
      expect([...f]).toEqual(values);
    }
  });
});

describe("broken tensor data is named on load or by check, not found by a crash", () => {
  const dir = tmp();
  const withW = (w: Tensor) =>
    model(
      graph({
        nodes: [node("Add", ["x", "w"], ["y"])],
        inputs: [valueInfo("x", "float", [2])],
        outputs: [valueInfo("y", "float", [2])],
        initializers: [w],
      }),
      13,
    );
  const external = (entries: [string, string][]) =>
    withW(new Tensor(DataType.FLOAT, [2], { kind: "external", entries, baseDir: dir }, "w"));
  writeFileSync(join(dir, "w.bin"), new Uint8Array(8));
  mkdirSync(join(dir, "sub"));
  const cases: [string, [string, string][], RegExp][] = [
    ["folder.onnx", [["location", "sub"]], /location 'sub' of tensor 'w' is not a regular file/],
    [
      "past.onnx",
      [
        ["location", "w.bin"],
        ["offset", "4"],
        ["length", "8"],
      ],
      /\(offset 4, length 8\) is past the end of 'w\.bin' \(8 bytes\)/,
    ],
    [
      "nan.onnx",
      [
        ["location", "w.bin"],
        ["offset", "abc"],
      ],
      /offset 'abc' .* not a non-negative integer/,
    ],
  ];
  for (const [f, entries] of cases) writeFileSync(join(dir, f), encodeModel(external(entries)));

  it("external data that is a folder, out of range, or has a malformed offset", () => {
    for (const [f, , msg] of cases) {
      let err: unknown;
      try {
        loadModel(join(dir, f));
      } catch (e) {
        err = e;
      }
      expect(err, f).toBeInstanceOf(OnnxError);
      expect((err as Error).message).toMatch(msg);
    }
    // As the CLI reports it (this used to be "internal error: EISDIR").
    expectOneLineError(
      runCli(["run", join(dir, "folder.onnx"), "x=json:[1,2]"]),
      /is not a regular file/,
    );
    // A device never ends: refused instead of read forever.
    if (existsSync("/dev/zero"))
      expectOneLineError(runCli(["check", "/dev/zero"]), /is a device or socket, not a model file/);
  });

  it("check reports raw data that does not fit the shape, and invalid shapes", () => {
    const short = withW(
      new Tensor(DataType.FLOAT, [2], { kind: "raw", bytes: new Uint8Array(5) }, "w"),
    );
    const neg = withW(
      new Tensor(DataType.FLOAT, [-2], { kind: "raw", bytes: new Uint8Array(8) }, "w"),
    );
    const p1 = checkModel(short).problems.filter((p) => p.code === "tensor-data");
    expect(p1.map((p) => p.message)).toEqual([
      "initializer 'w' holds 5 bytes of raw data; shape [2] needs 8",
    ]);
    const p2 = checkModel(neg).problems.filter((p) => p.code === "tensor-data");
    expect(p2.map((p) => p.message)).toEqual(["initializer 'w' has an invalid shape [-2]"]);
    const extra = withW(
      new Tensor(DataType.FLOAT, [2], { kind: "float", values: Float32Array.of(1, 2, 3) }, "w"),
    );
    expect(checkModel(extra).problems.map((p) => p.message)).toContain(
      "initializer 'w' holds 3 values in float_data; shape [2] needs 2",
    );
    // A Constant whose tensor has a negative dimension, feeding Reshape's shape input: the
    // checker used to crash allocating an array of that length.
    const constNeg = model(
      graph({
        nodes: [
          node("Constant", [], ["s"], {
            value: new Tensor(DataType.INT64, [-3], { kind: "raw", bytes: new Uint8Array(16) }),
          }),
          node("Reshape", ["x", "s"], ["y"]),
        ],
        inputs: [valueInfo("x", "float", [2])],
        outputs: [valueInfo("y", "float")],
      }),
      13,
    );
    expect(checkModel(constNeg).problems.map((p) => `${p.where}: ${p.message}`)).toEqual([
      "node #0 (Constant): attribute 'value' has an invalid shape [-3]",
    ]);
    // print refuses both rather than crashing or silently dropping the extra value.
    expect(() => printModel(constNeg)).toThrow(/tensor '' has an invalid shape \[-3\]/);
    expect(() => printModel(extra)).toThrow(
      /tensor 'w' \(float\[2\]\) holds 12 bytes of data, 8 needed/,
    );
    // The interpreter says the same instead of failing to allocate a typed array.
    expect(() => fromIRTensor(neg.graph.initializers[0]!)).toThrow(/invalid shape \[-2\]/);
  });
});

describe("output that cannot be written", () => {
  it("a reader that stops early ends the command quietly; a full disk is one line and exit 2", () => {
    const dir = tmp();
    const lines = [`${HEADER}g (float[4] x) => (float[4] y) {`, "  v0 = Relu (x)"];
    for (let i = 1; i < 5000; i++) lines.push(`  v${i} = Neg (v${i - 1})`);
    lines.push("  y = Identity (v4999)", "}");
    const big = join(dir, "chain.onnxtxt");
    writeFileSync(big, lines.join("\n") + "\n");
    const bin = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
    const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
    const cli = `"${process.execPath}" --import "${tsx}" "${bin}"`;
    const err = join(dir, "stderr");
    const piped = spawnSync(
      "bash",
      ["-c", `${cli} print "${big}" 2>"${err}" | head -c 10 >/dev/null; echo \${PIPESTATUS[0]}`],
      { encoding: "utf8" },
    );
    expect(piped.stdout.trim()).toBe("0");
    expect(readFileSync(err, "utf8")).toBe("");
    if (existsSync("/dev/full")) {
      const full = spawnSync("bash", ["-c", `${cli} print "${big}" >/dev/full`], {
        encoding: "utf8",
      });
      expectOneLineError(
        { code: full.status ?? -1, stderr: full.stderr },
        /cannot write output: ENOSPC/,
      );
    }
  });
});

describe("inputs of the wrong kind", () => {
  it("a binary model read as text is named as such, not as a bad character at 1:1", () => {
    const dir = tmp();
    const file = join(dir, "model.onnxtxt");
    writeFileSync(file, readFileSync(REDUCE));
    expect(() => loadModel(file)).toThrow(/model\.onnxtxt: holds binary data, not ONNX text/);
  });

  it("a tensor given for a sequence input is refused at the input, not inside a kernel", () => {
    const m = parseModelText(
      '<ir_version: 8, opset_import: ["" : 18]>\ng (seq(float[2]) s) => (int64 n) {\n  n = SequenceLength (s)\n}\n',
    );
    const s = { dtype: DataType.FLOAT, shape: [2], data: Float32Array.of(1, 2) };
    expect(() => runValues(m, { s })).toThrow(
      /graph input 's' \(read by node #0 \(SequenceLength\)\): expected a sequence, got a tensor/,
    );
  });
});

describe("size", () => {
  // Binding used to search the nodes for each input's first reader (quadratic: ~10 s here); the
  // time is not asserted (shared machines are noisy), the size is what this test keeps covered.
  it("run binds 40k graph inputs with initializer defaults", () => {
    const n = 40000;
    const nodes = [node("Identity", ["i0"], ["a0"])];
    for (let k = 1; k < n; k++) nodes.push(node("Add", [`a${k - 1}`, `i${k}`], [`a${k}`]));
    const g = graph({
      nodes,
      inputs: Array.from({ length: n }, (_, k) => valueInfo(`i${k}`, "float", [1])),
      outputs: [valueInfo(`a${n - 1}`, "float", [1])],
      initializers: Array.from({ length: n }, (_, k) =>
        Tensor.from(DataType.FLOAT, [1], [1], `i${k}`),
      ),
    });
    const out = runValues(model(g, 13), {});
    expect((out[`a${n - 1}`] as { data: Float32Array }).data[0]).toBe(n);
  });
});

describe("names with control characters", () => {
  it("stay on one line in error messages and check reports", () => {
    const dir = tmp();
    const name = "in\nput\t1";
    const m = model(
      graph({
        nodes: [node("Relu", [name], ["y"]), node("Relu", ["nowhere\r"], ["z"])],
        inputs: [valueInfo(name, "float", [2])],
        outputs: [valueInfo("y", "float", [2]), valueInfo("z", "float", [2])],
      }),
      13,
    );
    const file = join(dir, "m.onnx");
    writeFileSync(file, encodeModel(m));
    const c = runCli(["check", file]);
    expect(c.code).toBe(1);
    const lines = c.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/input 'nowhere\\x0d' is not defined/);
    const r = runCli(["run", file]);
    expectOneLineError(r, /graph input 'in\\nput\\t1' .*no value was given/);
  });
});

describe("long chains of function calls", () => {
  const chain = (n: number) => {
    let t = '<ir_version: 8, opset_import: ["" : 13, "local" : 1]>\n';
    t += "g (float[2] x) => (float[2] y) {\n  y = local.F0 (x)\n}\n";
    for (let k = 0; k < n; k++)
      t += `<domain: "local", opset_import: ["" : 13, "local" : 1]>\nF${k} (a) => (b) {\n  b = ${k < n - 1 ? `local.F${k + 1}` : "Relu"} (a)\n}\n`;
    return t;
  };

  it("run, check and expand walk any chain (docs/semantics.md, Nesting)", () => {
    const x = { dtype: DataType.FLOAT, shape: [2], data: Float32Array.of(1, -2) };
    const ok = runValues(parseModelText(chain(300)), { x });
    expect([...(ok.y as { data: Float32Array }).data]).toEqual([1, 0]);
    const dir = tmp();
    const file = join(dir, "chain.onnxtxt");
    writeFileSync(file, chain(3000));
    const c = runCli(["check", file]);
    expect(c.code).toBe(0);
    const e = runCli(["expand", file, "--print"]);
    expect(e.code).toBe(0);
    // Relu-13 is lowered through Relu-14, a function (max(x, 0)).
    expect(e.stdout).toMatch(/ y = Max \(x, /);
    const r = runCli(["run", file, "x=json:[1,-2]"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^y: float \[2\] = 1, 0$/m);
  });
});

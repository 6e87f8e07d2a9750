// Hostile input on the file side (found by an attacker-style campaign): huge flat nodes, opset
// imports no command may guess at, external data shorter than its tensor, outputs that are
// devices or FIFOs, Ctrl-C in the middle of a write, text that cannot carry what it prints.

import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { assertOpsetImports, opsetImportIssues } from "../../src/check/opsets.js";
import { modelNesting, reportError } from "../../src/cli/util.js";
import { removeStaleTempFiles } from "../../src/io/atomic.js";
import { encodeModel, loadModel, saveModel } from "../../src/io/files.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { printModel } from "../../src/text/print.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { OPSET_IMPORT_CASES, RELU } from "../helpers/hostile.js";

const tmp = () => mkdtempSync(join(tmpdir(), "onnx-expand-hostile-io-"));

describe("huge flat nodes are not nesting", () => {
  it("a Sum of 200,000 inputs checks and runs", () => {
    const d = tmp();
    const m = parseModelText(RELU(`"" : 13`).replace("Relu (x)", "Sum (x)"));
    m.graph.nodes[0]!.inputs = Array.from({ length: 200_000 }, () => "x");
    const file = join(d, "sum.onnx");
    saveModel(m, file);
    expect(runCli(["check", file])).toMatchObject({ code: 0, stdout: `ok: ${file}\n` });
    const r = runCli(["run", file, "x=json:[1,-2]"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/y: float \[2\] = 200000, -400000/);
  }, 240_000);

  it("running out of stack on a flat model is a bug (internal error), on a nested one bad input", () => {
    const d = tmp();
    const flat = join(d, "flat.onnxtxt");
    writeFileSync(flat, RELU(`"" : 13`));
    let chain = '<ir_version: 8, opset_import: ["" : 13, "local" : 1]>\n';
    chain += "g (float[2] x) => (float[2] y) {\n  y = local.F0 (x)\n}\n";
    for (let k = 0; k < 100; k++)
      chain += `<domain: "local", opset_import: ["" : 13, "local" : 1]>\nF${k} (a) => (b) {\n  b = ${k < 99 ? `local.F${k + 1}` : "Relu"} (a)\n}\n`;
    const deep = join(d, "deep.onnxtxt");
    writeFileSync(deep, chain);
    expect(modelNesting(loadModel(flat))).toBe(0);
    expect(modelNesting(loadModel(deep))).toBe(100);
    const overflow = new RangeError("Maximum call stack size exceeded");
    const lines: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((s: string) => lines.push(s)) as typeof process.stderr.write;
    try {
      expect(reportError(overflow, flat)).toBe(2);
      expect(reportError(overflow, deep)).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    expect(lines[0]).toBe(
      `onnx-expand: internal error: ${flat}: ran out of stack on a model that nests only 0 levels (a bug: please report it, with --verbose)\n`,
    );
    expect(lines[1]).toBe(
      `onnx-expand: error: ${deep}: the model is nested too deeply to process (100 levels of subgraphs or function calls)\n`,
    );
  });

  it("a cycle of local functions counts as endless nesting", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13, "local" : 1]>
g (float[2] x) => (float[2] y) { y = local.A (x) }
<domain: "local", opset_import: ["" : 13, "local" : 1]>
A (a) => (b) { b = local.B (a) }
<domain: "local", opset_import: ["" : 13, "local" : 1]>
B (a) => (b) { b = local.A (a) }
`);
    expect(modelNesting(m)).toBe(Infinity);
  });
});

describe("opset imports: one rule for every command", () => {
  const cases = OPSET_IMPORT_CASES;
  it("check, run, print, info and parse refuse each with one line naming the file", () => {
    const d = tmp();
    for (const [label, content, pattern] of cases) {
      const file = join(d, typeof content === "string" ? `m.onnxtxt` : `m.onnx`);
      writeFileSync(file, content);
      // Every command on the first and the last case; check and run on the others.
      const all = label === "0" || label === "11 and 18";
      const commands = [
        ["check", file],
        ["run", file, "x=json:[1,2]"],
        ...(all
          ? [
              ["print", file],
              ["info", file],
              ["parse", file, "-o", join(d, "never.onnx")],
            ]
          : []),
      ];
      for (const cmd of commands) {
        const r = runCli(cmd);
        expect(r.stdout, `${label}: ${cmd[0]}`).toBe("");
        expectOneLineError(r, new RegExp(`^onnx-expand: error: ${file}: ${pattern.source}`));
      }
      expect(existsSync(join(d, "never.onnx"))).toBe(false);
    }
  }, 600_000);

  it("at library level: functions and other domains too, every issue listed", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13, "com.x" : 3, "com.x" : 4]>
g (float[2] x) => (float[2] y) { y = com.x.F (x) }
<domain: "com.x", opset_import: ["" : 13, "ai.onnx" : 12, "com.y" : 0]>
F (a) => (b) { b = Relu (a) }
`);
    expect(opsetImportIssues(m)).toEqual([
      "the model imports domain 'com.x' twice (opsets 3 and 4)",
      "function 'com.x.F' imports ai.onnx twice (opsets 13 and 12)",
      "function 'com.x.F' imports domain 'com.y' at opset 0; an opset version is a whole number from 1 to 2147483647",
    ]);
    expect(() => assertOpsetImports(m, "m.onnx")).toThrow(
      /domain 'com\.x' twice \(opsets 3 and 4\) \(and 2 more opset import problems\)/,
    );
    const custom = parseModelText(RELU(`"" : 13, "com.big" : 2147483647`));
    expect(opsetImportIssues(custom)).toEqual([]);
    custom.opsetImports[1]!.version = 2 ** 31;
    expect(opsetImportIssues(custom)).toEqual([
      "the model imports domain 'com.big' at opset 2147483648; an opset version is a whole number from 1 to 2147483647",
    ]);
  });
});

describe("external data shorter or longer than its tensor", () => {
  /** A model whose float[1024] initializer `w` lives in `location`. */
  function withExternal(dir: string, location: string, entries: [string, string][] = []): string {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[1024] x) => (float[1024] y) {
  y = Add (x, w)
}
`);
    m.graph.initializers = [
      new Tensor(
        DataType.FLOAT,
        [1024],
        { kind: "external", entries: [["location", location], ...entries] },
        "w",
      ),
    ];
    m.graph.inputs.push({ name: "w", type: m.graph.inputs[0]!.type });
    const file = join(dir, "model.onnx");
    saveModel(m, file);
    return file;
  }

  it("check, run and convert refuse 100 bytes for a float[1024]; nothing is written", () => {
    const d = tmp();
    writeFileSync(join(d, "w.bin"), new Uint8Array(100));
    const file = withExternal(d, "w.bin");
    const other = join(d, "other");
    mkdirSync(other);
    const line =
      /model\.onnx: external data of tensor 'w' \(offset 0, length 4096 for float\[1024\]\) is past the end of 'w\.bin' \(100 bytes\)$/;
    expectOneLineError(runCli(["check", file]), line);
    expectOneLineError(runCli(["run", file, "x=json:[1]"]), line);
    expectOneLineError(
      runCli(["convert", file, "--opset", "14", "-o", join(other, "m.onnx")]),
      line,
    );
    expect(readdirSync(other)).toEqual([]);
  }, 240_000);

  it("a length entry must be the tensor's size; the model file itself as the data is refused", () => {
    const d = tmp();
    writeFileSync(join(d, "w.bin"), new Uint8Array(8192));
    let file = withExternal(d, "w.bin", [["length", "100"]]);
    expectOneLineError(
      runCli(["check", file]),
      /external data of tensor 'w' is 100 bytes long, but float\[1024\] takes 4096$/,
    );
    file = withExternal(d, "model.onnx");
    expectOneLineError(runCli(["check", file]), /is past the end of 'model\.onnx'/);
    // The right length, or none with enough bytes from the offset, is accepted.
    file = withExternal(d, "w.bin", [
      ["offset", "4096"],
      ["length", "4096"],
    ]);
    expect(runCli(["check", file]).code).toBe(0);
    file = withExternal(d, "w.bin", [["offset", "100"]]);
    expect(runCli(["check", file]).code).toBe(0);
  }, 240_000);
});

describe("what stands at an output path", () => {
  const small = (d: string) => {
    const file = join(d, "m.onnxtxt");
    writeFileSync(file, RELU(`"" : 13`));
    return file;
  };

  it("a device node or a FIFO is refused with one line and left as it was", () => {
    const d = tmp();
    const input = small(d);
    const fifo = join(d, "fifo");
    spawnSync("mkfifo", [fifo]);
    const targets = [fifo];
    const dev = join(d, "null");
    // Making a device node needs privileges; where there are none, the FIFO stands for it.
    if (spawnSync("mknod", [dev, "c", "1", "3"]).status === 0) targets.push(dev);
    for (const target of targets) {
      const before = statSync(target);
      expectOneLineError(
        runCli(["convert", input, "--opset", "14", "-o", target]),
        new RegExp(
          `^onnx-expand: error: ${target}: output exists and is a (device|FIFO \\(named pipe\\)); only a regular file \\(or a symbolic link\\) is replaced$`,
        ),
      );
      expectOneLineError(runCli(["parse", input, "-o", target]), /output exists and is a/);
      const after = statSync(target);
      expect([after.ino, after.mode, after.rdev]).toEqual([before.ino, before.mode, before.rdev]);
    }
    expect(readdirSync(d).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  }, 240_000);

  it("a symbolic link is replaced by the new file; its target is not touched", () => {
    const d = tmp();
    const input = small(d);
    writeFileSync(join(d, "target.onnx"), "keep");
    symlinkSync("target.onnx", join(d, "link.onnx"));
    expect(runCli(["parse", input, "-o", join(d, "link.onnx")]).code).toBe(0);
    expect(lstatSync(join(d, "link.onnx")).isFile()).toBe(true);
    expect(readFileSync(join(d, "target.onnx"), "utf8")).toBe("keep");
    expect(() => readlinkSync(join(d, "link.onnx"))).toThrow();
  }, 120_000);
});

describe("temporary files", () => {
  it("the next write into a folder removes those of processes that no longer exist", () => {
    const d = tmp();
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid!;
    const stale = `.oe${dead}.abc123.tmp`;
    const mine = `.oe${process.pid}.def456.tmp`;
    const other = ".oe1x.tmp"; // not a name of ours: left alone
    for (const f of [stale, mine, other]) writeFileSync(join(d, f), "");
    expect(removeStaleTempFiles(d)).toEqual([stale]);
    expect(readdirSync(d).sort()).toEqual([mine, other].sort());
    // Through the CLI: a convert into the folder sweeps it first.
    writeFileSync(join(d, stale), "");
    const input = join(d, "m.onnxtxt");
    writeFileSync(input, RELU(`"" : 13`));
    expect(runCli(["convert", input, "--opset", "14", "-o", join(d, "out.onnx")]).code).toBe(0);
    expect(existsSync(join(d, stale))).toBe(false);
    expect(existsSync(join(d, mine))).toBe(true);
  }, 120_000);

  // A model whose encoding takes a while: a chain of 60,000 Relu nodes.
  function bigModel(dir: string): string {
    const nodes = Array.from({ length: 60_000 }, (_, i) => `  t${i + 1} = Relu (t${i})`).join("\n");
    const text = `<ir_version: 8, opset_import: ["" : 13]>\ng (float[2] t0) => (float[2] t60000) {\n${nodes}\n}\n`;
    const file = join(dir, "big.onnx");
    saveModel(parseModelText(text), file);
    return file;
  }

  /** Starts the CLI, sends SIGINT once a temporary file appears in `out`, and times the end. */
  function interrupt(args: string[], out: string): Promise<{ ms: number; signal: string | null }> {
    const bin = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
    const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
    const child = spawn(process.execPath, ["--import", tsx, bin, ...args], { stdio: "ignore" });
    return new Promise((resolve, reject) => {
      let sent = 0;
      const poll = setInterval(() => {
        if (!sent && readdirSync(out).some((f) => f.endsWith(".tmp"))) {
          sent = Date.now();
          child.kill("SIGINT");
        }
      }, 2);
      child.on("exit", (_code, signal) => {
        clearInterval(poll);
        if (!sent) reject(new Error("the command ended before writing a temporary file"));
        else resolve({ ms: Date.now() - sent, signal });
      });
    });
  }

  const settle = async (out: string) => {
    // The janitor removes the files as soon as it sees its owner gone; give it a moment.
    for (let i = 0; i < 100 && readdirSync(out).some((f) => f.endsWith(".tmp")); i++)
      await new Promise((r) => setTimeout(r, 20));
    return readdirSync(out);
  };

  it("Ctrl-C during a write ends the command at once and leaves no temporary file", async () => {
    const d = tmp();
    const big = bigModel(d);
    const out = join(d, "out");
    mkdirSync(out);
    const r = await interrupt(["convert", big, "--opset", "14", "-o", join(out, "c.onnx")], out);
    expect(r.signal).toBe("SIGINT");
    expect(r.ms).toBeLessThan(1500);
    expect(await settle(out)).toEqual([]);
  }, 300_000);

  it("and so in a batch on worker threads", async () => {
    const d = tmp();
    const big = bigModel(d);
    const other = join(d, "big2.onnx");
    writeFileSync(other, readFileSync(big));
    const out = join(d, "out");
    mkdirSync(out);
    const r = await interrupt(
      ["convert", big, other, "--opset", "14", "--output-dir", out, "--jobs", "2"],
      out,
    );
    expect(r.signal).toBe("SIGINT");
    expect(r.ms).toBeLessThan(1500);
    expect(await settle(out)).toEqual([]);
  }, 300_000);
});

describe("text output is faithful or refused", () => {
  it("a NUL and other control characters in names print as \\xHH and read back", () => {
    const d = tmp();
    const m = parseModelText(RELU(`"" : 13`));
    const name = "a\u0000b\u0001c\u001bd\te\nf";
    m.graph.inputs[0]!.name = name;
    m.graph.nodes[0]!.inputs = [name];
    const file = join(d, "m.onnx");
    saveModel(m, file);
    const printed = runCli(["print", file]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('"a\\x00b\\x01c\\x1bd\te\nf"');
    writeFileSync(join(d, "m.onnxtxt"), printed.stdout);
    const back = runCli(["parse", join(d, "m.onnxtxt"), "-o", join(d, "back.onnx")]);
    expect(back.code, back.stderr).toBe(0);
    expect(loadModel(join(d, "back.onnx")).graph.inputs[0]!.name).toBe(name);
  }, 120_000);

  it("\\xHH beyond ASCII is refused by the lexer; other backslashes stay literal", () => {
    expect(() => parseModelText(RELU(`"" : 13`).replace("g (", '"a\\x80" ('))).toThrow(
      /escape '\\x80' is not ASCII/,
    );
    const m = parseModelText(RELU(`"" : 13`).replace("g (", '"a\\qb\\x4" ('));
    expect(m.graph.name).toBe("aqbx4");
  });

  it("string data that is not UTF-8 is refused by print and by a text output, never replaced", () => {
    const d = tmp();
    const m: Model = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (string[2] x) => (string[2] y) {
  y = Identity (s)
}
`);
    m.graph.initializers = [
      new Tensor(
        DataType.STRING,
        [2],
        { kind: "string", values: [Uint8Array.of(0x61), Uint8Array.of(0xff, 0x62)] },
        "s",
      ),
    ];
    const file = join(d, "m.onnx");
    saveModel(m, file);
    const line =
      /m\.onnx: string tensor 's' element 1 is not valid UTF-8, which ONNX text cannot hold \(the binary \.onnx form can\)$/;
    expectOneLineError(runCli(["print", file]), line);
    expectOneLineError(
      runCli(["convert", file, "--opset", "14", "-o", join(d, "m.onnxtxt")]),
      /element 1 is not valid UTF-8/,
    );
    expect(existsSync(join(d, "m.onnxtxt"))).toBe(false);
    expect(() => printModel(loadModel(file))).toThrow(/element 1 is not valid UTF-8/);
  }, 120_000);
});

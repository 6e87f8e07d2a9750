// Start-up: the binary loads only the command modules a command line needs (program.ts), and
// the registry takes the build's validated schemas while schemas/ is unchanged (files.node.ts).

import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { COMMAND_MODULES, createProgram, modulesFor, namesOutput } from "../../src/cli/program.js";
import {
  defaultSchemaDir,
  readValidatedSchemas,
  stampSchemaDir,
  writeValidatedSchemas,
} from "../../src/schema/files.node.js";
import { parseOperatorFile, SchemaRegistry } from "../../src/schema/registry.js";
import { encodeModel } from "../../src/io/files.js";
import { encodeTensorBytes } from "../../src/io/encode.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType } from "../../src/ir/types.js";
import { runCli } from "../helpers/cli.js";

describe("commands loaded on demand", () => {
  it("each module registers exactly the commands the table names, in --help order", async () => {
    const all = buildProgram().commands.map((c) => c.name());
    expect(COMMAND_MODULES.flatMap((m) => m.commands)).toEqual(all);
    for (const m of COMMAND_MODULES) {
      const p = createProgram();
      (await m.load())(p);
      expect(p.commands.map((c) => c.name())).toEqual(m.commands);
    }
  });

  it("picks no module for --version, one for a command, all otherwise", () => {
    expect(modulesFor(["--version"])).toEqual([]);
    expect(modulesFor(["-V", "--help"])).toEqual([]);
    expect(modulesFor(["--verbose", "info", "m.onnx"]).flatMap((m) => m.commands)).toEqual([
      "print",
      "parse",
      "info",
    ]);
    expect(modulesFor(["test", "dir"]).flatMap((m) => m.commands)).toEqual(["run", "test"]);
    for (const args of [[], ["--help"], ["help", "info"], ["inf"], ["--bogus"]])
      expect(modulesFor(args)).toBe(COMMAND_MODULES);
  });
});

describe("the temporary-file janitor starts before a model is read when the command writes", () => {
  it("every option that names a file or folder to write is seen, and no other", () => {
    const writes = /^(--output|--write-)/;
    for (const c of buildProgram().commands)
      for (const o of c.options) {
        if (!/<(file|dir)>/.test(o.flags)) continue;
        const names = [o.short, o.long].filter((f): f is string => f !== undefined);
        const expected = writes.test(o.long ?? "");
        for (const f of names)
          expect([c.name(), f, namesOutput([f])]).toEqual([c.name(), f, expected]);
        if (expected && o.long) expect(namesOutput([`${o.long}=out.onnx`])).toBe(true);
      }
    expect(namesOutput(["-oout.onnx"])).toBe(true);
    expect(namesOutput(["convert", "m.onnx", "--opset", "13"])).toBe(false);
  });
});

describe("schemas validated at build time", () => {
  const copy = () => {
    const dir = mkdtempSync(join(tmpdir(), "oe-schemas-"));
    cpSync(defaultSchemaDir(), dir, { recursive: true, preserveTimestamps: true });
    return dir;
  };
  const save = (dir: string) => {
    const { stamp, texts } = stampSchemaDir(dir);
    const file = join(dir, "..", `${dir.split("/").pop()}.validated`);
    const operators = texts.map((f) => parseOperatorFile(f.text, f.path));
    writeValidatedSchemas(file, stamp, operators);
    return { file, operators };
  };

  it("are taken while the folder is unchanged, or holds the same texts under new times", () => {
    const dir = copy();
    const { file, operators } = save(dir);
    const got = readValidatedSchemas(dir, file)!;
    expect(got.map((f) => JSON.parse(f.text()) as unknown)).toEqual(operators);
    expect(got[0]!.path).toBe(
      join(
        dir,
        readdirSync(dir)
          .filter((f) => f.endsWith(".json"))
          .sort()[0]!,
      ),
    );
    for (const f of readdirSync(dir))
      utimesSync(join(dir, f), new Date(2000, 0, 1), new Date(2000, 0, 1));
    expect(readValidatedSchemas(dir, file)?.length).toBe(operators.length);
  });

  it("give a registry that answers as one validating the folder, parsing only what is looked up", () => {
    const dir = copy();
    const { file } = save(dir);
    const lazy = new SchemaRegistry(dir, file);
    const full = new SchemaRegistry(dir, join(dir, "missing.json"));
    expect(lazy.maxOpset("")).toBe(full.maxOpset(""));
    expect(lazy.maxOpset("ai.onnx.ml")).toBe(full.maxOpset("ai.onnx.ml"));
    expect(lazy.has("", "ReduceLogSum")).toBe(true);
    expect(lazy.has("", "NoSuchOp")).toBe(false);
    expect(lazy.resolve("", "ReduceLogSum", 17)).toEqual(full.resolve("", "ReduceLogSum", 17));
    expect(lazy.versions("", "LogCumSumExp")).toEqual(full.versions("", "LogCumSumExp"));
    expect(lazy.tryResolve("", "Abs", 5)).toEqual(full.tryResolve("", "Abs", 5));
    expect(lazy.operators()).toEqual(full.operators());
    for (const op of full.operators()) {
      const [d, n] = op.includes(".")
        ? [op.slice(0, op.lastIndexOf(".")), op.slice(op.lastIndexOf(".") + 1)]
        : ["", op];
      expect(lazy.versions(d, n), op).toEqual(full.versions(d, n));
    }
    expect(() => lazy.resolve("", "NoSuchOp", 13)).toThrow(/unknown operator 'NoSuchOp'/);
  });

  it("are not taken from an older build's file (one JSON value)", () => {
    const dir = copy();
    const { stamp, texts } = stampSchemaDir(dir);
    const file = join(dir, "..", `${dir.split("/").pop()}.old.json`);
    const operators = texts.map((f) => parseOperatorFile(f.text, f.path));
    writeFileSync(file, JSON.stringify({ stamp, operators }));
    expect(readValidatedSchemas(dir, file)).toBeUndefined();
  });

  it("are not taken once a file changes, even at the same size", () => {
    const dir = copy();
    const { file } = save(dir);
    const path = join(dir, "Abs.json");
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.replace('"name": "Abs"', '"name": "Abz"'));
    expect(readFileSync(path).length).toBe(Buffer.byteLength(text));
    expect(readValidatedSchemas(dir, file)).toBeUndefined();
    writeFileSync(join(dir, "Zzz.json"), text);
    expect(readValidatedSchemas(dir, file)).toBeUndefined();
    expect(readValidatedSchemas(dir, join(dir, "missing.json"))).toBeUndefined();
  });
});

describe("the bundled binary (dist/cli/bin.cjs, scripts/build-cli.mjs)", () => {
  const root = join(import.meta.dirname, "..", "..");
  const bin = join(root, "dist", "cli", "bin.cjs");
  const bundle = join(root, "dist", "cli", "cli.cjs");
  const bundled = existsSync(bundle);
  const runBundle = (args: string[], launcher = bin) => {
    const r = spawnSync(process.execPath, [launcher, ...args], { cwd: root, encoding: "utf8" });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  };

  it.skipIf(!bundled)("answers as the sources do", () => {
    const dir = mkdtempSync(join(tmpdir(), "oe-bundle-"));
    const cases = [
      ["--version"],
      ["-V"],
      ["--verbose", "--version"],
      ["--help"],
      ["info", "examples/reduce-13.onnx"],
      ["schema", "ReduceSum"],
      ["check", "examples/reduce-logsum-l1-18.onnx"],
      ["expand", "examples/reduce-logsum-l1-18.onnx", "--print"],
      ["convert", "examples/reduce-13.onnx", "--opset", "18", "-o", join(dir, "c.onnxtxt")],
      ["print", join(dir, "c.onnxtxt")],
      ["info", "no-such-file.onnx"],
      ["bogus"],
    ];
    for (const args of cases) expect(runBundle(args), args.join(" ")).toEqual(runCli(args));
    // The package's bin is the CommonJS launcher; tsc's ES module one (`node dist/cli/bin.js`)
    // starts the same bundle.
    expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin).toEqual({
      "onnx-expand": "dist/cli/bin.cjs",
    });
    for (const args of [["--version"], ["info", "examples/reduce-13.onnx"], ["bogus"]])
      expect(runBundle(args, join(root, "dist", "cli", "bin.js")), args.join(" ")).toEqual(
        runCli(args),
      );
  });

  it.skipIf(!bundled)("compiles from the build's code cache, and runs without one", () => {
    // A child process: its Node and flags are a user's (vitest's workers have their own).
    const launch = pathToFileURL(join(root, "dist", "cli", "launch.js")).href;
    const probe = (file: string) =>
      JSON.parse(
        spawnSync(
          process.execPath,
          [
            "--input-type=module",
            "-e",
            `const l = await import(${JSON.stringify(launch)});
             const { script, cached } = l.loadBundle(${JSON.stringify(file)});
             console.log(JSON.stringify({ cached, rejected: script.cachedDataRejected ?? null }));`,
          ],
          { encoding: "utf8" },
        ).stdout,
      ) as unknown;
    expect(probe(bundle)).toEqual({ cached: true, rejected: false });

    // A copy of the package whose cache another Node made, is damaged (V8 would take it as it
    // is, and crash), or is older than its bundle: not used, and the same answers.
    const pkg = mkdtempSync(join(tmpdir(), "oe-bundle-cache-"));
    for (const d of ["dist", "schemas", "proto", "examples", "package.json"])
      cpSync(join(root, d), join(pkg, d), { recursive: true, preserveTimestamps: true });
    const copy = join(pkg, "dist", "cli", "cli.cjs");
    const cache = readFileSync(`${copy}.cache`);
    const nl = cache.indexOf(10);
    const run = (args: string[]) =>
      spawnSync(process.execPath, [join(pkg, "dist", "cli", "bin.cjs"), ...args], {
        cwd: root,
        encoding: "utf8",
      });
    const info = ["info", "examples/reduce-13.onnx"];
    const want = runCli(info);
    const same = { status: 0, stdout: want.stdout, stderr: want.stderr };
    const otherNode = cache
      .subarray(0, nl)
      .toString()
      .replace(/"v[\d.]+"/, '"v0.0.0"');
    writeFileSync(`${copy}.cache`, Buffer.concat([Buffer.from(otherNode), cache.subarray(nl)]));
    expect(probe(copy)).toEqual({ cached: false, rejected: null });
    expect(run(info)).toMatchObject(same);
    const damaged = Buffer.from(cache);
    damaged.fill(7, nl + 1 + 64, nl + 1 + 4096);
    writeFileSync(`${copy}.cache`, damaged);
    expect(probe(copy)).toEqual({ cached: false, rejected: null });
    expect(run(info)).toMatchObject(same);
    writeFileSync(`${copy}.cache`, cache);
    expect(probe(copy)).toEqual({ cached: true, rejected: false });
    writeFileSync(
      copy,
      readFileSync(copy, "utf8").replace(`name("onnx-expand")`, `name("onnx-expanD")`),
    );
    expect(probe(copy)).toEqual({ cached: false, rejected: null });
    expect(run(["--help"]).stdout).toContain("onnx-expanD");
  });

  it.skipIf(!bundled)("runs a large float32 .pb input read into kernel memory", () => {
    const dir = mkdtempSync(join(tmpdir(), "oe-bundle-run-"));
    const cols = 1 << 19;
    const x = Float32Array.from({ length: 2 * cols }, (_, i) => (i % 7) - 3);
    const m = model(
      graph({
        name: "r",
        nodes: [node("ReduceSum", ["x", "axes"], ["y"], { keepdims: 1 })],
        inputs: [valueInfo("x", "float", [2, cols])],
        outputs: [valueInfo("y", "float", [2, 1])],
        initializers: [Tensor.from(DataType.INT64, [1], [1n], "axes")],
      }),
      18,
    );
    writeFileSync(join(dir, "m.onnx"), encodeModel(m));
    const raw = { kind: "raw" as const, bytes: new Uint8Array(x.buffer) };
    writeFileSync(
      join(dir, "x.pb"),
      encodeTensorBytes(new Tensor(DataType.FLOAT, [2, cols], raw, "x")),
    );
    const args = (out: string) => [
      "run",
      join(dir, "m.onnx"),
      join(dir, "x.pb"),
      "--output-dir",
      join(dir, out),
    ];
    const ours = runBundle(args("a"));
    expect(ours).toEqual(runCli(args("b")));
    expect(ours.code).toBe(0);
    let sum = 0;
    for (let i = 0; i < cols; i++) sum += x[i]!;
    expect(ours.stdout).toContain(`y: float [2,1] = ${sum}`);
    expect(readFileSync(join(dir, "a", "output_0.pb"))).toEqual(
      readFileSync(join(dir, "b", "output_0.pb")),
    );
  });
});

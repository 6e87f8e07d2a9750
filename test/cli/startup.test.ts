// Start-up: the binary loads only the command modules a command line needs (program.ts), and
// the registry takes the build's validated schemas while schemas/ is unchanged (files.node.ts).

import { mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { COMMAND_MODULES, createProgram, modulesFor } from "../../src/cli/program.js";
import {
  defaultSchemaDir,
  readValidatedSchemas,
  stampSchemaDir,
} from "../../src/schema/files.node.js";
import { parseOperatorFile } from "../../src/schema/registry.js";

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

describe("schemas validated at build time", () => {
  const copy = () => {
    const dir = mkdtempSync(join(tmpdir(), "oe-schemas-"));
    cpSync(defaultSchemaDir(), dir, { recursive: true, preserveTimestamps: true });
    return dir;
  };
  const save = (dir: string) => {
    const { stamp, texts } = stampSchemaDir(dir);
    const file = join(dir, "..", `${dir.split("/").pop()}.validated.json`);
    const operators = texts.map((f) => parseOperatorFile(f.text, f.path));
    writeFileSync(file, JSON.stringify({ stamp, operators }));
    return { file, operators };
  };

  it("are taken while the folder is unchanged, or holds the same texts under new times", () => {
    const dir = copy();
    const { file, operators } = save(dir);
    const got = readValidatedSchemas(dir, file)!;
    expect(got.map((f) => f.json)).toEqual(operators);
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

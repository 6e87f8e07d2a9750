// `onnx-expand convert` as a user runs it: exit codes, nothing written on failure, --plan
// (text and JSON), --list-adapters, many models with --output-dir and --jobs.

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
import { beforeAll, describe, expect, it } from "vitest";
import { checkModel } from "../../src/check/index.js";
import { loadModel } from "../../src/io/files.js";
import { runCli } from "../helpers/cli.js";
import { NEWEST_OPSET } from "../helpers/registry.js";

let dir: string;
const OK = `<ir_version: 7, opset_import: ["" : 12]>
g (float[2,3] x) => (float[2] y) { [r] y = ReduceSum <axes: ints = [1], keepdims: int = 0> (x) }`;
const BLOCKED = `<ir_version: 7, opset_import: ["" : 13]>
g (float[2,3] x, int64[1] a) => (float[?] y, float[?] z) {
  [r1] y = ReduceSum (x, a)
  [r2] z = ReduceSum (y, a) }`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "convert-cli-"));
  writeFileSync(join(dir, "ok.onnxtxt"), OK);
  writeFileSync(join(dir, "blocked.onnxtxt"), BLOCKED);
  mkdirSync(join(dir, "other"));
  writeFileSync(join(dir, "other", "ok.onnxtxt"), OK);
});

describe("convert MODEL --opset N -o OUT", () => {
  it("lists at most 100 blocked nodes on stderr and counts the rest", () => {
    const lines = Array.from({ length: 150 }, (_, i) => `  y${i} = ReduceSum (x, a)`);
    const file = join(dir, "many.onnxtxt");
    writeFileSync(
      file,
      `<ir_version: 7, opset_import: ["" : 13]>
g (float[2,3] x, int64[1] a) => (float[?] y149) {
${lines.join("\n")}
}`,
    );
    const r = runCli(["convert", file, "--opset", "11", "-o", join(dir, "many.onnx")]);
    expect(r.code).toBe(1);
    const err = r.stderr.trim().split("\n");
    expect(err[0]).toMatch(/150 nodes blocked; nothing written/);
    expect(err).toHaveLength(102);
    expect(err[101]).toMatch(/and 50 more blocked nodes/);
    expect(existsSync(join(dir, "many.onnx"))).toBe(false);
  });

  it("refuses a model importing an ai.onnx opset beyond any known, at once (fuzzing found 2^31 - 1 stepping for minutes)", () => {
    for (const [version, where] of [
      ["2147483647", "the model"],
      ["0", "the model"],
    ] as const) {
      const file = join(dir, `opset-${version}.onnxtxt`);
      writeFileSync(
        file,
        `<ir_version: 7, opset_import: ["" : ${version}]>\ng (uint32[3] x, uint32[3] y) => (uint32[3] z) { z = Sub (x, y) }`,
      );
      for (const cmd of [
        ["convert", file, "--opset", "18", "-o", join(dir, "never.onnx")],
        ["expand", file, "--opset", "18", "-o", join(dir, "never.onnx")],
      ]) {
        const r = runCli(cmd);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr.trim().split("\n")).toEqual([
          `onnx-expand: error: ${file}: ${where} imports ai.onnx opset ${version}, which is not one this tool knows (1 to ${NEWEST_OPSET})`,
        ]);
        expect(existsSync(join(dir, "never.onnx"))).toBe(false);
      }
    }
  });

  it("writes a model that checks at the target opset", () => {
    const out = join(dir, "ok18.onnx");
    const r = runCli(["convert", join(dir, "ok.onnxtxt"), "--opset", "18", "-o", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const m = loadModel(out);
    expect(m.opsetImports).toEqual([{ domain: "", version: 18 }]);
    expect(checkModel(m).ok).toBe(true);
  });

  it("a blocked conversion exits 1, names every blocked node, and writes nothing", () => {
    const out = join(dir, "never.onnx");
    const r = runCli(["convert", join(dir, "blocked.onnxtxt"), "--opset", "12", "-o", out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/2 nodes blocked; nothing written/);
    expect(r.stderr).toMatch(
      /graph > node 'r1' \(ReduceSum\): ReduceSum 13 -> 11 \(opset 13 -> 12\): input 'a' \(axes\) is computed at run time/,
    );
    expect(r.stderr).toMatch(/node 'r2'/);
    expect(existsSync(out)).toBe(false);
  });

  it("-o equal to the input needs --force, and a failure leaves the input untouched", () => {
    const input = join(dir, "blocked.onnxtxt");
    const r1 = runCli(["convert", input, "--opset", "12", "-o", input]);
    expect(r1.code).toBe(1); // refused by the plan before anything is written
    const r2 = runCli(["convert", input, "--opset", "12", "-o", input, "--force"]);
    expect(r2.code).toBe(1);
    expect(readFileSync(input, "utf8")).toBe(BLOCKED);
    const okIn = join(dir, "ok-copy.onnxtxt");
    writeFileSync(okIn, OK);
    expect(runCli(["convert", okIn, "--opset", "13", "-o", okIn]).code).toBe(2);
    expect(readFileSync(okIn, "utf8")).toBe(OK);
  });

  it("bad usage exits 2", () => {
    expect(runCli(["convert", join(dir, "ok.onnxtxt"), "-o", join(dir, "x.onnx")]).code).toBe(2);
    expect(runCli(["convert", join(dir, "ok.onnxtxt"), "--opset", "99", "-o", "x.onnx"]).code).toBe(
      2,
    );
    expect(
      runCli([
        "convert",
        join(dir, "ok.onnxtxt"),
        join(dir, "blocked.onnxtxt"),
        "--opset",
        "13",
        "-o",
        "x.onnx",
      ]).code,
    ).toBe(2);
  });
});

describe("convert --plan", () => {
  it("prints the plan in text and JSON and writes nothing", () => {
    const r = runCli(["convert", join(dir, "ok.onnxtxt"), "--opset", "18", "--plan"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ai.onnx opset 12 -> 18, IR 7 -> 8/);
    expect(r.stdout).toMatch(
      /adapt  graph > node 'r' \(ReduceSum\): ReduceSum 11 -> 13 \(opset 12 -> 13\)/,
    );
    const j = runCli([
      "convert",
      join(dir, "blocked.onnxtxt"),
      "--opset",
      "11",
      "--plan",
      "--json",
    ]);
    expect(j.code).toBe(1);
    const plan = JSON.parse(j.stdout);
    expect(plan.ok).toBe(false);
    expect(plan.blocked.map((b: { where: string }) => b.where)).toEqual([
      "graph > node 'r1' (ReduceSum)",
      "graph > node 'r2' (ReduceSum)",
    ]);
  });
});

describe("convert --list-adapters", () => {
  it("lists the rows and the breaking steps without one", () => {
    const r = runCli(["convert", "--list-adapters"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ReduceSum 11 -> 13 +axes attribute -> constant int64 input/);
    expect(r.stdout).toMatch(/breaking steps without an adapter/);
  });
});

describe("convert MODEL... --output-dir DIR", () => {
  for (const jobs of ["1", "2"])
    it(`goes on past failures, one line each, a summary, exit 1 (--jobs ${jobs})`, () => {
      const out = mkdtempSync(join(tmpdir(), "convert-out-"));
      const r = runCli([
        "convert",
        join(dir, "ok.onnxtxt"),
        join(dir, "blocked.onnxtxt"),
        "--opset",
        "12",
        "--output-dir",
        out,
        "--jobs",
        jobs,
      ]);
      expect(r.code).toBe(1);
      const lines = r.stdout.trim().split("\n");
      expect(lines).toHaveLength(3);
      expect(lines.some((l) => l.startsWith("ok: ") && l.includes("ok.onnxtxt"))).toBe(true);
      expect(lines.some((l) => /^refused: .*blocked\.onnxtxt: graph > node 'r1'/.test(l))).toBe(
        true,
      );
      expect(lines[2]).toBe("1 converted, 1 refused");
      expect(readdirSync(out)).toEqual(["ok.onnxtxt"]);
    });

  it("two inputs with the same basename are refused before anything is written", () => {
    const out = mkdtempSync(join(tmpdir(), "convert-out-"));
    const a = join(dir, "ok.onnxtxt");
    const b = join(dir, "other", "ok.onnxtxt");
    const r = runCli(["convert", a, b, "--opset", "13", "--output-dir", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(a);
    expect(r.stderr).toContain(b);
    expect(readdirSync(out)).toEqual([]);
  });
});

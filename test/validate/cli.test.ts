// expand and convert refuse what the checker rejects where a rewrite would be wrong (exit 2, one
// line naming the problem, nothing written), and still take contrib ops (issue 16, item 5).

import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadModel } from "../../src/io/files.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { CONTRIB, INVALID } from "./cases.js";

const dir = mkdtempSync(join(tmpdir(), "onnx-expand-validate-"));
const file = (name: string, text: string): string => {
  const path = join(dir, `${name.replace(/\W+/g, "-")}.onnxtxt`);
  writeFileSync(path, text);
  return path;
};

describe("expand and convert refuse invalid input", () => {
  for (const [name, c] of Object.entries(INVALID)) {
    it(name, () => {
      const input = file(name, c.text);
      expect(runCli(["check", input]).code).toBe(1);
      for (const args of [
        ["expand", input, "-o", join(dir, "e.onnx")],
        ["convert", input, "--opset", "17", "-o", join(dir, "c.onnx")],
      ]) {
        const r = runCli(args);
        expectOneLineError(r, c.names);
        expect(r.stdout).toBe("");
        expect(existsSync(args[args.length - 1]!)).toBe(false);
      }
    });
  }

  it("a com.microsoft op is not refused: it expands to ai.onnx, and the model converts", () => {
    const input = file("contrib", CONTRIB);
    const e = join(dir, "contrib-e.onnx");
    const r = runCli(["expand", input, "-o", e]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const ops = loadModel(e).graph.nodes.map((n) => n.opType);
    // com.microsoft's Gelu has a body (0.5 x (1 + erf(x / sqrt 2))); Relu-14 is a function op.
    expect(ops).toContain("Erf");
    expect(ops).not.toContain("Gelu");
    expect(ops).not.toContain("Relu");
    expect(loadModel(e).opsetImports.map((o) => o.domain)).toEqual([""]);
    const c = join(dir, "contrib-c.onnx");
    expect(runCli(["convert", input, "--opset", "17", "-o", c]).code).toBe(0);
    expect(loadModel(c).opsetImports).toContainEqual({ domain: "", version: 17 });
  });
});

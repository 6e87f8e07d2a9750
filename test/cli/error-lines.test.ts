// Error lines stay short and say the right thing: echoed text is capped, a deeply nested JSON
// input is named as such, and run refuses an opset check refuses.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errorLine, MAX_ECHO, MAX_ERROR_LINE } from "../../src/cli/util.js";
import { runCli } from "../helpers/cli.js";

const tmp = () => mkdtempSync(join(tmpdir(), "onnx-expand-errlines-"));
const NEG = (opset: number) =>
  `<ir_version: 8, opset_import: ["" : ${opset}]>\ng (float[2] x) => (float[2] y) {\n  y = Neg (x)\n}\n`;

describe("error lines", () => {
  it("cap quoted text at MAX_ECHO characters with … and the line at MAX_ERROR_LINE", () => {
    const big = "x".repeat(1 << 20);
    const line = errorLine(`node 'n' (Foo): value '${big}' is bad`);
    expect(line).toBe(`node 'n' (Foo): value '${"x".repeat(MAX_ECHO)}…' is bad`);
    expect(errorLine("y".repeat(5000)).length).toBe(MAX_ERROR_LINE + 1);
    expect(errorLine("short 'name' stays")).toBe("short 'name' stays");
  });

  it("a 1 MB identifier gives a short error line from check and run", () => {
    const d = tmp();
    const f = join(d, "m.onnxtxt");
    const op = "Q".repeat(1 << 20);
    writeFileSync(
      f,
      `<ir_version: 8, opset_import: ["" : 13]>\ng (float[2] x) => (float[2] y) {\n  y = ${op} (x)\n}\n`,
    );
    const c = runCli(["check", f]);
    expect(c.code).toBe(1);
    for (const l of c.stdout.trim().split("\n"))
      expect(l.length).toBeLessThan(MAX_ERROR_LINE + 200);
    expect(c.stdout).toContain(`${"Q".repeat(MAX_ECHO)}…`);
    const r = runCli(["run", f, "x=json:[1,2]"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr.length).toBeLessThan(MAX_ERROR_LINE + 200);
  }, 240_000);

  it("a JSON input nested 60,000 deep is reported as JSON nesting, not the model's", () => {
    const d = tmp();
    const f = join(d, "m.onnxtxt");
    writeFileSync(f, NEG(13));
    const r = runCli(["run", f, `x=json:${"[".repeat(60000)}${"]".repeat(60000)}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/model is nested/);
    expect(r.stderr).toMatch(/^onnx-expand: error: input 'x': JSON arrays nest more than 64 deep/);
  }, 240_000);

  it("run refuses an opset newer than any known, as check does", () => {
    const d = tmp();
    const f = join(d, "m.onnxtxt");
    writeFileSync(f, NEG(100000));
    for (const r of [runCli(["check", f]), runCli(["run", f, "x=json:[1,2]"])]) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/imports ai\.onnx opset 100000, which is not one this tool knows/);
    }
  }, 240_000);
});

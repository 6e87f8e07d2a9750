// The memory budget: small models that ask for gigabytes end with one line naming the node, the
// bytes needed and the budget, before anything large is allocated. Every run happens in a child
// process with a small V8 heap and a time limit, so a budget that does not hold fails the test
// instead of taking the machine's memory.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { saveModel } from "../../src/io/files.js";
import { parseModelText } from "../../src/text/parse.js";
import { runCli } from "../helpers/cli.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const tmp = () => mkdtempSync(join(tmpdir(), "onnx-expand-memory-"));

const H = '<ir_version: 8, opset_import: ["" : 18]>\n';
const one = (body: string) => `${H}g () => (float[?] y) {\n${body}\n}\n`;

/** One-node (or one-loop) models of a few hundred bytes that each ask for gigabytes. */
const HUNGRY: Record<string, string> = {
  expand: one(`x = Constant <value = float[1] {1}> ()
  s = Constant <value = int64[2] {46000, 46000}> ()
  y = Expand (x, s)`),
  tile: one(`x = Constant <value = float[2] {1, 2}> ()
  r = Constant <value = int64[1] {500000000}> ()
  y = Tile (x, r)`),
  onehot: one(`x = Constant <value = int64[2] {1, 2}> ()
  d = Constant <value = int64[1] {1000000000}> ()
  v = Constant <value = float[2] {0, 1}> ()
  y = OneHot (x, d, v)`),
  constantofshape: one(`s = Constant <value = int64[1] {2147483647}> ()
  y = ConstantOfShape (s)`),
  range: one(`a = Constant <value = float {0}> ()
  b = Constant <value = float {2000000000}> ()
  c = Constant <value = float {1}> ()
  y = Range (a, b, c)`),
  pad: one(`x = Constant <value = float[2] {1, 2}> ()
  p = Constant <value = int64[2] {0, 2000000000}> ()
  y = Pad (x, p)`),
  resize: one(`x = Constant <value = float[1,1,2,2] {1, 2, 3, 4}> ()
  s = Constant <value = float[4] {1, 1, 20000, 20000}> ()
  y = Resize <mode = "nearest"> (x, , s)`),
  hannwindow: one(`n = Constant <value = int64 {2000000000}> ()
  y = HannWindow (n)`),
  // A reduction over an empty input whose output is huge: [1e8, 0, 4] → [1e8, 4].
  reduction: one(`x = Constant <value = float[100000000,0,4] {}> ()
  a = Constant <value = int64[1] {1}> ()
  y = ReduceSum <keepdims = 0> (x, a)`),
  // 100,000 iterations each emitting float[100000]: 40 GB of scan outputs in all.
  "loop-scan-outputs": one(`m = Constant <value = int64 {100000}> ()
  c = Constant <value = bool {1}> ()
  k = Constant <value = int64[1] {100000}> ()
  y = Loop (m, c) <body = b (int64 i, bool ci) => (bool co, float[100000] s) {
    co = Identity (ci)
    s = ConstantOfShape <value = float[1] {1}> (k)
  }>`),
  // A loop-carried tensor doubled by Concat on each of 64 iterations.
  "loop-concat-doubling": one(`x = Constant <value = float[1] {1}> ()
  m = Constant <value = int64 {64}> ()
  c = Constant <value = bool {1}> ()
  y = Loop (m, c, x) <body = b (int64 i, bool ci, float[?] a) => (bool co, float[?] a2) {
    co = Identity (ci)
    a2 = Concat <axis = 0> (a, a)
  }>`),
};

interface Outcome {
  file: string;
  ok: boolean;
  message: string;
}

/** Runs models through the library in a child process with a 256 MB heap and a time limit. */
function runBudgeted(budget: number | "none", files: string[]): Outcome[] {
  const r = spawnSync(
    process.execPath,
    [
      "--max-old-space-size=256",
      "--import",
      tsx,
      join(root, "test/helpers/run-budgeted.ts"),
      String(budget),
      ...files,
    ],
    { cwd: root, encoding: "utf8", timeout: 120_000, maxBuffer: 16 << 20 },
  );
  expect(r.signal, `child ended by ${r.signal}: ${r.stderr}`).toBeNull();
  expect(r.status, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Outcome);
}

const BUDGET = 64 * 2 ** 20;

describe("memory budget", () => {
  it("stops every hungry one-node model before it allocates, naming node, bytes and budget", () => {
    const d = tmp();
    const files = Object.entries(HUNGRY).map(([name, text]) => {
      const f = join(d, `${name}.onnxtxt`);
      writeFileSync(f, text);
      return f;
    });
    const outcomes = runBudgeted(BUDGET, files);
    expect(outcomes).toHaveLength(files.length);
    for (const o of outcomes) {
      expect(o.ok, o.file).toBe(false);
      expect(o.message, o.file).toMatch(
        /^node .*: needs \d+ bytes .* over the memory budget of 67108864 bytes \(64\.0 MiB\) \(--max-memory\)$/,
      );
      expect(o.message.split("\n")).toHaveLength(1);
    }
  }, 180_000);

  it("holds values on the JavaScript heap (strings) to V8's heap limit even without a budget", () => {
    const d = tmp();
    const f = join(d, "strings.onnxtxt");
    writeFileSync(
      f,
      `${H}g () => (string[?] y) {
  x = Constant <value = string[1] {"abc"}> ()
  s = Constant <value = int64[1] {50000000}> ()
  y = Expand (x, s)
}\n`,
    );
    const [o] = runBudgeted("none", [f]);
    expect(o!.ok).toBe(false);
    expect(o!.message).toMatch(
      /^node .*\(Expand\): needs \d+ bytes .*of JavaScript heap.*heap budget/,
    );
  }, 180_000);

  it("run --max-memory and test --max-memory: one line, exit 2 / a FAIL line", () => {
    const d = tmp();
    const f = join(d, "expand.onnxtxt");
    writeFileSync(f, HUNGRY.expand!);
    const r = runCli(["run", f, "--max-memory", "64M"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^onnx-expand: error: node #2 \(Expand\): needs 8464000000 bytes \(7\.9 GiB\) .*over the memory budget of 67108864 bytes/,
    );
    const t = join(d, "case");
    mkdirSync(join(t, "test_data_set_0"), { recursive: true });
    saveModel(parseModelText(HUNGRY.expand!), join(t, "model.onnx"));
    const tr = runCli(["test", t, "--max-memory", "64M"]);
    expect(tr.code).toBe(1);
    expect(tr.stdout).toMatch(/FAIL .*over the memory budget of 67108864 bytes/);
    const bad = runCli(["run", f, "--max-memory", "lots"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-memory must be a positive number of bytes/);
  }, 120_000);

  it("check --max-memory warns where a statically known size is over the budget; without it, nothing", () => {
    const d = tmp();
    const f = join(d, "expand.onnxtxt");
    writeFileSync(f, HUNGRY.expand!.replace("float[?] y", "float[?,?] y"));
    const r = runCli(["check", f, "--max-memory", "64M"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /warning: node #2 \(Expand\): output 'y' is float\[46000,46000\], 8464000000 bytes \(7\.9 GiB\), over --max-memory 67108864 bytes/,
    );
    const plain = runCli(["check", f]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(`ok: ${f}\n`);
    const json = JSON.parse(runCli(["check", f, "--json", "--max-memory", "64M"]).stdout);
    expect(json.warnings).toHaveLength(1);
  }, 240_000);
});

// int64 values past 2^53 in a model: computation saturates them (clampToNumber), but every message
// quotes the model's own digits — never 9007199254740991 for 9223372036854775807, nor …992 for
// …993, nor 1e+23 for the integer the user wrote.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { encodeModel } from "../../src/io/codec.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";

const H = `<ir_version: 10, opset_import: ["" : 21]>`;
const dir = mkdtempSync(join(tmpdir(), "int64-messages-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(dir, `${name}.onnx`);
  writeFileSync(path, encodeModel(parseModelText(`${H}\n${text}`)));
  return path;
}

const SATURATED = /9007199254740991|9007199254740992/;

/** [name, model, digits every message must quote, whether check reports it]. */
const CASES: [string, string, string, boolean][] = [
  [
    "an axis attribute of 9223372036854775807",
    `g (float[2,3] x) => (float[2,3] y) {
  y = Softmax <axis = 9223372036854775807> (x)
}`,
    "axis 9223372036854775807 is out of range",
    true,
  ],
  [
    "a Concat axis of -9223372036854775808",
    `g (float[2,3] x) => (float[?,?] y) {
  y = Concat <axis = -9223372036854775808> (x, x)
}`,
    "axis -9223372036854775808 is out of range",
    true,
  ],
  [
    "a Reshape shape constant with 9007199254740993",
    `g (float[2,3] x) => (float[?,?] y) {
  s = Constant <value = int64[2] {9007199254740993, 1}> ()
  y = Reshape (x, s)
}`,
    "[9007199254740993,1]",
    true,
  ],
  [
    "a Slice start of -9223372036854775808 on an axis of 9007199254740993",
    `g (float[2,3] x) => (float[?,?] y) {
  st = Constant <value = int64[1] {-9223372036854775808}> ()
  en = Constant <value = int64[1] {2}> ()
  ax = Constant <value = int64[1] {9007199254740993}> ()
  y = Slice (x, st, en, ax)
}`,
    "axis 9007199254740993 is out of range",
    true,
  ],
  [
    "a Gather index of 9007199254740993",
    `g (float[2,3] x) => (float[1,3] y) {
  i = Constant <value = int64[1] {9007199254740993}> ()
  y = Gather <axis = 0> (x, i)
}`,
    "index 9007199254740993 is out of range for axis 0 of size 2",
    false,
  ],
  [
    "a GatherElements index of -9223372036854775808",
    `g (float[2,3] x) => (float[1,3] y) {
  i = Constant <value = int64[1,3] {0, -9223372036854775808, 1}> ()
  y = GatherElements <axis = 0> (x, i)
}`,
    "index -9223372036854775808 is out of range for axis 0 of size 2",
    false,
  ],
  [
    "a GatherND index of 9223372036854775807",
    `g (float[2,3] x) => (float[1] y) {
  i = Constant <value = int64[1,2] {1, 9223372036854775807}> ()
  y = GatherND (x, i)
}`,
    "index 9223372036854775807 is out of range for axis 1 of size 3",
    false,
  ],
  [
    "Unsqueeze axes of 9007199254740993",
    `g (float[2,3] x) => (float[?,?,?] y) {
  a = Constant <value = int64[1] {9007199254740993}> ()
  y = Unsqueeze (x, a)
}`,
    "axis 9007199254740993 is out of range",
    true,
  ],
  [
    "Squeeze axes of 9007199254740993",
    `g (float[2,3] x) => (float[?] y) {
  a = Constant <value = int64[1] {9007199254740993}> ()
  y = Squeeze (x, a)
}`,
    "axis 9007199254740993 is out of range",
    true,
  ],
  [
    "ReduceSum axes of 9007199254740993",
    `g (float[2,3] x) => (float[?] y) {
  a = Constant <value = int64[1] {9007199254740993}> ()
  y = ReduceSum (x, a)
}`,
    "axis 9007199254740993 ",
    true,
  ],
  [
    "an Expand shape of -9223372036854775808",
    `g (float[2,3] x) => (float[?,?] y) {
  a = Constant <value = int64[2] {-9223372036854775808, 3}> ()
  y = Expand (x, a)
}`,
    "shape [-9223372036854775808,3] has a negative dimension",
    true,
  ],
  [
    "a ConstantOfShape shape of -9223372036854775808",
    `g (float[2,3] x) => (float[?,?] y) {
  a = Constant <value = int64[2] {-9223372036854775808, 1}> ()
  y = ConstantOfShape (a)
}`,
    "shape [-9223372036854775808,1] has a negative dimension",
    true,
  ],
  [
    "Tile repeats of -9223372036854775808",
    `g (float[2,3] x) => (float[?,?] y) {
  a = Constant <value = int64[2] {-9223372036854775808, 1}> ()
  y = Tile (x, a)
}`,
    "repeats [-9223372036854775808,1] has a negative entry",
    true,
  ],
  [
    "TopK k of 9007199254740993",
    `g (float[2,3] x) => (float[?,?] y, int64[?,?] i) {
  a = Constant <value = int64[1] {9007199254740993}> ()
  y, i = TopK (x, a)
}`,
    "k = 9007199254740993 is out of range",
    true,
  ],
  [
    "Split sizes of 9007199254740993",
    `g (float[2,3] x) => (float[?,?] y, float[?,?] z) {
  a = Constant <value = int64[2] {9007199254740993, 1}> ()
  y, z = Split <axis = 1> (x, a)
}`,
    "split sizes [9007199254740993,1] do not add up",
    true,
  ],
  [
    "a Transpose perm of 9007199254740993",
    `g (float[2,3] x) => (float[?,?] y) {
  y = Transpose <perm = [9007199254740993, 0]> (x)
}`,
    "9007199254740993",
    true,
  ],
  [
    "Pad pads of -9007199254740993",
    `g (float[2,3] x) => (float[?,?] y) {
  p = Constant <value = int64[4] {0, 0, -9007199254740993, 0}> ()
  y = Pad (x, p)
}`,
    "pads [0,0,-9007199254740993,0] remove more",
    true,
  ],
  [
    "a Flatten axis of 9007199254740993",
    `g (float[2,3] x) => (float[?,?] y) {
  y = Flatten <axis = 9007199254740993> (x)
}`,
    "axis 9007199254740993 is out of range",
    true,
  ],
];

describe("messages quote a model's int64 values exactly", () => {
  for (const [name, text, digits, checked] of CASES) {
    it(`${name}: run names ${digits}`, () => {
      const path = write(name.replace(/\W+/g, "-"), text);
      const r = runCli(["run", path, "--random"]);
      expectOneLineError(r, new RegExp(digits.replace(/[[\]().]/g, "\\$&")));
      expect(r.stderr).not.toMatch(SATURATED);
      if (!checked) return;
      const c = runCli(["check", path]);
      expect(c.code).toBe(1);
      expect(c.stdout).toContain(digits);
      expect(c.stdout + c.stderr).not.toMatch(SATURATED);
    });
  }

  it("a Reshape's element count is the model's product, not a saturated one", () => {
    const path = write("reshape-count", CASES[2]![1]);
    const c = runCli(["check", path]);
    expect(c.stdout).toContain("to [9007199254740993,1] (9007199254740993 elements)");
  });

  it("a Slice start of -9223372036854775808 still computes (it clamps to the axis' start)", () => {
    const path = write(
      "slice-min",
      `g (float[2,3] x) => (float[?,?] y) {
  st = Constant <value = int64[1] {-9223372036854775808}> ()
  en = Constant <value = int64[1] {9223372036854775807}> ()
  ax = Constant <value = int64[1] {1}> ()
  y = Slice (x, st, en, ax)
}`,
    );
    expect(runCli(["check", path]).code).toBe(0);
    const r = runCli(["run", path, "x=json:[[1,2,3],[4,5,6]]"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("y: float [2,3] = 1, 2, 3, 4, 5, 6");
  });

  it("an int64 input given as a JSON number too large to be exact is quoted as written", () => {
    const path = write(
      "gather-input",
      `g (float[2,3] x, int64[1] i) => (float[1,3] y) {
  y = Gather <axis = 0> (x, i)
}`,
    );
    const x = "x=json:[[1,2,3],[4,5,6]]";
    for (const [lit, shown] of [
      ["9007199254740993", "9007199254740993"],
      ["100000000000000000000000", "100000000000000000000000"],
      ["1e23", "1e23"],
    ]) {
      const r = runCli(["run", path, x, `i=json:[${lit}]`]);
      expectOneLineError(r, new RegExp(`element 0 \\(${shown}\\) is too large to be exact`));
    }
    // Strings keep the precision: the index itself is then quoted exactly.
    const r = runCli(["run", path, x, 'i=json:["9007199254740993"]']);
    expectOneLineError(r, /index 9007199254740993 is out of range for axis 0 of size 2/);
    // An int32 input quotes the literal too, not 1e+23.
    const p32 = write(
      "gather-int32",
      `g (float[2,3] x, int32[1] i) => (float[1,3] y) {
  y = Gather <axis = 0> (x, i)
}`,
    );
    const r32 = runCli(["run", p32, x, "i=json:[100000000000000000000000]"]);
    expectOneLineError(r32, /element 0 \(100000000000000000000000\) is out of range for int32/);
  });
});

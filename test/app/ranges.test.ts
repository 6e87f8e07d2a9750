// Declared input ranges (`lower --input-range NAME=LO:HI`): the syntax, the checks against the
// model (each a one-line usage error, exit 2, nothing written), and `lower --target webgpu` on a
// small model whose int64 mask is cast: the Cast unsupported without the range, a table lookup
// with it, the same numbers on onnxruntime-node for every mask within the range, the ranges said in
// the report, the --json and the model's metadata.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  checkInputRanges,
  drawWithinRanges,
  formatInputRanges,
  parseInputRanges,
  RANGES_KEY,
} from "../../src/app/ranges.js";
import type { RTensor } from "../../src/interp/types.js";
import { loadModel } from "../../src/io/files.js";
import { DataType } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { runOrt } from "../helpers/ort.js";

const text = `<ir_version: 8, opset_import: ["" : 17]>
g (int64[1,4] attention_mask, float[1,4] x) => (float[1,4] y) {
  m = Cast <to = 1> (attention_mask)
  y = Mul (x, m)
}`;
const model = parseModelText(text);

describe("parseInputRanges", () => {
  it("reads NAME=LO:HI items, across several texts, negative bounds too", () => {
    const r = parseInputRanges("attention_mask=0:1, position_ids = 0 : 63", "t=-5:-2");
    expect([...r]).toEqual([
      ["attention_mask", { lo: 0, hi: 1 }],
      ["position_ids", { lo: 0, hi: 63 }],
      ["t", { lo: -5, hi: -2 }],
    ]);
    expect(formatInputRanges(r)).toBe("attention_mask=0:1,position_ids=0:63,t=-5:-2");
  });
  it("refuses LO > HI, bounds that are not integers, a missing bound, two ranges for a name", () => {
    expect(() => parseInputRanges("m=2:1")).toThrow(/input range 'm=2:1': LO 2 > HI 1/);
    expect(() => parseInputRanges("m=0:1.5")).toThrow(/not NAME=LO:HI with integer LO and HI/);
    expect(() => parseInputRanges("m=0")).toThrow(/not NAME=LO:HI/);
    expect(() => parseInputRanges("=0:1")).toThrow(/not NAME=LO:HI/);
    expect(() => parseInputRanges("m=0:99999999999999999999")).toThrow(/too large/);
    expect(() => parseInputRanges("m=0:1,m=0:2")).toThrow(/given two ranges, 0:1 and 0:2/);
  });
  it("checks each range names an integer input of the model", () => {
    expect(() => checkInputRanges(model, parseInputRanges("mask=0:1"))).toThrow(
      /the model has no input 'mask' \(it has: attention_mask, x\)/,
    );
    expect(() => checkInputRanges(model, parseInputRanges("x=0:1"))).toThrow(
      /input 'x' is float, not an integer tensor/,
    );
    expect(() => checkInputRanges(model, parseInputRanges("attention_mask=0:1"))).not.toThrow();
  });
  it("draws the ranged inputs within their ranges, the others as they were", () => {
    const ids = { dtype: DataType.INT64, shape: [1, 50], data: new BigInt64Array(50).fill(99n) };
    const x = { dtype: DataType.FLOAT, shape: [1], data: new Float32Array([2]) };
    const out = drawWithinRanges({ ids, x }, new Map([["ids", { lo: -2, hi: 3 }]]), 7);
    const drawn = [...(out.ids as RTensor).data].map(Number);
    expect(Math.min(...drawn)).toBe(-2);
    expect(Math.max(...drawn)).toBe(3);
    expect(out.x).toBe(x);
  });
});

describe("lower --input-range", () => {
  const dir = mkdtempSync(join(tmpdir(), "input-range-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "mask.onnxtxt");
  writeFileSync(file, text);

  it("refuses a bad range with one line, exit 2, and writes nothing", () => {
    const out = join(dir, "bad.onnx");
    const cases: [string, RegExp][] = [
      ["mask=0:1", /no input 'mask'/],
      ["x=0:1", /input 'x' is float, not an integer tensor/],
      ["attention_mask=1:0", /LO 1 > HI 0/],
      ["attention_mask=0:0.5", /integer LO and HI/],
    ];
    for (const [range, pattern] of cases) {
      const r = runCli(["lower", file, "--target", "webgpu", "--input-range", range, "-o", out]);
      expectOneLineError(r, pattern);
      expect(existsSync(out)).toBe(false);
    }
  });

  it("without the range the Cast stays unsupported; with it, a table: the same numbers within the range", async () => {
    const plain = join(dir, "plain.onnx");
    const a = runCli(["lower", file, "--target", "webgpu", "-o", plain]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/unsupported: .*\(Cast\)/);
    expect(a.stdout).toMatch(/hint: --input-range attention_mask=LO:HI declares the values/);
    const ranged = join(dir, "ranged.onnx");
    const lowerRanged = (...more: string[]) =>
      runCli(["lower", file, "--target", "webgpu", "--input-range", "attention_mask=0:1", ...more]);
    const b = lowerRanged("-o", ranged);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/input ranges: attention_mask=0:1 \(declared/);
    expect(b.stdout).toMatch(/target webgpu@\d+: 2 of 2 nodes supported/);
    expect(b.stdout).not.toMatch(/hint:/);
    const lowered = loadModel(ranged);
    expect(lowered.graph.nodes.map((n) => n.opType)).toEqual(["Gather", "Mul"]);
    expect(lowered.metadataProps).toContainEqual([RANGES_KEY, "attention_mask=0:1"]);
    // every mask of four 0/1 values
    for (let bits = 0; bits < 16; bits++) {
      const feeds = {
        attention_mask: {
          dtype: DataType.INT64,
          shape: [1, 4],
          data: BigInt64Array.from([0, 1, 2, 3], (k) => BigInt((bits >> k) & 1)),
        },
        x: { dtype: DataType.FLOAT, shape: [1, 4], data: new Float32Array([1.5, -2, 3, 0.25]) },
      };
      const [x, y] = [await runOrt(model, feeds), await runOrt(lowered, feeds)];
      expect([...y.y!.data]).toEqual([...x.y!.data]);
    }
    const j = lowerRanged("--json", "--force", "-o", ranged);
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout).inputRanges).toEqual({ attention_mask: { lo: 0, hi: 1 } });
  });
});

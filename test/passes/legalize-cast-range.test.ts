// legalize-cast-range: a Cast of an integer graph input the target refuses to cast, where the input's
// range is declared, as Gather(table, x). Every value of each range is fed, to each type the table
// may hold (float's, float16's rounding and overflow, the integer types' wrap-around, bool's x ≠ 0),
// and the rewritten model gives the original's outputs bit for bit, in the interpreter and on
// onnxruntime-node; ranges at zero, across it and below it use Gather's negative indices. Left,
// with a note, where no range is declared or the table would be too large; not touched where the
// target casts the type.

import { describe, expect, it } from "vitest";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import {
  legalizeCastRange,
  MAX_TABLE,
  tableLayout,
  type InputRange,
} from "../../src/passes/legalize-cast-range.js";
import { parseModelText } from "../../src/text/parse.js";
import { runOrt } from "../helpers/ort.js";

// Casts anything but int64; Gather on every data type
const noInt64Cast = {
  has: () => true,
  takes: (op: string, t: number) => op !== "Cast" || t !== DataType.INT64,
};

const TYPES: [string, number][] = [
  ["float", DataType.FLOAT],
  ["float16", DataType.FLOAT16],
  ["double", DataType.DOUBLE],
  ["int32", DataType.INT32],
  ["int16", DataType.INT16],
  ["int8", DataType.INT8],
  ["uint32", DataType.UINT32],
  ["uint16", DataType.UINT16],
  ["uint8", DataType.UINT8],
  ["bool", DataType.BOOL],
];

const RANGES: InputRange[] = [
  { lo: 0, hi: 1 }, // an attention mask
  { lo: 0, hi: 63 }, // position ids
  { lo: 3, hi: 9 }, // above zero: entries below 3 unused
  { lo: -5, hi: 5 }, // across zero: negative indices
  { lo: -300, hi: -250 }, // below zero (int8 and uint8 wrap)
  { lo: 2040, hi: 2100 }, // float16 rounds to even past 2048
  { lo: 65500, hi: 65540 }, // float16 overflows to inf, int16 and uint16 wrap
];

/** A model with an int64 input per range, each cast to every type. */
function casts(ranges: readonly InputRange[]): Model {
  const ins = ranges.map((r, i) => `int64[${r.hi - r.lo + 1}] x${i}`);
  const outs = ranges.flatMap((r, i) => TYPES.map(([t]) => `${t}[${r.hi - r.lo + 1}] y${i}_${t}`));
  const body = ranges.flatMap((_, i) =>
    TYPES.map(([t, id]) => `y${i}_${t} = Cast <to = ${id}> (x${i})`),
  );
  return parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (${ins.join(", ")}) => (${outs.join(", ")}) {
  ${body.join("\n  ")}
}`);
}

/** Every value of each range, in order. */
function everyValue(ranges: readonly InputRange[]): Record<string, RTensor> {
  return Object.fromEntries(
    ranges.map((r, i) => {
      const n = r.hi - r.lo + 1;
      const data = BigInt64Array.from({ length: n }, (_, k) => BigInt(r.lo + k));
      return [`x${i}`, { dtype: DataType.INT64, shape: [n], data }];
    }),
  );
}

function expectSame(a: Record<string, RTensor>, b: Record<string, RTensor>, how: string) {
  for (const k of Object.keys(a)) {
    expect(b[k]!.dtype, `${how} ${k}`).toBe(a[k]!.dtype);
    expect(b[k]!.shape, `${how} ${k}`).toEqual(a[k]!.shape);
    expect([...b[k]!.data], `${how} ${k}`).toEqual([...a[k]!.data]);
  }
}

describe("legalize-cast-range", () => {
  it("lays the table out by the range: HI + 1, HI − LO + 1 across zero, −LO below it", () => {
    expect(tableLayout({ lo: 0, hi: 1 }).n).toBe(2);
    expect(tableLayout({ lo: 3, hi: 9 }).n).toBe(10);
    const across = tableLayout({ lo: -5, hi: 5 });
    expect(across.n).toBe(11);
    // index i − 11 for a negative x: x = −5 reads entry 6
    expect(Array.from({ length: 11 }, (_, i) => across.at(i))).toEqual([
      0, 1, 2, 3, 4, 5, -5, -4, -3, -2, -1,
    ]);
    const below = tableLayout({ lo: -4, hi: -2 });
    expect(below.n).toBe(4);
    expect([0, 1, 2, 3].map(below.at)).toEqual([-4, -3, -2, -1]);
  });

  it("gives the Cast's values for every input in the range, in the interpreter and on onnxruntime", async () => {
    const m = casts(RANGES);
    const ranges = new Map(RANGES.map((r, i) => [`x${i}`, r]));
    const r = runPass(legalizeCastRange(noInt64Cast, ranges), m);
    expect(r.ok && r.modified).toBe(true);
    if (!r.ok) return;
    const ops = r.model.graph.nodes.map((n) => n.opType);
    expect(ops.filter((o) => o === "Gather")).toHaveLength(RANGES.length * TYPES.length);
    expect(ops).not.toContain("Cast");
    const feeds = everyValue(RANGES);
    expectSame(
      run(m, feeds) as Record<string, RTensor>,
      run(r.model, feeds) as Record<string, RTensor>,
      "interpreter",
    );
    expectSame(await runOrt(m, feeds), await runOrt(r.model, feeds), "onnxruntime");
    // and the interpreter's Cast is onnxruntime's (so the tables are the Cast's values)
    expectSame(await runOrt(m, feeds), run(r.model, feeds) as Record<string, RTensor>, "across");
  });

  it("reads through a move the target runs on int64; not through Pad", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64[1,4] mask) => (float[4,1] t, float[1,6] p) <int64[4] pads = {0, 1, 0, 1}> {
  mt = Transpose <perm = [1, 0]> (mask)
  t = Cast <to = 1> (mt)
  mp = Pad (mask, pads)
  p = Cast <to = 1> (mp)
}`);
    const r = runPass(legalizeCastRange(noInt64Cast, new Map([["mask", { lo: 0, hi: 1 }]])), m);
    expect(r.ok && r.modified).toBe(true);
    if (!r.ok) return;
    const byOut = new Map(r.model.graph.nodes.map((n) => [n.outputs[0], n.opType]));
    expect(byOut.get("t")).toBe("Gather");
    expect(byOut.get("p")).toBe("Cast");
    const feeds = {
      mask: { dtype: DataType.INT64, shape: [1, 4], data: BigInt64Array.from([1n, 0n, 0n, 1n]) },
    };
    expectSame(await runOrt(m, feeds), await runOrt(r.model, feeds), "onnxruntime");
  });

  it("leaves the Cast, with a note, without a declared range or past the table's bound", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64[4] a, int64[4] b) => (float[4] x, float[4] y) {
  x = Cast <to = 1> (a)
  y = Cast <to = 1> (b)
}`);
    const big = { lo: -1, hi: MAX_TABLE - 1 }; // MAX_TABLE + 1 entries
    const r = runPass(legalizeCastRange(noInt64Cast, new Map([["b", big]])), m);
    expect(r.ok && !r.modified).toBe(true);
    const notes = r.notes.map((n) => n.message).join("\n");
    expect(notes).toMatch(/declare the values of input 'a' \(lower --input-range a=LO:HI\)/);
    expect(notes).toMatch(/needs a table of 1048577 entries \(at most 1048576\)/);
    // the bound itself is taken
    const at = runPass(
      legalizeCastRange(noInt64Cast, new Map([["b", { lo: 0, hi: MAX_TABLE - 1 }]])),
      m,
    );
    expect(at.ok && at.modified).toBe(true);
  });

  it("leaves the Cast, with a note, where the target's Gather takes no data of its type", () => {
    const m = casts([{ lo: 0, hi: 1 }]);
    const noHalfGather = {
      has: () => true,
      takes: (op: string, t: number) =>
        op === "Cast" ? t !== DataType.INT64 : !(op === "Gather" && t === DataType.FLOAT16),
    };
    const r = runPass(legalizeCastRange(noHalfGather, new Map([["x0", { lo: 0, hi: 1 }]])), m);
    expect(r.ok && r.modified).toBe(true);
    if (!r.ok) return;
    const byOut = new Map(r.model.graph.nodes.map((n) => [n.outputs[0], n.opType]));
    expect(byOut.get("y0_float16")).toBe("Cast");
    expect(byOut.get("y0_float")).toBe("Gather");
    expect(r.notes.map((n) => n.message).join("\n")).toMatch(
      /the target's Gather takes no float16 data/,
    );
  });

  it("does nothing where the target casts the input's type", () => {
    const m = casts([{ lo: 0, hi: 1 }]);
    const r = runPass(
      legalizeCastRange({ has: () => true }, new Map([["x0", { lo: 0, hi: 1 }]])),
      m,
    );
    expect(r.ok && !r.modified && r.notes.length === 0).toBe(true);
  });
});

// legalize-cast-range: a Cast of an integer graph input the target refuses to cast (onnxruntime-web's
// WebGPU reads int64 only as Gather indices: an attention mask cast to bool, a decoder's position ids
// cast to float), where the user declared the input's range (`lower --input-range NAME=LO:HI`), made
// a Gather from a constant table: Gather(table, x) with table[x] = Cast(x) for every x in
// [LO, HI]. Gather reads a negative index i as i + n (n the table's length), so a range below
// zero needs no int64 arithmetic either: table[i] holds Cast(i) for i in 0..HI and Cast(i − n)
// above HI, n = max(HI, −1) + 1 − min(LO, 0) (HI + 1 for LO ≥ 0, HI − LO + 1 across zero, −LO
// below it). Exact for every input within the range; an input outside it is an index out of
// range (docs/semantics.md says what runtimes do). The Cast's input may also be the input moved
// by ops that only copy elements and that the target runs on its type (its values are some of
// the input's). A range whose table would
// exceed MAX_TABLE entries is left, with a note; so is a Cast of an input with no declared range.

import { DataType } from "../ir/types.js";
import { attrInt } from "../ir/attributes.js";
import { dtypeName, INTEGER_TYPES } from "../ir/dtype.js";
import { DATA_INPUTS } from "./legalize-bool-data.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

/** An integer input's declared values: every one in [lo, hi]. */
export interface InputRange {
  lo: number;
  hi: number;
}

/** Declared ranges by graph input name. */
export type InputRanges = ReadonlyMap<string, InputRange>;

/** The largest table made (entries). */
export const MAX_TABLE = 2 ** 20;

/** The types a table may hold: Cast's result written by the tensor's own encoding. */
const TABLE_TYPES = new Set<number>([
  DataType.FLOAT,
  DataType.FLOAT16,
  DataType.DOUBLE,
  DataType.INT8,
  DataType.INT16,
  DataType.INT32,
  DataType.UINT8,
  DataType.UINT16,
  DataType.UINT32,
  DataType.BOOL,
]);

/** The table's length and entry i's integer for a range (see the header). */
export function tableLayout(r: InputRange): { n: number; at: (i: number) => number } {
  const n = Math.max(r.hi, -1) + 1 - Math.min(r.lo, 0);
  return { n, at: (i) => (i <= r.hi ? i : i - n) };
}

/** The Cast of an integer to `to`, as the table holds it (the tensor encodes it: wrap, round). */
function castValue(x: number, to: number): number | boolean {
  if (to === DataType.BOOL) return x !== 0;
  return x;
}

/** The graph input a value is (or is moved from), with no other values mixed in. */
function sourceInput(site: Site, x: string, type: number): string | undefined {
  for (let v: string | undefined = x, steps = 0; v && steps < 64; steps++) {
    const p = site.producer(v);
    // no producer and no constant: an input of the (main) graph
    if (!p) return site.value(v) === undefined ? v : undefined;
    if ((p.domain ?? "") !== "" || p.outputs.length !== 1) return undefined;
    const data = DATA_INPUTS[p.opType]?.(p.inputs);
    // Pad brings in its constant: not a move of the input's values alone.
    if (!data || data.length !== 1 || data[0] !== 0 || p.opType === "Pad") return undefined;
    // a move the target refuses on the type stays refused (legalize-cast-first moves the Cast
    // before those)
    if (!site.takes(p.opType, type)) return undefined;
    v = p.inputs[0];
  }
  return undefined;
}

function castByTable(site: Site, ranges: InputRanges): boolean {
  const { node } = site;
  const [x] = node.inputs;
  const to = attrInt(node, "to");
  const from = x ? site.elem(x) : undefined;
  if (!x || to === undefined || from === undefined || !INTEGER_TYPES.includes(from)) return false;
  if (site.takes("Cast", from)) return false;
  const input = sourceInput(site, x, from);
  if (input === undefined) return false;
  const range = ranges.get(input);
  if (!range)
    return site.leave(
      `the target casts no ${dtypeName(from)}; declare the values of input '${input}' (lower --input-range ${input}=LO:HI) to read it through a table`,
    );
  if (!TABLE_TYPES.has(to)) return site.leave(`no table of ${dtypeName(to)} is made`);
  if (!site.has("Gather") || !site.takes("Gather", to))
    return site.leave(`the target's Gather takes no ${dtypeName(to)} data`);
  const { n, at } = tableLayout(range);
  if (n > MAX_TABLE)
    return site.leave(
      `the range ${range.lo}:${range.hi} of input '${input}' needs a table of ${n} entries (at most ${MAX_TABLE})`,
    );
  const values = Array.from({ length: n }, (_, i) => castValue(at(i), to));
  const table = site.constant("table", to, [n], values);
  site.add("Gather", [table, x], { axis: 0 }, [...site.out]);
  return true;
}

export function legalizeCastRange(options: LegalizeOptions, ranges: InputRanges): Pass {
  return legalizePass(
    "legalize-cast-range",
    ["Cast"],
    "Cast of an input with a declared range made a Gather from a table",
    (site) => castByTable(site, ranges),
    options,
    () => true,
  );
}

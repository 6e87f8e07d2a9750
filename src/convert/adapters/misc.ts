// Steps particular to one op each: GridSample 16 <-> 20 (mode names), DFT 17 <-> 20 (axis
// attribute <-> input, DFT-20's omitted axis is -2), Cast 19 -> 13 and 24 -> 23 (saturate / round_mode only concern the
// float8 types, which the older versions do not have), Scatter -> ScatterElements (Scatter is
// deprecated from 11; the same operation).

import { attr, getAttr } from "../../ir/index.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import {
  attributeDropped,
  axisAttributeToInput,
  axisInputToAttribute,
  renamedTo,
  row,
} from "./kit.js";
import { intAttr, normAxis, rankOf, stringAttr, withAttributes } from "./nodes.js";

const GRID_UP: Record<string, string> = {
  bilinear: "linear",
  bicubic: "cubic",
  nearest: "nearest",
};
const GRID_DOWN: Record<string, string> = {
  linear: "bilinear",
  cubic: "bicubic",
  nearest: "nearest",
};

const gridMode =
  (names: Record<string, string>): Adapter =>
  (c: AdapterContext) => {
    const rank = rankOf(c, 0);
    if (c.direction === "down" && rank !== undefined && rank !== 4)
      c.fail(`a ${rank}-D input; GridSample-16 samples 4-D inputs only`);
    if (!getAttr(c.node, "mode")) return undefined;
    const mode = stringAttr(c, "mode")!;
    const renamed = names[mode];
    if (!renamed) c.fail(`mode '${mode}' has no equivalent in GridSample-${c.to.since}`);
    return [withAttributes(c.node, { mode: attr("mode", renamed) })];
  };

/** Flatten 11 -> 9: a negative axis (new in 11) counted from the front with the input's rank. */
const flattenAxisFromFront: Adapter = (c: AdapterContext) => {
  const axis = intAttr(c, "axis") ?? 1;
  if (axis >= 0) return [c.node];
  const rank = rankOf(c, 0);
  if (rank === undefined) c.fail(`axis ${axis} counts from the back of an input of unknown rank`);
  return [withAttributes(c.node, { axis: attr("axis", normAxis(axis, rank)) })];
};

export const rows: AdapterRow[] = [
  row("GridSample", 16, 20, "mode 'bilinear' -> 'linear', 'bicubic' -> 'cubic'", gridMode(GRID_UP)),
  row(
    "GridSample",
    20,
    16,
    "mode 'linear' -> 'bilinear', 'cubic' -> 'bicubic'; 4-D only",
    gridMode(GRID_DOWN),
  ),
  row("Flatten", 11, 9, "a negative axis counted from the front (the rank)", flattenAxisFromFront),
  row("DFT", 17, 20, "axis attribute -> constant input", axisAttributeToInput({ index: 2 })),
  row(
    "DFT",
    20,
    17,
    "constant axis input -> attribute (the default -2 needs the rank)",
    // DFT-20's default axis is -2; DFT-17 counts from the front.
    axisInputToAttribute({ index: 2, whenOmitted: -2, fromFront: true }),
  ),
  row(
    "Cast",
    19,
    13,
    "saturate dropped (it concerns float8 targets only)",
    attributeDropped("saturate"),
  ),
  row(
    "Cast",
    24,
    23,
    "round_mode dropped (it concerns float8e8m0 only)",
    attributeDropped("round_mode"),
  ),
  row(
    "Scatter",
    9,
    11,
    "Scatter is deprecated from 11: ScatterElements-11 (the same operation)",
    renamedTo("ScatterElements"),
  ),
];

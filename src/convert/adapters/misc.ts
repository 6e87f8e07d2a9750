// Steps particular to one op each: GridSample 16 <-> 20 (mode names), DFT 17 <-> 20 (axis
// attribute <-> input), Cast 19 -> 13 and 24 -> 23 (saturate / round_mode only concern the
// float8 types, which the older versions do not have), Scatter -> ScatterElements (Scatter is
// deprecated from 11; the same operation).

import { attr, getAttr } from "../../ir/index.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import {
  constantValues,
  int64Constant,
  intAttr,
  nodeWithoutAttributes,
  normAxis,
  rankOf,
  stringAttr,
  withAttributes,
} from "./build.js";

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

const dftUp: Adapter = (c: AdapterContext) => {
  const axis = intAttr(c, "axis")!;
  const [k, name] = int64Constant(c, `${c.node.outputs[0] || "dft"}_axis`, [axis], true);
  const n = nodeWithoutAttributes(c.node, "axis");
  n.inputs = [c.node.inputs[0]!, c.node.inputs[1] ?? "", name];
  return [k, n];
};

const dftDown: Adapter = (c: AdapterContext) => {
  const given = constantValues(c, 2, "'axis'");
  if (given && given.length !== 1) c.fail("'axis' must hold one value");
  // DFT-20's default axis is -2; DFT-17 counts from the front.
  let axis = given?.[0] ?? -2;
  if (axis < 0) {
    const rank = rankOf(c, 0);
    if (rank === undefined) c.fail(`axis ${axis} counts from the back of an input of unknown rank`);
    axis = normAxis(axis, rank);
  }
  const n = withAttributes(c.node, { axis: attr("axis", axis) });
  n.inputs = [c.node.inputs[0]!, c.node.inputs[1] ?? ""];
  while (n.inputs[n.inputs.length - 1] === "") n.inputs.pop();
  return [n];
};

const toScatterElements: Adapter = (c: AdapterContext) => [
  { ...withAttributes(c.node, {}), opType: "ScatterElements" },
];

const row = (
  op: string,
  from: number,
  to: number,
  summary: string,
  adapter: Adapter,
): AdapterRow => ({
  domain: "",
  op,
  from,
  to,
  summary,
  adapter,
});

export const MISC_ROWS: AdapterRow[] = [
  row("GridSample", 16, 20, "mode 'bilinear' -> 'linear', 'bicubic' -> 'cubic'", gridMode(GRID_UP)),
  row(
    "GridSample",
    20,
    16,
    "mode 'linear' -> 'bilinear', 'cubic' -> 'bicubic'; 4-D only",
    gridMode(GRID_DOWN),
  ),
  row("DFT", 17, 20, "axis attribute -> constant input", dftUp),
  row("DFT", 20, 17, "constant axis input -> attribute (the default -2 needs the rank)", dftDown),
  row("Cast", 19, 13, "saturate dropped (it concerns float8 targets only)", (c) => [
    nodeWithoutAttributes(c.node, "saturate"),
  ]),
  row("Cast", 24, 23, "round_mode dropped (it concerns float8e8m0 only)", (c) => [
    nodeWithoutAttributes(c.node, "round_mode"),
  ]),
  row(
    "Scatter",
    9,
    11,
    "Scatter is deprecated from 11: ScatterElements-11 (the same operation)",
    toScatterElements,
  ),
];

// Clip 6 <-> 11: the min/max attributes became optional inputs. An absent attribute in 6 means
// -3.4028235e38 / +3.4028235e38 (the schema's defaults), not "no bound": they differ for
// infinite inputs, so the bound is always written out on the way up (float16 excepted, where
// the float limit is already infinite). On the way down an absent input means no bound: +-inf.

import { attr } from "../../ir/index.js";
import { DataType } from "../../ir/types.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { row } from "./kit.js";
import {
  constantValues,
  elemTypeOf,
  floatAttr,
  numberConstant,
  withAttributes,
  nodeWithoutAttributes,
} from "./nodes.js";
import { getAttr } from "../../ir/index.js";
import type { Node } from "../../ir/types.js";

const up: Adapter = (c: AdapterContext) => {
  const n = nodeWithoutAttributes(c.node, "min", "max");
  const out: Node[] = [];
  const elem = elemTypeOf(c, 0, "to make the min/max inputs");
  const inputs = [c.node.inputs[0]!, "", ""];
  ["min", "max"].forEach((name, i) => {
    if (elem === DataType.FLOAT16 && !getAttr(c.node, name)) return;
    const v = floatAttr(c, name)!;
    const [k, out1] = numberConstant(c, `${c.node.outputs[0] || "clip"}_${name}`, elem, [v]);
    out.push(k);
    inputs[i + 1] = out1;
  });
  n.inputs = inputs.filter(
    (x, i) => i === 0 || x !== "" || inputs.slice(i + 1).some((y) => y !== ""),
  );
  out.push(n);
  return out;
};

const down: Adapter = (c: AdapterContext) => {
  const changes: Record<string, ReturnType<typeof attr>> = {};
  ["min", "max"].forEach((name, i) => {
    const v = constantValues(c, i + 1, `'${name}'`);
    if (v !== undefined && v.length !== 1) c.fail(`'${name}' must be a scalar`);
    changes[name] = attr(name, v?.[0] ?? (i === 0 ? -Infinity : Infinity), "FLOAT");
  });
  const n = withAttributes(c.node, changes);
  n.inputs = [c.node.inputs[0]!];
  return [n];
};

/** 1 -> 6: Clip-1's absent bounds are none (+-inf); Clip-6's absent ones would be the float limits. */
const up6: Adapter = (c: AdapterContext) => [
  withAttributes(c.node, {
    consumed_inputs: undefined,
    min: attr("min", floatAttr(c, "min") ?? -Infinity, "FLOAT"),
    max: attr("max", floatAttr(c, "max") ?? Infinity, "FLOAT"),
  }),
];

/** 6 -> 1: Clip-6's absent bounds (the float limits, its schema defaults) are written out. */
const down1: Adapter = (c: AdapterContext) => [
  withAttributes(c.node, {
    min: attr("min", floatAttr(c, "min")!, "FLOAT"),
    max: attr("max", floatAttr(c, "max")!, "FLOAT"),
  }),
];

export const rows: AdapterRow[] = [
  row(
    "Clip",
    1,
    6,
    "absent bounds (none in Clip-1) written as +-inf; consumed_inputs dropped",
    up6,
  ),
  row("Clip", 6, 1, "absent bounds (+-3.4028235e38 in Clip-6) written out", down1),
  row(
    "Clip",
    6,
    11,
    "min/max attributes -> constant inputs (absent ones are +-3.4028235e38, written out)",
    up,
  ),
  row("Clip", 11, 6, "constant min/max inputs -> attributes (absent ones are +-inf)", down),
];

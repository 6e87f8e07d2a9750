// Upsample and Resize. Upsample 7 <-> 9 (scales attribute <-> input), Upsample 9 -> 10
// (deprecated at 10: it becomes Resize-10, the same operation), Resize 10 <-> 11 (Resize-10
// samples as Upsample did: asymmetric coordinates, floor for nearest; 11 says so explicitly and
// takes a roi input), Resize 13 -> 11 (roi and scales may not be omitted at 11).

import { attr } from "../../ir/index.js";
import { Tensor } from "../../ir/tensor.js";
import { DataType, type Node } from "../../ir/types.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { renamedTo, row } from "./kit.js";
import {
  constantNode,
  constantValues,
  floatsAttr,
  nodeWithoutAttributes,
  stringAttr,
  withAttributes,
} from "./nodes.js";

const emptyFloats = (c: AdapterContext, what: string) =>
  constantNode(
    c,
    `${c.node.outputs[0] || "resize"}_${what}`,
    new Tensor(DataType.FLOAT, [0], { kind: "float", values: new Float32Array(0) }),
  );

const upsample9: Adapter = (c: AdapterContext) => {
  const scales = floatsAttr(c, "scales");
  if (!scales) c.fail("the required 'scales' attribute is missing");
  const [k, name] = constantNode(
    c,
    `${c.node.outputs[0] || "upsample"}_scales`,
    Tensor.from(DataType.FLOAT, [scales.length], scales),
  );
  const n = nodeWithoutAttributes(c.node, "scales");
  n.inputs = [c.node.inputs[0]!, name];
  return [k, n];
};

const upsample7: Adapter = (c: AdapterContext) => {
  const scales = constantValues(c, 1, "'scales'")!;
  const n = withAttributes(c.node, { scales: attr("scales", scales, "FLOATS") });
  n.inputs = [c.node.inputs[0]!];
  return [n];
};

const resize11: Adapter = (c: AdapterContext) => {
  const mode = stringAttr(c, "mode") ?? "nearest";
  const [roi, roiName] = emptyFloats(c, "roi");
  const n = withAttributes(c.node, {
    coordinate_transformation_mode: attr("coordinate_transformation_mode", "asymmetric"),
    ...(mode === "nearest" ? { nearest_mode: attr("nearest_mode", "floor") } : {}),
  });
  n.inputs = [c.node.inputs[0]!, roiName, c.node.inputs[1]!];
  return [roi, n];
};

const resize10: Adapter = (c: AdapterContext) => {
  const ctm = stringAttr(c, "coordinate_transformation_mode");
  if (ctm !== "asymmetric")
    c.fail(
      `coordinate_transformation_mode '${ctm}' cannot be expressed before Resize-11 (only 'asymmetric')`,
    );
  const mode = stringAttr(c, "mode") ?? "nearest";
  if (mode !== "nearest" && mode !== "linear")
    c.fail(`mode '${mode}' does not exist before Resize-11`);
  if (mode === "nearest" && stringAttr(c, "nearest_mode") !== "floor")
    c.fail(
      `nearest_mode '${stringAttr(c, "nearest_mode")}' cannot be expressed before Resize-11 (only 'floor')`,
    );
  if ((c.node.inputs[3] ?? "") !== "")
    c.fail("output sizes (input 'sizes') cannot be given before Resize-11, only scales");
  const n = nodeWithoutAttributes(
    c.node,
    "coordinate_transformation_mode",
    "nearest_mode",
    "cubic_coeff_a",
    "exclude_outside",
    "extrapolation_value",
  );
  n.inputs = [c.node.inputs[0]!, c.node.inputs[2]!];
  return [n];
};

/** 13 -> 11: an omitted roi or scales input becomes an empty constant (11 requires both). */
const resize13to11: Adapter = (c: AdapterContext) => {
  const inputs = [...c.node.inputs];
  while (inputs.length < 3) inputs.push("");
  const out: Node[] = [];
  for (const [i, what] of [
    [1, "roi"],
    [2, "scales"],
  ] as const)
    if (inputs[i] === "") {
      const [k, name] = emptyFloats(c, what);
      out.push(k);
      inputs[i] = name;
    }
  if (out.length === 0) return undefined;
  const n = withAttributes(c.node, {});
  n.inputs = inputs;
  return [...out, n];
};

export const rows: AdapterRow[] = [
  row("Upsample", 7, 9, "scales attribute -> constant input", upsample9),
  row("Upsample", 9, 7, "constant scales input -> attribute", upsample7),
  row(
    "Upsample",
    9,
    10,
    "Upsample is deprecated from 10: Resize-10 (the same sampling)",
    // The same inputs, attributes and sampling.
    renamedTo("Resize"),
  ),
  row(
    "Resize",
    10,
    11,
    "asymmetric coordinates (floor for nearest) made explicit; empty roi input",
    resize11,
  ),
  row(
    "Resize",
    11,
    10,
    "only asymmetric coordinates, floor nearest, scales (not sizes) go down",
    resize10,
  ),
  row("Resize", 13, 11, "omitted roi/scales inputs become empty constants", resize13to11),
];

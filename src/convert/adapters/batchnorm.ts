// BatchNormalization: 6 <-> 7 (is_test removed), 7 <-> 9 (spatial removed: from 9 always
// per channel), 9 <-> 14 (training outputs: saved_mean/saved_var gone, training_mode added).
// Converted models do inference: nodes that produce training statistics block.

import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { isTestRows, row } from "./kit.js";
import { intAttr, nodeWithoutAttributes, withAttributes } from "./nodes.js";

const usesTrainingOutputs = (c: AdapterContext) => c.node.outputs.slice(1).some((o) => o !== "");

const up9: Adapter = (c: AdapterContext) => {
  if (intAttr(c, "spatial") === 0)
    c.fail("spatial=0 (statistics per activation) does not exist from BatchNormalization-9");
  return [nodeWithoutAttributes(c.node, "spatial")];
};

const up14: Adapter = (c: AdapterContext) => {
  if (usesTrainingOutputs(c))
    c.fail(
      "the mean/var/saved_mean/saved_var outputs are training outputs, which BatchNormalization-14 defines differently",
    );
  const n = withAttributes(c.node, {});
  n.outputs = [c.node.outputs[0]!];
  return [n];
};

const down9: Adapter = (c: AdapterContext) => {
  if (intAttr(c, "training_mode") === 1 || usesTrainingOutputs(c))
    c.fail(
      "training_mode=1 (running statistics outputs) cannot be expressed before BatchNormalization-14",
    );
  const n = nodeWithoutAttributes(c.node, "training_mode");
  n.outputs = [c.node.outputs[0]!];
  return [n];
};

const op = "BatchNormalization";

/** Why a node in training mode (with its statistics outputs used) cannot take the step to 7. */
const TRAINING =
  "is_test=0 with statistics outputs is training, which BatchNormalization-7 leaves to the runtime";

export const rows: AdapterRow[] = [
  ...isTestRows(op, "statistics outputs", TRAINING),
  row(op, 7, 9, "spatial dropped (spatial=0 blocks)", up9),
  row(op, 9, 14, "inference only: the training outputs must be unused", up14),
  row(op, 14, 9, "training_mode dropped (training blocks)", down9),
];

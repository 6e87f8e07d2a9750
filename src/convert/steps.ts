// Data the plan reads besides the schema diff and the adapter table:
// - behaviourBreaks(): steps whose signature diff looks harmless but whose meaning changed; such
//   a step needs an adapter row (a row always wins), else every node taking it is blocked. They
//   are read from the changes of meaning the schemas record, not written here.
// - BLOCKED_STEPS: breaking steps that have no adapter, with the reason a user is shown when a
//   node cannot take the step as it is (nodes the change does not touch still pass).
// Steps are named by the `since` of the op's version before and after the step; `to: 0` is the
// step below an op's first version (the op does not exist there).

import { meaningChanges } from "../schema/facts.js";
import { SchemaRegistry } from "../schema/registry.js";

export interface StepData {
  op: string;
  from: number;
  to: number;
  /** "" (ai.onnx) unless given. */
  domain?: string;
  reason: string;
}

/**
 * The behaviour breaks, derived from the schemas: every change of meaning a version records
 * (`changes` in schemas/_overlay/<Op>.json) names the steps across that version it breaks, "up"
 * from the version before and "down" back to it, with the reason the plan prints. Computed once
 * per registry, on first use.
 */
export function behaviourBreaks(registry: SchemaRegistry = SchemaRegistry.default()): StepData[] {
  let list = breaksByRegistry.get(registry);
  if (list) return list;
  list = [];
  for (const name of registry.operators()) {
    const dot = name.lastIndexOf(".");
    const domain = dot < 0 ? "" : name.slice(0, dot);
    const op = dot < 0 ? name : name.slice(dot + 1);
    const versions = registry.versions(domain, op);
    versions.forEach((v, i) => {
      const before = versions[i - 1];
      for (const c of meaningChanges(v)) {
        const at = (from: number, to: number, reason: string): StepData =>
          domain === "" ? { op, from, to, reason } : { op, from, to, domain, reason };
        if (c.breaks.includes("up")) list!.push(at(before?.since ?? 0, v.since, c.what));
        if (c.breaks.includes("down"))
          list!.push(at(v.since, before?.since ?? 0, c.what_down ?? c.what));
      }
    });
  }
  breaksByRegistry.set(registry, list);
  return list;
}

const breaksByRegistry = new WeakMap<SchemaRegistry, StepData[]>();

export const BLOCKED_STEPS: readonly StepData[] = [
  {
    op: "Add",
    from: 6,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  {
    op: "And",
    from: 1,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  { op: "Attention", from: 24, to: 23, reason: "input 'nonpad_kv_seqlen' exists from 24 only" },
  {
    op: "Attention",
    from: 25,
    to: 24,
    reason: "attributes 'left_window_size'/'right_window_size' exist from 25 only",
  },
  { op: "AveragePool", from: 19, to: 11, reason: "attribute 'dilations' exists from 19 only" },
  {
    op: "BatchNormalization",
    from: 6,
    to: 1,
    reason: "BatchNormalization-1 requires 'consumed_inputs', which has no meaning to reconstruct",
  },
  { op: "BatchNormalization", from: 6, to: 7, reason: "attribute 'is_test' was removed at 7" },
  { op: "BatchNormalization", from: 7, to: 9, reason: "attribute 'spatial' was removed at 9" },
  {
    op: "BatchNormalization",
    from: 9,
    to: 14,
    reason: "the training outputs saved_mean/saved_var were removed at 14",
  },
  {
    op: "BatchNormalization",
    from: 14,
    to: 9,
    reason: "attribute 'training_mode' exists from 14 only",
  },
  { op: "Cast", from: 1, to: 6, reason: "attribute 'to' was a type name before 6" },
  { op: "Cast", from: 6, to: 1, reason: "attribute 'to' is a type name in Cast-1" },
  { op: "Cast", from: 19, to: 13, reason: "attribute 'saturate' exists from 19 only" },
  { op: "Cast", from: 24, to: 23, reason: "attribute 'round_mode' exists from 24 only" },
  { op: "CastLike", from: 19, to: 15, reason: "attribute 'saturate' exists from 19 only" },
  { op: "CastLike", from: 24, to: 23, reason: "attribute 'round_mode' exists from 24 only" },
  {
    op: "Clip",
    from: 1,
    to: 6,
    reason: "Clip-1's absent min/max mean no bound; Clip-6's mean +-3.4028235e38",
  },
  {
    op: "Clip",
    from: 6,
    to: 1,
    reason: "Clip-6's absent min/max mean +-3.4028235e38; Clip-1's mean no bound",
  },
  { op: "Clip", from: 6, to: 11, reason: "min/max became inputs at 11" },
  {
    op: "Clip",
    from: 11,
    to: 6,
    reason: "min/max are attributes before 11 (their values must be constants)",
  },
  { op: "Constant", from: 11, to: 9, reason: "sparse_value exists from 11 only" },
  { op: "DFT", from: 17, to: 20, reason: "attribute 'axis' became an input at 20" },
  {
    op: "DFT",
    from: 20,
    to: 17,
    reason: "input 'axis' is an attribute before 20 (its value must be a constant)",
  },
  {
    op: "DequantizeLinear",
    from: 13,
    to: 10,
    reason: "attribute 'axis' (per-axis quantization) exists from 13 only",
  },
  {
    op: "DequantizeLinear",
    from: 21,
    to: 19,
    reason: "attribute 'block_size' (blocked quantization) exists from 21 only",
  },
  {
    op: "DequantizeLinear",
    from: 23,
    to: 21,
    reason: "attribute 'output_dtype' exists from 23 only",
  },
  {
    op: "Div",
    from: 6,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  { op: "Dropout", from: 6, to: 7, reason: "attribute 'is_test' was removed at 7" },
  { op: "Dropout", from: 10, to: 12, reason: "attribute 'ratio' became an input at 12" },
  {
    op: "Dropout",
    from: 12,
    to: 10,
    reason: "inputs 'ratio'/'training_mode' and attribute 'seed' exist from 12 only",
  },
  {
    op: "Equal",
    from: 1,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  {
    op: "GRU",
    from: 1,
    to: 3,
    reason: "GRU-1's default direction is spelled 'foward', and Y_h is required",
  },
  { op: "GRU", from: 3, to: 1, reason: "attribute 'linear_before_reset' exists from 3 only" },
  { op: "GRU", from: 3, to: 7, reason: "attribute 'output_sequence' was removed at 7" },
  {
    op: "Gemm",
    from: 6,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  { op: "Gemm", from: 11, to: 9, reason: "input C is required before 11" },
  { op: "GlobalLpPool", from: 1, to: 2, reason: "attribute 'p' became an integer at 2" },
  { op: "GlobalLpPool", from: 2, to: 1, reason: "attribute 'p' is a float in GlobalLpPool-1" },
  {
    op: "Greater",
    from: 1,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  { op: "LSTM", from: 1, to: 7, reason: "attribute 'output_sequence' was removed at 7" },
  {
    op: "Less",
    from: 1,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  { op: "Loop", from: 1, to: 11, reason: "v_initial may be empty from 11" },
  { op: "Loop", from: 11, to: 1, reason: "Loop-1 needs at least one loop-carried value" },
  {
    op: "LpPool",
    from: 1,
    to: 2,
    reason: "attribute 'p' became an integer and 'kernel_shape' required at 2",
  },
  { op: "LpPool", from: 2, to: 1, reason: "attribute 'p' is a float in LpPool-1" },
  {
    op: "MaxPool",
    from: 8,
    to: 1,
    reason: "output 'Indices' and attribute 'storage_order' exist from 8 only",
  },
  {
    op: "Mul",
    from: 6,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  { op: "OptionalHasElement", from: 18, to: 15, reason: "input 'input' is required before 18" },
  {
    op: "Or",
    from: 1,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  { op: "Pad", from: 1, to: 2, reason: "attribute 'paddings' was renamed 'pads' at 2" },
  { op: "Pad", from: 2, to: 1, reason: "attribute 'pads' is 'paddings' in Pad-1" },
  { op: "Pad", from: 2, to: 11, reason: "pads and value became inputs at 11" },
  {
    op: "Pad",
    from: 11,
    to: 2,
    reason: "pads and constant_value are attributes before 11 (their values must be constants)",
  },
  { op: "Pad", from: 18, to: 13, reason: "input 'axes' exists from 18 only" },
  {
    op: "Pow",
    from: 1,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  {
    op: "QuantizeLinear",
    from: 13,
    to: 10,
    reason: "attribute 'axis' (per-axis quantization) exists from 13 only",
  },
  { op: "QuantizeLinear", from: 19, to: 13, reason: "attribute 'saturate' exists from 19 only" },
  {
    op: "QuantizeLinear",
    from: 21,
    to: 19,
    reason: "attributes 'block_size'/'output_dtype' exist from 21 only",
  },
  { op: "QuantizeLinear", from: 23, to: 21, reason: "attribute 'precision' exists from 23 only" },
  { op: "RNN", from: 1, to: 7, reason: "attribute 'output_sequence' was removed at 7" },
  { op: "Range", from: 27, to: 11, reason: "attribute 'stash_type' exists from 27 only" },
  { op: "Reshape", from: 1, to: 5, reason: "attribute 'shape' became an input at 5" },
  {
    op: "Reshape",
    from: 5,
    to: 1,
    reason: "input 'shape' is an attribute before 5 (its value must be a constant)",
  },
  {
    op: "Resize",
    from: 10,
    to: 11,
    reason: "inputs roi/scales/sizes and the coordinate modes were added at 11",
  },
  {
    op: "Resize",
    from: 11,
    to: 10,
    reason: "the coordinate modes, roi and sizes exist from 11 only",
  },
  { op: "Resize", from: 13, to: 11, reason: "roi and scales are required inputs before 13" },
  {
    op: "Resize",
    from: 18,
    to: 13,
    reason: "attributes 'antialias', 'axes', 'keep_aspect_ratio_policy' exist from 18 only",
  },
  {
    op: "RoiAlign",
    from: 16,
    to: 10,
    reason: "attribute 'coordinate_transformation_mode' exists from 16 only",
  },
  {
    op: "Scan",
    from: 8,
    to: 9,
    reason: "Scan-8 has a batch axis and sequence_lens; Scan-9 has neither",
  },
  { op: "Scan", from: 9, to: 8, reason: "Scan-9's axes and directions have no Scan-8 form" },
  {
    op: "Scatter",
    from: 9,
    to: 11,
    reason: "Scatter is deprecated from 11: it must become ScatterElements",
  },
  { op: "Selu", from: 1, to: 6, reason: "the defaults of alpha and gamma changed at 6" },
  { op: "Selu", from: 6, to: 1, reason: "the defaults of alpha and gamma differ in Selu-1" },
  { op: "Slice", from: 1, to: 10, reason: "starts/ends/axes became inputs at 10" },
  {
    op: "Slice",
    from: 10,
    to: 1,
    reason: "starts/ends/axes are attributes before 10 (constants), and steps do not exist",
  },
  { op: "Split", from: 1, to: 2, reason: "input 'split' and the axis default changed at 2" },
  { op: "Split", from: 2, to: 1, reason: "Split-1 has no default axis" },
  { op: "Split", from: 11, to: 13, reason: "attribute 'split' became an input at 13" },
  {
    op: "Split",
    from: 13,
    to: 11,
    reason: "input 'split' is an attribute before 13 (its value must be a constant)",
  },
  { op: "Split", from: 18, to: 13, reason: "attribute 'num_outputs' exists from 18 only" },
  { op: "Squeeze", from: 11, to: 13, reason: "attribute 'axes' became an input at 13" },
  {
    op: "Squeeze",
    from: 13,
    to: 11,
    reason: "input 'axes' is an attribute before 13 (its value must be a constant)",
  },
  {
    op: "Sub",
    from: 6,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  {
    op: "Tile",
    from: 1,
    to: 6,
    reason: "Tile-1 tiles one axis by a count; Tile-6 takes repeats per axis",
  },
  {
    op: "Tile",
    from: 6,
    to: 1,
    reason: "Tile-1 tiles one axis by a count; Tile-6 takes repeats per axis",
  },
  { op: "TopK", from: 1, to: 10, reason: "attribute 'k' became an input at 10" },
  {
    op: "TopK",
    from: 10,
    to: 1,
    reason: "input 'K' is an attribute before 10 (its value must be a constant)",
  },
  { op: "Unsqueeze", from: 11, to: 13, reason: "attribute 'axes' became an input at 13" },
  {
    op: "Unsqueeze",
    from: 13,
    to: 11,
    reason: "input 'axes' is an attribute before 13 (its value must be a constant)",
  },
  { op: "Upsample", from: 1, to: 7, reason: "height_scale/width_scale became 'scales' at 7" },
  { op: "Upsample", from: 7, to: 1, reason: "'scales' is height_scale/width_scale in Upsample-1" },
  { op: "Upsample", from: 7, to: 9, reason: "attribute 'scales' became an input at 9" },
  {
    op: "Upsample",
    from: 9,
    to: 7,
    reason: "input 'scales' is an attribute before 9 (its value must be a constant)",
  },
  {
    op: "Upsample",
    from: 9,
    to: 10,
    reason: "Upsample is deprecated from 10: it must become Resize",
  },
  {
    op: "Xor",
    from: 1,
    to: 7,
    reason: "the legacy 'broadcast'/'axis' attributes have no equivalent without an adapter",
  },
  {
    op: "LogCumSumExp",
    from: 29,
    to: 0,
    reason:
      "LogCumSumExp exists from opset 29 only: expand it into standard ops first (`onnx-expand expand`), then convert",
  },
];

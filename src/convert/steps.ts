// Data the plan reads besides the schema diff and the adapter table:
// - BEHAVIOUR_BREAKS: steps whose signature diff looks harmless but whose meaning changed; such
//   a step needs an adapter row (a row always wins), else every node taking it is blocked.
// - BLOCKED_STEPS: breaking steps that have no adapter, with the reason a user is shown when a
//   node cannot take the step as it is (nodes the change does not touch still pass).
// Steps are named by the `since` of the op's version before and after the step; `to: 0` is the
// step below an op's first version (the op does not exist there).

export interface StepData {
  op: string;
  from: number;
  to: number;
  /** "" (ai.onnx) unless given. */
  domain?: string;
  reason: string;
}

export const BEHAVIOUR_BREAKS: readonly StepData[] = [
  {
    op: "PRelu",
    from: 6,
    to: 7,
    reason: "slope broadcasting changed (unidirectional from 7)",
  },
  {
    op: "PRelu",
    from: 7,
    to: 6,
    reason: "slope broadcasting changed (unidirectional from 7)",
  },
  ...["Sum", "Max", "Min", "Mean"].map((op) => ({
    op,
    from: 8,
    to: 6,
    reason: "before 8 every input must have the output's shape (no broadcasting)",
  })),
  {
    op: "GroupNormalization",
    from: 18,
    to: 21,
    reason: "scale and bias are per channel from 21 (per group before)",
  },
  {
    op: "GroupNormalization",
    from: 21,
    to: 18,
    reason: "scale and bias are per channel from 21 (per group before)",
  },
  { op: "Pad", from: 19, to: 18, reason: "mode 'wrap' exists from 19 only" },
  ...["Softmax", "LogSoftmax", "Hardmax"].flatMap((op) => [
    {
      op,
      from: 11,
      to: 13,
      reason:
        "before 13 the input is coerced to 2-D at axis; from 13 the op runs over the single axis",
    },
    {
      op,
      from: 13,
      to: 11,
      reason:
        "before 13 the input is coerced to 2-D at axis; from 13 the op runs over the single axis",
    },
  ]),
  {
    op: "GridSample",
    from: 16,
    to: 20,
    reason: "mode 'bilinear' became 'linear' (and 'bicubic' 'cubic')",
  },
  {
    op: "GridSample",
    from: 20,
    to: 16,
    reason: "mode 'linear' was 'bilinear' (and 'cubic' 'bicubic')",
  },
  {
    op: "Resize",
    from: 19,
    to: 18,
    reason: "coordinate_transformation_mode 'half_pixel_symmetric' exists from 19 only",
  },
];

export const BLOCKED_STEPS: readonly StepData[] = [
  {
    op: "LogCumSumExp",
    from: 29,
    to: 0,
    reason:
      "LogCumSumExp exists from opset 29 only: expand it into standard ops first (`onnx-expand expand`), then convert",
  },
];

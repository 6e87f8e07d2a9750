// A fast sample of scripts/convert-report.ts: real models from Debian's libonnx-testdata, chosen
// for the steps they take (the Softmax family, Split/Squeeze/Unsqueeze, Clip, Pad, Slice, Resize,
// Upsample, Dropout, BatchNormalization, Scan, Scatter, GridSample, DFT, ArgMax, GatherND, the
// legacy broadcast, integer Max/Min/Clip), converted up to 17, 21 and 26 and (opset-13 ones)
// down to 11. Each must give its stored outputs on onnxruntime-node and in the interpreter, or be
// refused with a reason; never a wrong output. The full run: npx tsx scripts/convert-report.ts.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { libonnxPresent } from "../helpers/data.js";
import {
  convertAndRun,
  LIBONNX_ROOT,
  loadCorpusModel,
  runOnInterpreter,
  runOnOrt,
} from "../../scripts/convert-corpus.js";

const SAMPLE = [
  "node/test_softmax_axis_1",
  "node/test_logsoftmax_axis_0",
  "node/test_hardmax_axis_1",
  "node/test_split_variable_parts_2d",
  "node/test_split_equal_parts_default_axis",
  "node/test_squeeze",
  "node/test_unsqueeze_two_axes",
  "node/test_clip_default_int8_min",
  "node/test_max_int8",
  "node/test_resize_upsample_scales_nearest",
  "node/test_resize_downsample_sizes_nearest",
  "node/test_upsample_nearest",
  "node/test_dropout_default_mask",
  "node/test_batchnorm_example",
  "node/test_scan_sum",
  "node/test_scan9_sum",
  "node/test_scatter_with_axis",
  "node/test_gridsample_bicubic",
  "node/test_argmax_keepdims_example_select_last_index",
  "node/test_gathernd_example_int32_batch_dim1",
  "node/test_slice_neg_steps",
  "node/test_edge_pad",
  "node/test_or_bcast4v2d",
  "pytorch-converted/test_Softmax",
  "pytorch-converted/test_log_softmax_dim3",
  "pytorch-converted/test_ReflectionPad2d",
  "pytorch-operator/test_operator_chunk",
  "pytorch-operator/test_operator_clip",
  "pytorch-operator/test_operator_pad",
  "node/test_nllloss_NC",
];

/** Conversions down to 11 that must be refused, and why. */
const REFUSED_AT_11: Record<string, RegExp> = {
  // The split sizes and axes are graph inputs: known only at run time, attributes before 13.
  "node/test_split_variable_parts_2d": /\(split\) is computed at run time/,
  "node/test_squeeze": /axes.*computed at run time/,
  "node/test_unsqueeze_two_axes": /axes.*computed at run time/,
  // An operator that does not exist at 11.
  "node/test_nllloss_NC": /does not exist before opset 12/,
};

const present = libonnxPresent("the converter's sample of libonnx-testdata");

describe.skipIf(!present)("converter on a sample of libonnx-testdata", () => {
  for (const test of SAMPLE)
    it(test, async () => {
      const m = loadCorpusModel(join(LIBONNX_ROOT, test));
      expect(m, "test data").toBeDefined();
      expect((await runOnOrt(m!.model, m!.sets)).ok, "onnxruntime runs the original").toBe(true);
      const interp = runOnInterpreter(m!.model, m!.sets).ok;
      const targets = [17, 21, 26].filter((t) => t >= m!.opset);
      if (m!.opset === 13) targets.push(11);
      for (const t of targets) {
        const r = await convertAndRun(m!, t, interp);
        const why = t === 11 ? REFUSED_AT_11[test] : undefined;
        if (why) {
          expect(r.outcome, `opset ${m!.opset} -> ${t}`).toBe("refused");
          expect(r.reason).toMatch(why);
          continue;
        }
        expect(r, `opset ${m!.opset} -> ${t}`).toMatchObject({ outcome: "pass" });
        expect(r.checkProblems, `check at ${t}`).toEqual([]);
      }
    });
});

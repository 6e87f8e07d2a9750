// The op legalizations `lower --target` runs (one a file, legalize-kit.ts says what they share):
// each rewrites the nodes of an op the target lacks into ops it has, exactly, and the lot runs
// with a simplification between rounds (what one rewrite makes constant, or makes another op's
// input static, another can use) until nothing changes. Approximations run only when asked for
// by name (`--approximate erf`).

import { approximateErf } from "./approximate-erf.js";
import { legalizeAbs } from "./legalize-abs.js";
import type { HasOp, LegalizeOptions, TakesType } from "./legalize-kit.js";
import { legalizeConv1d } from "./legalize-conv1d.js";
import { legalizeCompare } from "./legalize-compare.js";
import { legalizeDynamicQuantize } from "./legalize-dynamic-quantize.js";
import { legalizeExpand } from "./legalize-expand.js";
import { legalizeBoolData } from "./legalize-bool-data.js";
import { legalizeGather } from "./legalize-gather.js";
import { legalizeGatherIndices } from "./legalize-gather-indices.js";
import { legalizeGatherND } from "./legalize-gathernd.js";
import { legalizeHardSwish } from "./legalize-hardswish.js";
import { legalizeIsNaN } from "./legalize-isnan.js";
import { legalizeIsNaNByEqual } from "./legalize-isnan-equal.js";
import { legalizeBoolLogic } from "./legalize-bool-logic.js";
import { legalizeCastFirst } from "./legalize-cast-first.js";
import { legalizeCastRange, type InputRanges } from "./legalize-cast-range.js";
import { legalizeMatMulInteger } from "./legalize-matmul-integer.js";
import { legalizeMask } from "./legalize-mask.js";
import { legalizeNeg } from "./legalize-neg.js";
import { legalizePad } from "./legalize-pad.js";
import { legalizeReduceMax } from "./legalize-reduce-max.js";
import { legalizeReduceSum } from "./legalize-reduce-sum.js";
import { legalizeQLinearConv } from "./legalize-qlinearconv.js";
import { legalizeQuantize } from "./legalize-quantize.js";
import { legalizeReciprocal } from "./legalize-reciprocal.js";
import { legalizeRecurrent } from "./legalize-recurrent.js";
import { legalizeRound } from "./legalize-round.js";
import { legalizeScan } from "./legalize-scan.js";
import { legalizeRowMaxGuard } from "./legalize-row-max-guard.js";
import { runPass } from "./manager.js";
import { reduceTransposeRank } from "./reduce-transpose-rank.js";
import type { Note, Pass } from "./pass.js";
import { simplifyPipeline } from "./simplify.js";

/** What may be approximated when asked (by name). */
export const APPROXIMATIONS = ["erf"] as const;
export type Approximation = (typeof APPROXIMATIONS)[number];

export interface LegalizeForTargetOptions {
  has: HasOp;
  /** The element types the target runs each op on (absent: any type of the ops it has). */
  takes?: TakesType;
  /** Which nodes the target refuses in their form only (LegalizeOptions.refuses). */
  refuses?: LegalizeOptions["refuses"];
  approximate?: readonly Approximation[];
  foldLimit?: number;
  /** Most rounds (default 8). */
  rounds?: number;
  /** The declared values of integer graph inputs (legalize-cast-range's tables). */
  inputRanges?: InputRanges;
}

/** The legalizations, in the order one round runs them. */
export function legalizations(o: LegalizeForTargetOptions): Pass[] {
  const options: LegalizeOptions = {
    has: o.has,
    ...(o.takes ? { takes: o.takes } : {}),
    ...(o.refuses ? { refuses: o.refuses } : {}),
  };
  const passes = [
    legalizeGather(options),
    legalizeGatherND(options),
    legalizePad(options),
    legalizeExpand(options),
    legalizeNeg(options),
    legalizeAbs(options),
    legalizeReciprocal(options),
    legalizeHardSwish(options),
    // LSTM/GRU/RNN of a static length unrolled into the per-step arithmetic.
    legalizeRecurrent(options),
    // A Scan of a static length unrolled, where its body (legalized) needs only what the target has.
    legalizeScan(options, (m) => {
      // (a body's inputs are not the graph's: no declared ranges there)
      const r = runPass(legalizeForTarget({ ...o, inputRanges: undefined }), m);
      return r.ok ? r.model : m;
    }),
    reduceTransposeRank(options),
    // An IsNaN of a value shown finite is false (it and its Where go); any other is Not(Equal).
    legalizeIsNaN(options),
    legalizeRowMaxGuard(options),
    legalizeIsNaNByEqual(options),
    legalizeMask(options),
    // Element types the target refuses in masks and positions: a Cast moved before the op that
    // refuses its input type; a bool mask's And/Or/Xor and moves on 0 and 1.
    legalizeCastFirst(options),
    // A Cast of an integer input the target refuses to cast, with a declared range: a table.
    legalizeCastRange(options, o.inputRanges ?? new Map()),
    legalizeBoolLogic(options),
    legalizeBoolData(options),
    // After legalize-mask, which follows the same chains into a Where the target lacks.
    legalizeCompare(options),
    legalizeDynamicQuantize(options),
    legalizeMatMulInteger(options),
    // Nodes of an op the target has, in a form it refuses: made a form it takes.
    legalizeConv1d(options),
    legalizeGatherIndices(options),
    // Quantized models where the target lacks Quantize/DequantizeLinear, or Round.
    legalizeQLinearConv(options),
    legalizeQuantize(options),
    legalizeRound(options),
  ];
  if (o.approximate?.includes("erf")) passes.push(approximateErf(options));
  return passes;
}

/**
 * The reductions the target lacks, as Max/Min trees and MatMuls with ones: run only in a round
 * where the rest changed nothing, since the bounds of finite-values (and the guards it lets go)
 * read a softmax by its ReduceMax and ReduceSum.
 */
export function lateLegalizations(o: LegalizeForTargetOptions): Pass[] {
  const options = { has: o.has };
  return [legalizeReduceMax(options), legalizeReduceSum(options)];
}

export function legalizeForTarget(o: LegalizeForTargetOptions): Pass {
  const [passes, late] = [legalizations(o), lateLegalizations(o)];
  const tidy = simplifyPipeline({ foldLimit: o.foldLimit });
  return {
    name: "legalize",
    run(model, ctx) {
      let current = model;
      let modified = false;
      const notes: Note[] = [];
      // a node's note (why it is left) once, however many rounds see it
      const seen = new Set<string>();
      for (let round = 0; round < (o.rounds ?? 8); round++) {
        let changed = false;
        // the late ones only in a round where the others changed nothing
        for (const list of [passes, late]) {
          if (changed) break;
          for (const p of list) {
            const r = runPass(p, current, ctx);
            if (!r.ok) return r;
            for (const n of r.notes) {
              const key = n.where === undefined ? undefined : `${n.where}: ${n.message}`;
              if (key !== undefined && seen.has(key)) continue;
              if (key !== undefined) seen.add(key);
              notes.push(n);
            }
            if (r.modified) [current, changed] = [r.model, true];
          }
        }
        if (!changed) break;
        modified = true;
        const s = runPass(tidy, current, ctx);
        if (!s.ok) return s;
        current = s.model;
      }
      return { ok: true, model: current, modified, notes };
    },
  };
}

// The transforms the command line and the page offer, the one place each is put together: a
// pipeline of passes, run by the pass manager on a model, giving its result (a model and notes,
// or a refusal with the notes that say why). The CLI's commands (and its batch workers) and the
// page's worker (through Session) call these, never the passes' own constructors, so a command
// means the same thing everywhere. A new command made of passes is one function here (a
// pipeline, run by `transform`) and one file in cli/commands.
//
// The converter lowers function ops its target lacks with the expander's lowerMissing
// (src/convert/lowering.ts): the layer that sees both passes it in, here, unless `lower` is false.

import {
  convertModel as convertWith,
  convertPass as convertPassWith,
  convertPipeline as convertPipelineWith,
  type ConversionResult,
  type ConvertOptions,
  type PassConvertOptions,
} from "../convert/index.js";
import type { ExpandOptions } from "../expand/context.js";
import { simplifyPipeline, type SimplifyOptions } from "../passes/simplify.js";
import { classifyModel, type TargetReport } from "../targets/classify.js";
import { profileOps, rowFor, versionSupported, type Profile } from "../targets/profile.js";
import { flattenToReshape } from "../passes/flatten-to-reshape.js";
import { SchemaRegistry } from "../schema/registry.js";
import { lowerMissing } from "../expand/lower-missing.js";
import { expandPipeline as expandOnly, placeOriginsPass } from "../expand/pipeline.js";
import { functionOpsOf, opsWorthKeeping } from "../targets/keep.js";
import { legalizeFloat64 } from "../passes/legalize-float64.js";
import { legalizeInt64 } from "../passes/legalize-int64.js";
import { legalizeForTarget, type Approximation } from "../passes/legalize.js";
import { removeDeadValues } from "../passes/remove-dead-values.js";
import { inferValueInfo } from "../passes/infer-value-info.js";
import { precisionPass, type PrecisionRequest } from "./precision.js";
import { dtypeName } from "../ir/dtype.js";
import type { Model, Node } from "../ir/types.js";
import { pipeline, runPass } from "../passes/manager.js";
import {
  failureError,
  modelOf,
  passContext,
  type Note,
  type Pass,
  type PassContext,
  type PassResult,
} from "../passes/pass.js";
import { validateModel } from "../passes/validate-model.js";
import { recordChanges, type StepChange } from "./changes.js";
import { checkInputRanges, recordInputRanges, type InputRanges } from "./ranges.js";

export type TransformResult = PassResult;

/** A pass (a pipeline) run on a model by the manager: what every transform here is. */
export function transform(model: Model, pass: Pass, ctx: PassContext = passContext()): PassResult {
  return runPass(pass, model, ctx);
}

/**
 * transform, and what each step changed pushed to `steps` when given (recordChanges: one entry
 * for the pass, or one per step of a pipeline with `bySteps`), for a command to say.
 */
function transformRecorded(
  model: Model,
  pass: Pass,
  steps: StepChange[] | undefined,
  bySteps = false,
): PassResult {
  if (!steps) return transform(model, pass);
  const r = recordChanges(pass, bySteps);
  const out = transform(model, r.pass);
  steps.push(...r.steps);
  return out;
}

/** The converter's options as a command gives them: `lower: false` refuses what lowering takes. */
export type ConvertRequest = Omit<PassConvertOptions, "lower"> & { lower?: boolean };

/** The options with the lowering they ask for (on unless `lower` is false). */
function withLowering<T extends { lower?: boolean }>(
  req: T,
): Omit<T, "lower"> & { lower?: ConvertOptions["lower"] } {
  const { lower, ...rest } = req;
  return lower === false ? rest : { ...rest, lower: lowerMissing };
}

/**
 * The model converted to ai.onnx opset `target`, with the plan (what `convert --plan` prints);
 * function ops the target lacks are lowered on the way unless `lower` is false.
 */
export function convertModel(
  model: Model,
  target: number,
  req: ConvertRequest & Pick<ConvertOptions, "registry" | "progress"> = {},
): ConversionResult {
  return convertWith(model, target, withLowering(req));
}

/**
 * What `convert --plan` shows: the model validated as `convert` validates it (its first step,
 * validate-model), so that a model the converter cannot take is refused for the same reason with
 * or without --plan; then convertModel's plan. The refusal is thrown (failureError).
 */
export function planConversion(
  model: Model,
  target: number,
  req: ConvertRequest & Pick<ConvertOptions, "registry" | "progress"> = {},
): ConversionResult {
  const valid = transform(model, validateModel());
  if (!valid.ok) throw failureError(valid);
  return convertModel(model, target, req);
}

/** The convert-opset pass, lowering as convertModel does. */
export function convertPass(target: number, req: ConvertRequest = {}): Pass {
  return convertPassWith(target, withLowering(req));
}

/** What `convert --opset N` runs: the model validated, then converted (lowering as above). */
export function convertPipeline(target: number, req: ConvertRequest = {}): Pass {
  return convertPipelineWith(target, withLowering(req));
}

/** The model converted to ai.onnx opset `target` (convertPipeline, run). */
export function convert(
  model: Model,
  target: number,
  req: ConvertRequest = {},
  steps?: StepChange[],
): TransformResult {
  return transformRecorded(model, convertPipeline(target, req), steps);
}

/** What `expand` takes: the expander's options, and an opset to convert the result to. */
export interface ExpandRequest extends ExpandOptions {
  opset?: number;
}

/**
 * What `expand` runs: the expander; with `opset`, then the converter (lowering on), and the
 * origins placed last, for the IR version of the converted model.
 */
export function expandPipeline(req: ExpandRequest = {}): Pass {
  const { opset, ...options } = req;
  if (opset === undefined) return expandOnly(options);
  const { maxNodes, maxMemory, origin } = options;
  const passes = [
    expandOnly({ ...options, deferOrigins: true }),
    convertPass(opset, {
      ...(maxNodes !== undefined ? { maxNodes } : {}),
      ...(maxMemory !== undefined ? { maxMemory } : {}),
      ...(origin !== undefined ? { origin } : {}),
    }),
  ];
  if (origin !== false) passes.push(placeOriginsPass());
  return pipeline(`expand --opset ${opset}`, passes);
}

/** The model with function ops expanded as `req` selects (expandPipeline, run). */
export function expand(
  model: Model,
  req: ExpandRequest = {},
  steps?: StepChange[],
): TransformResult {
  return transformRecorded(model, expandPipeline(req), steps);
}

/** What `simplify` runs: simplifyPipeline (passes/simplify.ts, its steps listed there once). */
export function simplify(
  model: Model,
  req: SimplifyOptions = {},
  steps?: StepChange[],
): TransformResult {
  return transformRecorded(model, simplifyPipeline(req), steps);
}

/** What `lower --target` takes: the profile, and the simplification's options. */
export interface LowerRequest extends SimplifyOptions {
  profile: Profile;
  /** Then made half (float16 or bfloat16), verified: the to-half pass with the target's types. */
  precision?: PrecisionRequest;
  /** Ops the target lacks that may be approximated (by name; docs/semantics.md states the bounds). */
  approximate?: readonly Approximation[];
  /** The ai.onnx opset to lower to (default: the model's, moved into the profile's range). */
  opset?: number;
  /**
   * Declared values of integer inputs (`--input-range`, app/ranges.ts): a Cast the target refuses
   * of such an input becomes a table lookup, exact within the range; recorded in the metadata.
   */
  inputRanges?: InputRanges;
}

/**
 * A lowered model, what the target still lacks in it (check --target's report), and what each
 * step of lowerSteps that ran did (the precision step last, when asked).
 */
export type LowerResult =
  | (Extract<TransformResult, { ok: true }> & { report: TargetReport; steps: StepChange[] })
  | Extract<TransformResult, { ok: false }>;

/** A step of lowering: its pass's name, when it runs (as `lower --help` says it), and the pass. */
export interface LowerStep {
  name: string;
  when: string;
  /** The pass, for this model and target; undefined: the step does not apply. */
  make(): Pass | undefined;
}

/**
 * The steps of `lower --target X`, in order, each with the condition it runs under: the one
 * description of lowering, which lowerPipeline runs and `lower --help` and docs/architecture.md
 * print (lowerSteps() without a model gives the names and conditions only). Simplify first (fixed
 * dims, folded constants, no Identity, no dead values: what folds, such as a Range over fixed
 * dims, need not be expanded into what the target may lack), convert into the target's opset
 * range, expand the function and onnxruntime ops the target lacks (what cannot be expanded is
 * left, with a warning), simplify again; then the result is classified against the profile.
 */
export function lowerSteps(model?: Model, req?: LowerRequest): LowerStep[] {
  const p = req?.profile;
  const onnx = model?.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx")?.version;
  const opset = !p || !model ? 0 : (req?.opset ?? nearestOpset(model, p));
  const hasOp = (op: string) => {
    const row = p && rowFor(p, "", op);
    const v = SchemaRegistry.default().tryResolve("", op, opset);
    return !!row && !!v && versionSupported(row, v.since);
  };
  // The element types the profile runs an op on: its data input's own (input-types of input 0),
  // else the op's types.
  const takes = (op: string, elemType: number) => {
    const row = p && rowFor(p, "", op);
    if (!row || !hasOp(op)) return false;
    const name = dtypeName(elemType);
    const own = row.constraints.find((c) => c.kind === "input-types" && c.input === 0);
    if (own?.kind === "input-types") return own.types.includes(name);
    return !row.types || row.types.includes(name);
  };
  const applies = (test: () => boolean) => model !== undefined && p !== undefined && test();
  const simplifyOptions: SimplifyOptions = {
    ...(req?.foldLimit !== undefined ? { foldLimit: req.foldLimit } : {}),
    ...(req?.maxMemory !== undefined ? { maxMemory: req.maxMemory } : {}),
  };
  // onnxruntime's Quantize/DequantizeLinear become ai.onnx's where the target has those (the
  // model keeps its QDQ pairs), else float arithmetic.
  const standardQuantOps = () => hasOp("QuantizeLinear") && hasOp("DequantizeLinear");
  const flatten = () => (hasOp("Reshape") && !hasOp("Flatten") ? [flattenToReshape()] : []);
  // Which nodes of a model's main graph the profile judges partial (its op and types, a
  // constraint failed): the legalizations of a form the target refuses (a 1D Conv for NNAPI) ask.
  const refuses = (m: Model) => {
    const partial = new Set<Node>();
    const seen = new Set<number>();
    for (const v of classifyModel(m, p!).nodes)
      if (v.at.fn === -1 && !seen.has(v.at.index)) {
        seen.add(v.at.index); // the node itself comes before its subgraphs' nodes
        if (v.verdict === "partial") partial.add(m.graph.nodes[v.at.index]!);
      }
    return (n: Node) => partial.has(n);
  };
  // Ops the target lacks rewritten into ops it has (Gather as GatherND, Pad as Concat, …).
  const legalize = () =>
    legalizeForTarget({
      has: hasOp,
      takes,
      refuses,
      foldLimit: req?.foldLimit,
      ...(req?.approximate ? { approximate: req.approximate } : {}),
      ...(req?.inputRanges ? { inputRanges: req.inputRanges } : {}),
    });
  return [
    {
      name: "simplify",
      when: "always",
      make: () => (model ? simplifyPipeline(req) : undefined),
    },
    {
      name: "legalize-float64",
      when: "the profile refuses a node's float64 (made float32 where the values fit)",
      make: () =>
        applies(() =>
          classifyModel(model!, p!).nodes.some((n) =>
            n.reasons.some((r) => /element type double/.test(r)),
          ),
        )
          ? legalizeFloat64()
          : undefined,
    },
    {
      name: "convert",
      when: "the model's opset is outside the profile's range, or a later one leaves less unsupported",
      make: () =>
        applies(() => onnx !== undefined && opset !== onnx) ? convertPass(opset) : undefined,
    },
    {
      name: "expand",
      when: "always: the function and onnxruntime ops the target lacks (a body that, folded and legalized, still needs what the target lacks stays)",
      make: () => {
        if (!model || !p) return undefined;
        const quant = standardQuantOps();
        // Judged on the model as it reaches this step (dims fixed, constants folded, converted),
        // each body settled as lowering will settle it.
        const settle = pipeline("settle", [
          simplifyPipeline(simplifyOptions),
          ...flatten(),
          legalize(),
        ]);
        const tidy = simplifyPipeline(simplifyOptions);
        return {
          name: "expand",
          run(m, ctx) {
            // By rounds: the function ops of the graph as it stands are expanded, and the
            // function ops their bodies call wait, as nodes, for the folding between rounds (a
            // Range over a head count or a sequence length fixed by the dims folds away there;
            // expanded at once it would be a Loop nothing folds).
            let current = m;
            let modified = false;
            const notes: Note[] = [];
            for (let round = 0; round < 6; round++) {
              const keep = opsWorthKeeping(current, p, opset, ctx.registry, quant, (body) =>
                modelOf(transform(body, settle, ctx)),
              );
              // (the first round runs whatever the graph holds: the expander validates it)
              const only = functionOpsOf(current, opset, ctx.registry);
              if (round > 0 && !only.length) break;
              const r = runPass(
                expandOnly({
                  standardQuantOps: quant,
                  targetOps: profileOps(p),
                  targetResidue: "none",
                  leaveUnbuilt: true,
                  only,
                  ...(keep.length ? { keep } : {}),
                }),
                current,
                ctx,
              );
              for (const n of r.notes) notes.push(n);
              if (!r.ok) return { ...r, notes };
              if (!r.modified) break;
              [current, modified] = [r.model, true];
              const s = runPass(tidy, current, ctx);
              if (!s.ok) return { ...s, notes: [...notes, ...s.notes] };
              current = s.model;
            }
            return { ok: true, model: current, modified, notes };
          },
        };
      },
    },
    {
      name: "flatten-to-reshape",
      when: "the profile has Reshape and lacks Flatten",
      make: () => (applies(() => flatten().length > 0) ? flattenToReshape() : undefined),
    },
    {
      name: "simplify",
      when: "always",
      make: () => (model ? simplifyPipeline(simplifyOptions) : undefined),
    },
    {
      name: "legalize",
      when: "the profile lacks an op that an exact rewrite turns into ops it has (until nothing changes)",
      make: () => (model && p ? legalize() : undefined),
    },
    {
      name: "legalize-int64",
      when: "some op of the profile lists types without int64 (int32 where the values fit)",
      make: () => {
        if (
          !applies(() => Object.values(p!.ops).some((r) => r.types && !r.types.includes("int64")))
        )
          return undefined;
        return pipeline("legalize-int64", [
          legalizeInt64({
            accepts: (n) => {
              const types = rowFor(p!, n.domain ?? "", n.opType)?.types;
              return !types || types.includes("int64");
            },
          }),
          removeDeadValues(),
        ]);
      },
    },
    {
      name: "precision",
      when: "--precision float16|bfloat16: made half where the target's types allow, verified",
      // On the model as the target gets it (dims fixed: no --dim left to draw).
      make: () =>
        model && p && req?.precision
          ? precisionPass({ ...req.precision, dims: new Map() }, p)
          : undefined,
    },
    {
      name: "infer-value-info",
      when: "always: every value's type and dims written in value_info (onnxruntime's checker reads shapes by ONNX's inference, which stops at onnxruntime's own ops)",
      make: () => (model ? inferValueInfo() : undefined),
    },
  ];
}

/**
 * The two pipelines as `simplify --help`, `lower --help` and docs/architecture.md print them, from
 * simplifyPipeline's steps and lowerSteps (never retyped).
 */
export function describePipelines(): { simplify: string; lower: string } {
  const simplify = simplifyPipeline().steps.map((p) => p.name);
  return {
    simplify: `simplify runs, in order: ${simplify.join(", ")}.`,
    lower: [
      "lower runs, in order (then classifies the result against the profile):",
      ...lowerSteps().map((s, i) => `  ${i + 1}. ${s.name}: ${s.when}`),
    ].join("\n"),
  };
}

/** What `lower --target X` runs, as one pipeline: the steps of lowerSteps that apply. */
export function lowerPipeline(model: Model, req: LowerRequest): Pass {
  const passes: Pass[] = [];
  for (const s of lowerSteps(model, req)) {
    const pass = s.make();
    if (pass) passes.push(pass);
  }
  return pipeline(`lower --target ${req.profile.name}`, passes);
}

/** The model's ai.onnx opset moved into the profile's range (the range's top when it has none). */
function nearestOpset(model: Model, p: Profile): number {
  const onnx = model.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx")?.version;
  return onnx === undefined ? p.opset.max : Math.min(p.opset.max, Math.max(p.opset.min, onnx));
}

/**
 * The opsets below `opset` at which an older version of an ai.onnx op the report leaves
 * unsupported for its version is supported: for each such op, the newest opset its row's
 * bounded ranges reach (Cos-22 unsupported where the row has Cos-7 to 21: opset 21), newest first.
 */
function olderOpsets(m: Model, report: TargetReport, p: Profile, opset: number): number[] {
  const registry = SchemaRegistry.default();
  const found = new Set<number>();
  for (const r of report.nodes) {
    if (r.verdict !== "unsupported" || r.at.fn !== -1) continue;
    const n = m.graph.nodes[r.at.index];
    if (!n || (n.domain !== "" && n.domain !== "ai.onnx")) continue;
    const row = rowFor(p, "", n.opType);
    const v = registry.tryResolve("", n.opType, opset);
    if (!row || !v || versionSupported(row, v.since)) continue;
    const tops = row.versions
      .map((x) => x.to)
      .filter((t): t is number => t !== undefined && t < opset && t >= p.opset.min);
    if (tops.length) found.add(Math.max(...tops));
  }
  return [...found].sort((a, b) => b - a);
}

/**
 * The model lowered (lowerPipeline, run) and classified. Without a given opset: at the model's
 * own (moved into the profile's range), and where that leaves nodes unsupported, also at the top
 * of the range (a function op's body may need a later opset: SkipLayerNormalization's needs
 * LayerNormalization-17), and then at the newest opsets where an op left unsupported for its
 * version has an older version the profile supports (two at most: webgpu's Cos-22 is not
 * supported, Cos-7 is, to opset 21); the one leaving fewer unsupported nodes is kept, the first
 * on a tie.
 */
export function lower(model: Model, req: LowerRequest): LowerResult {
  if (req.inputRanges) checkInputRanges(model, req.inputRanges);
  const r = lowerChecked(model, req);
  return r.ok && req.inputRanges?.size
    ? { ...r, model: recordInputRanges(r.model, req.inputRanges) }
    : r;
}

function lowerChecked(model: Model, req: LowerRequest): LowerResult {
  const first = nearestOpset(model, req.profile);
  const opsets = req.opset !== undefined ? [req.opset] : [first, req.profile.opset.max];
  // The opset is chosen without the precision step, which runs the model in the interpreter to
  // verify it: it runs once, on the chosen result.
  const { precision, ...plain } = req;
  let best: LowerResult | undefined;
  let bestLeft = Infinity;
  const tried = new Set<number>();
  let older = req.opset === undefined ? 2 : 0;
  for (let i = 0; i < opsets.length; i++) {
    const opset = opsets[i]!;
    if (tried.has(opset)) continue;
    tried.add(opset);
    const steps: StepChange[] = [];
    const r = transformRecorded(model, lowerPipeline(model, { ...plain, opset }), steps, true);
    if (!r.ok) {
      best ??= r;
      continue;
    }
    const report = classifyModel(r.model, req.profile);
    const left = report.nodes.filter((n) => n.verdict === "unsupported").length;
    if (left < bestLeft) [best, bestLeft] = [{ ...r, report, steps }, left];
    if (left === 0) break;
    for (const o of olderOpsets(r.model, report, req.profile, opset))
      if (older > 0 && !tried.has(o) && !opsets.includes(o)) {
        opsets.push(o);
        older--;
      }
  }
  if (!best?.ok) return best!;
  if (!precision) return best;
  const steps = [...best.steps];
  const half = transformRecorded(
    best.model,
    precisionPass({ ...precision, dims: new Map() }, req.profile),
    steps,
  );
  if (!half.ok) return { ...half, notes: [...best.notes, ...half.notes] };
  // The value_info written last, with the half types.
  const typed = runPass(inferValueInfo(), half.model);
  return {
    ...half,
    ...(typed.ok ? { model: typed.model } : {}),
    modified: best.modified || half.modified,
    notes: [...best.notes, ...half.notes],
    report: classifyModel(typed.ok ? typed.model : half.model, req.profile),
    steps,
  };
}

// expand: function ops inlined down to primitive ops (all of them, some, or what a backend lacks);
// diff: what changed between two models, matched by structure.

import type { Command } from "commander";
import { formatNote } from "../../app/notes.js";
import { parseDims } from "../../app/dims.js";
import { formatInputRanges, parseInputRanges } from "../../app/ranges.js";
import type { Model } from "../../ir/types.js";
import type { SimplifyOptions } from "../../passes/simplify.js";
import { APPROXIMATIONS, type Approximation } from "../../passes/legalize.js";
import {
  describePipelines,
  expand,
  lower,
  simplify,
  type ExpandRequest,
} from "../../app/transform.js";
import { formatTargetReport, fullySupported, type TargetReport } from "../../targets/classify.js";
import { OnnxError } from "../../errors.js";
import { targetOpset } from "../../convert/index.js";
import { loadProfile } from "../../targets/load.js";
import { profileOps } from "../../targets/profile.js";
import { diffModels, formatDiff } from "../../diff/index.js";
import { DEFAULT_MAX_NODES } from "../../expand/bounds.js";
import { parseOpList, parseTargetOps } from "../../expand/select.js";
import { readSmallTextFile, saveModel } from "../../io/files.js";
import { errorNotes, failureError, type Note } from "../../passes/pass.js";
import { SchemaRegistry } from "../../schema/registry.js";
import { printModel } from "../../text/print.js";
import {
  EXIT_FAILED,
  EXIT_OK,
  action,
  defaultMaxMemory,
  expansionBounds,
  groupDigits,
  inFile,
  loadModel,
  oneLine,
  writeListed,
  parseByteSize,
} from "../util.js";
import { dataOptions, withDataOptions, type DataFlags } from "../data-options.js";
import { modelNodeCounts, type StepChange } from "../../app/changes.js";
import { changeLines, dimsLine, lowerLines, wroteLine } from "../report.js";
import { precisionRequest, withPrecisionOptions, type PrecisionFlags } from "./precision.js";

interface ExpandCliOptions extends DataFlags {
  output?: string;
  force?: boolean;
  print?: boolean;
  only?: string;
  keep?: string;
  targetOps?: string;
  target?: string;
  opset?: string;
  preferLoops?: boolean;
  maxNodes?: string;
  maxMemory?: string;
  /** commander's negation: --no-origin. */
  origin?: boolean;
}

function noteLine(n: Note): string {
  return oneLine(formatNote(n));
}

export function registerExpandCommands(program: Command): void {
  withDataOptions(
    program
      .command("expand")
      .description(
        "inline function ops (schema functions and model-local functions) into the ops they are made of",
      )
      .argument("<model>", "model file (.onnx or .onnxtxt)")
      .option("-o, --output <file>", "output model (.onnx, or .onnxtxt for text)")
      .option("--force", "allow the output to replace the input")
      .option("--print", "print the expanded model as ONNX text to stdout")
      .option("--only <ops>", "expand only these ops (comma-separated [domain:]Op[:version])")
      .option("--keep <ops>", "expand every function op but these")
      .option(
        "--target-ops <file>",
        "a backend's op list (one [domain:]Op[:version] a line): expand exactly what it lacks",
      )
      .option(
        "--target <name>",
        "a backend profile (onnx-expand targets, name@version, ai.onnx-<N> or a file): expand the function ops it lacks",
      )
      .option("--opset <n>", "then convert the result to this ai.onnx opset")
      .option("--prefer-loops", "use loop forms (Scan) where a body also has a loop-free form")
      .option(
        "--max-nodes <n>",
        `most nodes the result may have, counted before inlining (default ${groupDigits(DEFAULT_MAX_NODES)})`,
      )
      .option(
        "--max-memory <bytes>",
        "most bytes the result may take on the heap (e.g. 512M, 4G; default and cap: half of V8's heap limit)",
      )
      .option("--no-origin", "record no origin for the nodes put in (docs/semantics.md)"),
  ).action(
    action((file: string, opts: ExpandCliOptions) => {
      if (!opts.output && !opts.print)
        throw new OnnxError("E_USAGE", "expand needs -o OUT or --print (or both)");
      if (opts.only && opts.keep)
        throw new OnnxError("E_USAGE", "--only and --keep cannot be used together");
      const options: ExpandRequest = {};
      if (opts.opset !== undefined)
        options.opset = targetOpset(opts.opset, SchemaRegistry.default().maxOpset(""), "--opset");
      if (opts.only) options.only = parseOpList(opts.only, "--only");
      if (opts.keep) options.keep = parseOpList(opts.keep, "--keep");
      if (opts.targetOps) {
        const text = readSmallTextFile(opts.targetOps, "file of ops");
        options.targetOps = parseTargetOps(text, opts.targetOps);
      }
      if (opts.target) {
        if (opts.targetOps)
          throw new OnnxError("E_USAGE", "--target and --target-ops cannot be used together");
        options.targetOps = profileOps(loadProfile(opts.target));
        options.targetResidue = "warning";
      }
      if (opts.preferLoops) options.preferLoops = true;
      Object.assign(options, expansionBounds(opts));
      if (opts.origin === false) options.origin = false;
      const model = loadModel(file);
      const steps: StepChange[] = [];
      const r = inFile(file, () => expand(model, options, steps));
      if (!r.ok) {
        // A model the expander cannot take at all (a cycle of calls, an expansion over its
        // bound): bad input.
        if (r.stage === "requires")
          return inFile(file, () => {
            throw failureError(r);
          });
        const lines = r.notes.filter((n) => n.level !== "info").map(noteLine);
        writeListed(
          lines.map((l) => `onnx-expand: ${l}`),
          (more) => `onnx-expand: … and ${more} more`,
        );
        const n = errorNotes(r.notes).length;
        process.stderr.write(
          `onnx-expand: ${r.pass ?? "expand"} failed: ${n} problem${n === 1 ? "" : "s"}${opts.output ? `; nothing written to ${opts.output}` : ""}\n`,
        );
        return EXIT_FAILED;
      }
      const current = r.model;
      const notes = r.notes;
      writeListed(
        notes.filter((n) => n.level !== "info").map((n) => `onnx-expand: ${noteLine(n)}`),
        (more) => `onnx-expand: … and ${more} more warnings`,
      );
      if (opts.output)
        saveModel(current, opts.output, {
          inputPath: file,
          force: opts.force,
          ...dataOptions(opts),
        });
      if (opts.print) process.stdout.write(printModel(current, { elideStored: true }));
      else writeReport(opts.output!, model, current, steps);
      return EXIT_OK;
    }),
  );

  withDataOptions(
    withSimplifyOptions(program.command("simplify"))
      .description(
        "fix symbolic dims, fold constants (shape chains included), remove Identity and dead nodes",
      )
      .addHelpText("after", `\n${describePipelines().simplify}`),
  ).action(
    action((file: string, opts: SimplifyFlags) => {
      const model = loadModel(file);
      const request = simplifyRequest(opts);
      const steps: StepChange[] = [];
      const r = inFile(file, () => simplify(model, request, steps));
      if (!r.ok)
        return inFile(file, () => {
          throw failureError(r);
        });
      saveSimplified(file, r, opts);
      writeReport(opts.output, model, r.model, steps, dimsLine(request.dims!, r.model));
      return EXIT_OK;
    }),
  );

  withDataOptions(
    withPrecisionOptions(withSimplifyOptions(program.command("lower")))
      .description(
        "make a model run on a backend: convert into its opset range, expand what it lacks, fix dims and fold constants, then say what remains unsupported",
      )
      .requiredOption(
        "--target <name>",
        "the backend profile (onnx-expand targets, name@version, ai.onnx-<N> or a file)",
      )
      .option(
        "--approximate <ops>",
        `approximate these ops where the target lacks them (${APPROXIMATIONS.join(", ")}; bounds in docs/semantics.md)`,
      )
      .option(
        "--input-range <name=lo:hi,...>",
        "declare the values of an integer input (every one in [lo, hi]): a Cast the target refuses of it becomes a table lookup, exact only within the range; repeatable",
        (v: string, prev: string[]) => [...prev, v],
        [] as string[],
      )
      .option("--strict", "exit 1 when anything remains unsupported")
      .option("--json", "the target report as JSON on stdout")
      .option(
        "--precision <type>",
        "then compute in float16 or bfloat16 where the target's types allow, verified (see `precision`)",
      )
      .addHelpText("after", `\n${describePipelines().lower}`),
  ).action(
    action(
      (
        file: string,
        opts: SimplifyFlags &
          PrecisionFlags & {
            target: string;
            strict?: boolean;
            json?: boolean;
            precision?: string;
            approximate?: string;
            inputRange: string[];
          },
      ) => {
        const profile = loadProfile(opts.target);
        if (
          opts.precision === undefined &&
          (opts.keepOps ||
            opts.keepNodes ||
            opts.clamp ||
            opts.keepIoTypes !== undefined ||
            opts.verify === false)
        )
          throw new OnnxError("E_USAGE", "the precision options need --precision float16|bfloat16");
        const precision =
          opts.precision === undefined ? undefined : precisionRequest(opts.precision, opts);
        const approximate = parseApproximations(opts.approximate);
        const inputRanges = parseInputRanges(...opts.inputRange);
        const model = loadModel(file);
        const request = simplifyRequest(opts);
        const r = inFile(file, () =>
          lower(model, {
            profile,
            ...request,
            ...(precision ? { precision } : {}),
            ...(approximate ? { approximate } : {}),
            ...(inputRanges.size ? { inputRanges } : {}),
          }),
        );
        if (!r.ok)
          return inFile(file, () => {
            throw failureError(r);
          });
        saveSimplified(file, r, opts);
        const ranges = inputRanges.size ? formatInputRanges(inputRanges) : undefined;
        if (opts.json)
          process.stdout.write(
            JSON.stringify(
              ranges ? { ...r.report, inputRanges: Object.fromEntries(inputRanges) } : r.report,
              null,
              2,
            ) + "\n",
          );
        else {
          // Each step that changed the model, its kinds of change under it; the dims left; the
          // ranges the result is exact within.
          const dims = dimsLine(request.dims!, r.model);
          process.stdout.write(
            [
              wroteLine(opts.output, modelNodeCounts(model), modelNodeCounts(r.model)),
              ...lowerLines(r.steps, profile.name),
              ...(dims ? [dims] : []),
              ...(ranges
                ? [
                    `input ranges: ${ranges} (declared: the lowered model gives the original's values only for inputs within them)`,
                  ]
                : []),
            ].join("\n") + "\n",
          );
          process.stdout.write(
            [...formatTargetReport(r.report), ...rangeHints(r.notes, r.report)]
              .map((l) => `${l}\n`)
              .join(""),
          );
        }
        return opts.strict && !fullySupported(r.report) ? EXIT_FAILED : EXIT_OK;
      },
    ),
  );

  program
    .command("diff")
    .description(
      "what changed between two models (nodes, values, initializers, functions, opset imports), matched by structure",
    )
    .argument("<a>", "the model before")
    .argument("<b>", "the model after")
    .option("--json", "machine-readable output")
    .action(
      action((a: string, b: string, opts: { json?: boolean }) => {
        const d = diffModels(loadModel(a), loadModel(b));
        if (opts.json) process.stdout.write(JSON.stringify(d, null, 2) + "\n");
        else process.stdout.write(formatDiff(d, { a, b }));
        return EXIT_OK;
      }),
    );
}

/** `--approximate erf,…`: names of the approximations lower knows; any other is a usage error. */
function parseApproximations(text: string | undefined): Approximation[] | undefined {
  if (text === undefined) return undefined;
  const names = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const known = APPROXIMATIONS as readonly string[];
  const bad = names.find((n) => !known.includes(n));
  if (bad !== undefined || !names.length)
    throw new OnnxError(
      "E_USAGE",
      `--approximate: '${bad ?? text}' is not an approximation lower knows (${APPROXIMATIONS.join(", ")})`,
    );
  return names as Approximation[];
}

/**
 * A hint per integer input whose Cast the target refuses and stays so for want of a declared range
 * (legalize-cast-range's note), where the report still names the input.
 */
function rangeHints(notes: readonly Note[], report: TargetReport): string[] {
  const names = new Set<string>();
  for (const n of notes) {
    const m = /declare the values of input '([^']*)'/.exec(n.message);
    if (m) names.add(m[1]!);
  }
  const reasons = report.nodes.filter((n) => n.verdict !== "supported").flatMap((n) => n.reasons);
  return [...names]
    .filter((name) => reasons.some((r) => r.includes(`'${name}'`)))
    .map(
      (name) =>
        `hint: --input-range ${name}=LO:HI declares the values of input '${name}': its Cast, which the target refuses, is then read from a table (exact within the range)`,
    );
}

/** The output and simplification options `simplify` and `lower` share. */
type SimplifyFlags = DataFlags & {
  output: string;
  force?: boolean;
  dim: string[];
  foldLimit?: string;
  maxMemory?: string;
};

function withSimplifyOptions(cmd: Command): Command {
  return cmd
    .argument("<model>", "model file (.onnx or .onnxtxt)")
    .requiredOption("-o, --output <file>", "output model (.onnx, or .onnxtxt for text)")
    .option("--force", "allow the output to replace the input")
    .option(
      "--dim <name=v,...>",
      "values of symbolic input dims (name=v, or input[axis]=v); repeatable",
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option("--fold-limit <bytes>", "largest folded tensor (default 1M)")
    .option(
      "--max-memory <bytes>",
      "most bytes the folded constants may take in all (default: half the physical memory)",
    );
}

function simplifyRequest(opts: SimplifyFlags): SimplifyOptions {
  return {
    dims: parseDims(...opts.dim),
    maxMemory:
      opts.maxMemory === undefined
        ? defaultMaxMemory()
        : parseByteSize(opts.maxMemory, "--max-memory"),
    ...(opts.foldLimit === undefined
      ? {}
      : { foldLimit: parseByteSize(opts.foldLimit, "--fold-limit") }),
  };
}

/** The success line, a line per kind of change, and the dims line when there is one. */
function writeReport(
  out: string,
  before: Model,
  after: Model,
  steps: StepChange[],
  dims?: string,
): void {
  const lines = [wroteLine(out, modelNodeCounts(before), modelNodeCounts(after))];
  lines.push(...changeLines(steps), ...(dims ? [dims] : []));
  process.stdout.write(lines.join("\n") + "\n");
}

/** Warnings to stderr, then the model written as the options say. */
function saveSimplified(file: string, r: { model: Model; notes: Note[] }, opts: SimplifyFlags) {
  writeListed(
    r.notes.filter((n) => n.level !== "info").map((n) => `onnx-expand: ${noteLine(n)}`),
    (more) => `onnx-expand: … and ${more} more warnings`,
  );
  saveModel(r.model, opts.output, { inputPath: file, force: opts.force, ...dataOptions(opts) });
}

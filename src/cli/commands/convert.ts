// convert: change a model's ai.onnx opset (up or down), one model (-o) or many (--output-dir),
// show the plan without converting (--plan), or list the adapter table (--list-adapters).

import { Presets, SingleBar } from "cli-progress";
import type { Command } from "commander";
import { existsSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { Worker } from "node:worker_threads";
import { convert, planConversion, type ConvertRequest } from "../../app/transform.js";
import {
  ADAPTER_ROWS,
  breakingSteps,
  stepLabel,
  targetOpset,
  type ConversionPlan,
} from "../../convert/index.js";
import { DEFAULT_MAX_NODES } from "../../expand/bounds.js";
import { OnnxError } from "../../errors.js";
import type { Model } from "../../ir/types.js";
import { saveModel, type SaveOptions } from "../../io/files.js";
import { errorNotes, failureError, noteText, type Note } from "../../passes/pass.js";
import { SchemaRegistry } from "../../schema/registry.js";
import {
  EXIT_FAILED,
  EXIT_OK,
  action,
  expansionBounds,
  groupDigits,
  inFile,
  loadModel,
  oneLine,
  writeListed,
} from "../util.js";
import { dataOptions, withDataOptions, type DataFlags } from "../data-options.js";
import { modelNodeCounts, type NodeCounts, type StepChange } from "../../app/changes.js";
import { changeLines, wroteLine } from "../report.js";

interface ConvertOpts extends DataFlags {
  opset?: string;
  output?: string;
  outputDir?: string;
  force?: boolean;
  plan?: boolean;
  json?: boolean;
  listAdapters?: boolean;
  jobs?: string;
  /** commander's negations: --no-lower, --no-origin. */
  lower?: boolean;
  origin?: boolean;
  maxNodes?: string;
  maxMemory?: string;
}

export function registerConvertCommands(program: Command): void {
  withDataOptions(
    program
      .command("convert")
      .description("convert models to another ai.onnx opset (up or down), planned first")
      .argument("[models...]", "model files (.onnx or .onnxtxt)")
      .option("--opset <n>", "the target ai.onnx opset")
      .option("-o, --output <file>", "output model (one input)")
      .option("--output-dir <dir>", "write <dir>/<basename> for each input")
      .option("--force", "allow an output to replace its input")
      .option("--plan", "print what each node's version steps need, convert nothing")
      .option("--json", "with --plan: machine-readable output")
      .option("--list-adapters", "print the adapter table and the breaking steps that have none")
      .option("--jobs <k>", "with --output-dir: convert on K worker threads", "1")
      .option(
        "--no-lower",
        "refuse function ops the target opset lacks instead of lowering them to their bodies",
      )
      .option("--no-origin", "record no origin for the nodes lowering puts in")
      .option(
        "--max-nodes <n>",
        `lowering: most nodes the result may have (default ${groupDigits(DEFAULT_MAX_NODES)})`,
      )
      .option("--max-memory <bytes>", "lowering: most bytes the result may take on the heap"),
  ).action(action((models: string[], opts: ConvertOpts) => convertCommand(models, opts)));
}

function usage(message: string): never {
  throw new OnnxError("E_USAGE", message);
}

function parseCount(text: string, what: string, min: number): number {
  if (!/^\d+$/.test(text)) usage(`${what} must be a whole number, got '${text}'`);
  const n = Number(text);
  if (n < min) usage(`${what} must be at least ${min}`);
  return n;
}

async function convertCommand(models: string[], opts: ConvertOpts): Promise<number> {
  if (opts.listAdapters) {
    process.stdout.write(listAdapters(Boolean(opts.json)));
    return EXIT_OK;
  }
  if (models.length === 0) usage("give at least one model");
  if (opts.opset === undefined) usage("--opset N is required");
  const target = targetOpset(opts.opset, SchemaRegistry.default().maxOpset(""), "--opset");
  const options = loweringOptions(opts);
  if (opts.plan) return planCommand(models, target, Boolean(opts.json), options);
  if (opts.json) usage("--json goes with --plan or --list-adapters");
  if (opts.output && opts.outputDir) usage("give -o or --output-dir, not both");
  if (models.length > 1 && !opts.outputDir)
    usage("several models need --output-dir DIR (-o names one output)");
  const data = dataOptions(opts);
  if (opts.outputDir) {
    if (data.externalData && models.length > 1)
      usage(
        "--external-data names one file: with several models each output's data goes to <output>.data",
      );
    const jobs = parseCount(opts.jobs ?? "1", "--jobs", 1);
    return batch(
      models,
      target,
      opts.outputDir,
      { force: Boolean(opts.force), ...data },
      jobs,
      options,
    );
  }
  if (!opts.output) usage("give -o OUT (or --plan to see what would change)");
  const file = models[0]!;
  const steps: StepChange[] = [];
  const converted = convertOne(file, target, options, steps);
  if (typeof converted === "number") return converted;
  save(converted.model, opts.output, file, { force: Boolean(opts.force), ...data });
  process.stdout.write(
    [
      wroteLine(opts.output, converted.before, modelNodeCounts(converted.model)),
      ...changeLines(steps),
    ].join("\n") + "\n",
  );
  return EXIT_OK;
}

/** Where a converted model is written, for one model (-o) and for many (--output-dir) alike. */
/** Where every command of this file writes a model: the data rules are the save options'. */
function save(model: Model, out: string, inputPath: string, opts: SaveOptions): void {
  saveModel(model, out, { ...opts, inputPath });
}

/**
 * The file's model converted, or the exit code of a refusal (printed). Its own function so that
 * the input model, its analysis and the pass's notes (100,000 on a 100,000-node chain) are
 * garbage while the output is written: less heap to grow and to mark.
 */
function convertOne(
  file: string,
  target: number,
  options: ConvertRequest,
  steps: StepChange[],
): { model: Model; before: NodeCounts } | number {
  let before: NodeCounts | undefined;
  const result = inFile(file, () => {
    const model = loadModel(file);
    before = modelNodeCounts(model);
    // The notes of a success are not printed (what changed is in `steps`): none are made.
    return convert(model, target, { ...options, infoNotes: false }, steps);
  });
  if (!result.ok) {
    // A model the converter cannot take at all (the checker finds it invalid): bad input.
    if (result.stage === "requires")
      return inFile(file, () => {
        throw failureError(result);
      });
    printBlocked(file, target, errorNotes(result.notes));
    return EXIT_FAILED;
  }
  return { model: result.model, before: before! };
}

/** --no-lower, --no-origin and the expansion's bound, as the app's convert takes them. */
function loweringOptions(opts: ConvertOpts): ConvertRequest {
  const out: ConvertRequest = {};
  if (opts.lower === false) out.lower = false;
  if (opts.origin === false) out.origin = false;
  return { ...out, ...expansionBounds(opts) };
}

function printBlocked(file: string, target: number, blocked: Note[]): void {
  const n = blocked.length;
  process.stderr.write(
    `onnx-expand: error: ${oneLine(file)}: cannot convert to opset ${target}: ${n} node${n === 1 ? "" : "s"} blocked; nothing written\n`,
  );
  writeListed(
    blocked.map((note) => `  ${oneLine(noteText(note))}`),
    (more) => `  … and ${more} more blocked nodes (\`convert --plan --json\` lists them all)`,
  );
}

function planCommand(
  models: string[],
  target: number,
  json: boolean,
  options: ConvertRequest,
): number {
  let failed = 0;
  const plans: (ConversionPlan & { model: string })[] = [];
  for (const file of models) {
    const result = inFile(file, () => planConversion(loadModel(file), target, options));
    if (result.plan.blocked.length) failed++;
    plans.push({ model: file, ...result.plan });
  }
  if (json) {
    const shown = (p: (typeof plans)[number]) => ({
      ...p,
      ok: p.blocked.length === 0,
    });
    process.stdout.write(
      JSON.stringify(models.length === 1 ? shown(plans[0]!) : plans.map(shown), null, 2) + "\n",
    );
  } else for (const p of plans) process.stdout.write(formatPlan(p.model, p));
  return failed ? EXIT_FAILED : EXIT_OK;
}

export function formatPlan(file: string, p: ConversionPlan): string {
  const lines: string[] = [];
  const from = p.from === undefined ? "(no ai.onnx import)" : String(p.from);
  const ir = p.blocked.length
    ? `IR ${p.irVersion.from}`
    : `IR ${p.irVersion.from} -> ${p.irVersion.to}`;
  lines.push(`${file}: ai.onnx opset ${from} -> ${p.to}, ${ir}`);
  const lowered = p.lowered?.length ? `, ${p.lowered.length} lowered first` : "";
  lines.push(
    `  ${p.nodes} node-steps looked at: ${p.freeSteps} free, ${p.adapted.length} adapted, ${p.blocked.length} blocked${lowered}`,
  );
  for (const l of p.lowered ?? [])
    lines.push(
      `  lower  ${l.where}: ${stepLabel(l)} (opset ${l.opsetFrom} -> ${l.opsetTo}): ${l.message}`,
    );
  for (const a of p.adapted)
    lines.push(
      `  adapt  ${a.where}: ${stepLabel(a)} (opset ${a.opsetFrom} -> ${a.opsetTo}): ${a.message}`,
    );
  for (const w of p.warnings)
    lines.push(
      `  note   ${w.where}: ${stepLabel(w)} (opset ${w.opsetFrom} -> ${w.opsetTo}): ${w.message}`,
    );
  for (const b of p.blocked)
    lines.push(
      `  BLOCK  ${b.where}: ${stepLabel(b)} (opset ${b.opsetFrom} -> ${b.opsetTo}): ${b.message}`,
    );
  lines.push(p.blocked.length ? "  result: refused (nothing would be written)" : "  result: ok");
  return lines.map(oneLine).join("\n") + "\n";
}

/** The adapter rows, then every breaking step of the registry that has none (and why). */
function listAdapters(json: boolean): string {
  const rows = [...ADAPTER_ROWS].sort(
    (a, b) => a.op.localeCompare(b.op) || a.from - b.from || a.to - b.to,
  );
  // The breaking steps without a row: a node that uses the change is blocked.
  const missing = breakingSteps()
    .filter((s) => !s.row)
    .map(({ op, from, to, reason }) => ({ op, from, to, reason }));
  if (json)
    return (
      JSON.stringify(
        {
          adapters: rows.map(({ domain, op, from, to, summary }) => ({
            domain,
            op,
            from,
            to,
            summary,
          })),
          withoutAdapter: missing,
        },
        null,
        2,
      ) + "\n"
    );
  const out = [`${rows.length} adapters:`];
  for (const r of rows) out.push(`  ${stepLabel(r).padEnd(34)} ${r.summary}`);
  out.push(
    `${missing.length} breaking steps without an adapter (nodes that use the change are blocked):`,
  );
  for (const m of missing) out.push(`  ${stepLabel(m).padEnd(34)} ${m.reason}`);
  return out.join("\n") + "\n";
}

// ---- many models ----

interface JobResult {
  file: string;
  ok: boolean;
  /** The refusal, or the success line (`wrote …`). */
  message: string;
  /** On success: what changed, a line per kind. */
  changes?: string[];
}

/** Converts one file to `out`; never throws (a failure is the result's message). */
export function convertFile(
  file: string,
  out: string,
  target: number,
  saveOpts: SaveOptions,
  options: ConvertRequest = {},
): JobResult {
  try {
    const input = loadModel(file);
    const before = modelNodeCounts(input);
    const steps: StepChange[] = [];
    const result = convert(input, target, { ...options, infoNotes: false }, steps);
    if (!result.ok) {
      const notes = errorNotes(result.notes);
      const more = notes.length > 1 ? ` (and ${notes.length - 1} more)` : "";
      return { file, ok: false, message: `${noteText(notes[0]!)}${more}` };
    }
    save(result.model, out, file, saveOpts);
    return {
      file,
      ok: true,
      message: wroteLine(out, before, modelNodeCounts(result.model)),
      changes: changeLines(steps),
    };
  } catch (e) {
    return { file, ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

async function batch(
  models: string[],
  target: number,
  dir: string,
  saveOpts: SaveOptions,
  jobs: number,
  options: ConvertRequest,
): Promise<number> {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new OnnxError("E_IO", "output folder does not exist", dir);
  const byBase = new Map<string, string>();
  for (const m of models) {
    const b = basename(m);
    const prev = byBase.get(b);
    if (prev !== undefined && resolve(prev) !== resolve(m))
      usage(`'${prev}' and '${m}' would both be written to ${join(dir, b)}`);
    byBase.set(b, m);
  }
  const files = [...new Set(models.map((m) => resolve(m)))].map((abs) =>
    models.find((m) => resolve(m) === abs)!,
  );
  const bar =
    process.stderr.isTTY && files.length > 1
      ? new SingleBar(
          { stream: process.stderr, format: "{bar} {value}/{total} {file}", clearOnComplete: true },
          Presets.shades_classic,
        )
      : undefined;
  bar?.start(files.length, 0, { file: "" });
  let ok = 0;
  let failed = 0;
  const report = (r: JobResult) => {
    bar?.increment(1, { file: basename(r.file) });
    if (r.ok) ok++;
    else failed++;
    const line = r.ok ? `ok: ${r.file}: ${r.message}` : `refused: ${r.file}: ${r.message}`;
    if (bar) bar.stop();
    process.stdout.write([oneLine(line), ...(r.changes ?? [])].join("\n") + "\n");
    if (bar && ok + failed < files.length) bar.start(files.length, ok + failed, { file: "" });
  };
  const outOf = (f: string) => join(dir, basename(f));
  if (jobs <= 1 || files.length <= 1) {
    for (const f of files) report(convertFile(f, outOf(f), target, saveOpts, options));
  } else {
    await inWorkers(
      files,
      Math.min(jobs, files.length),
      (f) => ({
        file: f,
        out: outOf(f),
        target,
        save: saveOpts,
        options,
      }),
      report,
    );
  }
  bar?.stop();
  process.stdout.write(`${ok} converted, ${failed} refused\n`);
  return failed ? EXIT_FAILED : EXIT_OK;
}

export interface WorkerJob {
  file: string;
  out: string;
  target: number;
  save: SaveOptions;
  options: ConvertRequest;
}

/** Runs the jobs on `k` worker threads, reporting each result as it comes. */
async function inWorkers(
  files: string[],
  k: number,
  job: (f: string) => WorkerJob,
  report: (r: JobResult) => void,
): Promise<void> {
  const here = import.meta.url;
  const workerUrl = new URL(`../convert-worker.${here.endsWith(".ts") ? "ts" : "js"}`, here);
  let next = 0;
  const runOne = (w: Worker) =>
    new Promise<void>((resolveAll, rejectAll) => {
      const feed = () => {
        if (next >= files.length) {
          void w.terminate();
          resolveAll();
          return;
        }
        w.postMessage(job(files[next++]!));
      };
      w.on("message", (r: JobResult) => {
        report(r);
        feed();
      });
      w.on("error", rejectAll);
      feed();
    });
  // From the TypeScript sources (tests, development) the worker registers the same loader first.
  const start = () =>
    workerUrl.pathname.endsWith(".ts")
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(workerUrl.href)}); });`,
          { eval: true },
        )
      : new Worker(workerUrl);
  const workers = Array.from({ length: k }, start);
  try {
    await Promise.all(workers.map(runOne));
  } catch (e) {
    for (const w of workers) void w.terminate();
    throw e;
  }
}

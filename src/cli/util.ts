// Shared CLI plumbing: exit codes and error printing.

import { statSync } from "node:fs";
import { totalmem } from "node:os";
import { acceptModel } from "../app/load.js";
import { OnnxError } from "../errors.js";
import { loadModel as loadModelFile, type LoadOptions } from "../io/files.js";
import { walkGraphNodes } from "../ir/visit.js";
import { FunctionTable } from "../ir/functions.js";
import type { Function, Model } from "../ir/types.js";

import { EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, isVerbose } from "./exit.js";

export { EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, setVerbose } from "./exit.js";

/** Thrown by commands to end with a given exit code after printing their own report. */
export class ExitCode extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Control characters (a newline in a value name, ...) shown as escapes, so a message stays one line. */
export function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) =>
    c === "\n" ? "\\n" : c === "\t" ? "\\t" : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

/**
 * A whole number with its thousands grouped, 1,000,000: written out, since the first use of Intl
 * (toLocaleString) costs tens of milliseconds of start-up.
 */
export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

/** Longest quoted text (a name, a token) an error line echoes in full. */
export const MAX_ECHO = 120;
/** Longest error line. */
export const MAX_ERROR_LINE = 1000;

/**
 * An error or problem line as printed: one line (control characters escaped), each quoted
 * text longer than MAX_ECHO characters cut to that with "…", and the whole line to
 * MAX_ERROR_LINE, so that a 1 MB identifier does not make a 1 MB error line.
 */
export function errorLine(text: string): string {
  // Quotes are taken in pairs from the left (a short quoted name is skipped whole, so the text
  // after its closing quote is not read as a quote of its own).
  let line = oneLine(
    text.replace(/'([^']*)('|$)/g, (m, body: string, end: string) =>
      body.length > MAX_ECHO ? `'${body.slice(0, MAX_ECHO)}…${end}` : m,
    ),
  );
  if (line.length > MAX_ERROR_LINE) line = line.slice(0, MAX_ERROR_LINE) + "…";
  return line;
}

/** Runs f; an OnnxError that names no place gets `file` as its place (errors name the file). */
export function inFile<T>(file: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (!(e instanceof OnnxError) || e.where !== undefined) throw e;
    // The same error, named after the file; what else it carries (a pass's notes) stays.
    const named = new OnnxError(e.code, e.message, file);
    for (const [k, v] of Object.entries(e)) if (!(k in named)) Object.assign(named, { [k]: v });
    throw named;
  }
}

/**
 * Loads a model file as every command does: read and decoded (io/loadModel), then held to the
 * rules of loading that the page's Session applies too (app/load.ts acceptModel).
 */
export function loadModel(path: string, opts: LoadOptions = {}): Model {
  return acceptModel(loadModelFile(path, opts), path);
}

/**
 * How deeply a model nests: its deepest subgraph plus its longest chain of calls between local
 * functions (a cycle counts as endless). Worked out without recursion over lists, so a model
 * with a million nodes in one graph nests 0 levels.
 */
export function modelNesting(model: Model): number {
  let graphs = 0;
  for (const owner of [model.graph, ...model.functions])
    for (const { depth } of walkGraphNodes(owner)) graphs = Math.max(graphs, depth);
  // The longest chain of calls, callee-first over the function table (a call of a function is
  // one level; each call it makes, one more).
  const table = new FunctionTable(model.functions);
  const order = table.order();
  if (!order) return Infinity;
  const longest = new Map<Function, number>();
  let chain = 0;
  for (const f of order) {
    let best = 1;
    for (const g of table.callees(f)) best = Math.max(best, 1 + longest.get(g)!);
    longest.set(f, best);
    chain = Math.max(chain, best);
  }
  return graphs + chain;
}

/** Models nesting at least this deeply may run a recursive walk out of stack. */
export const DEEP_NESTING = 64;

function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/**
 * What running out of stack on `file` means. Only nesting (subgraphs, chains of function calls)
 * may do that: on a model that nests little it is a bug (recursion over a list of nodes, inputs,
 * initializers, ...), reported as an internal error.
 */
function stackOverflowLine(file: string | undefined): string {
  let nesting: number | undefined;
  if (file !== undefined)
    try {
      if (statSync(file).isFile()) nesting = modelNesting(loadModelFile(file));
    } catch (e) {
      if (isStackOverflow(e)) nesting = Infinity;
    }
  const at = file === undefined ? "" : `${file}: `;
  if (nesting === undefined || nesting >= DEEP_NESTING)
    return `onnx-expand: error: ${errorLine(`${at}the model is nested too deeply to process (${nesting === undefined || nesting === Infinity ? "" : `${nesting} levels of `}subgraphs or function calls)`)}`;
  return `onnx-expand: internal error: ${errorLine(`${at}ran out of stack on a model that nests only ${nesting} level${nesting === 1 ? "" : "s"} (a bug: please report it, with --verbose)`)}`;
}

/**
 * Prints an error as one line (a stack trace only with --verbose) and returns the exit code.
 * `file`: the model the command was reading, named when an error names no place.
 */
export function reportError(e: unknown, file?: string): number {
  if (e instanceof ExitCode) return e.code;
  if (e instanceof OnnxError) {
    process.stderr.write(`onnx-expand: error: ${errorLine(e.message)}\n`);
    if (isVerbose() && e.stack) process.stderr.write(`${e.stack}\n`);
    return e.code === "E_CHECK" ? EXIT_FAILED : EXIT_BAD_INPUT;
  }
  const msg = e instanceof Error ? e.message : String(e);
  if (isStackOverflow(e)) {
    process.stderr.write(`${stackOverflowLine(file)}\n`);
    if (isVerbose() && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
    return EXIT_BAD_INPUT;
  }
  process.stderr.write(`onnx-expand: internal error: ${errorLine(msg.split("\n")[0]!)}\n`);
  if (isVerbose() && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  return EXIT_BAD_INPUT;
}

/** Wraps a command action so that errors become one line and an exit code. */
export function action<A extends unknown[]>(
  fn: (...args: A) => void | number | Promise<void | number>,
) {
  return async (...args: A): Promise<void> => {
    try {
      const code = await fn(...args);
      process.exitCode = typeof code === "number" ? code : EXIT_OK;
    } catch (e) {
      // A command's first argument is its model (or list of models) where it reads one.
      const first = Array.isArray(args[0]) && args[0].length === 1 ? args[0][0] : args[0];
      process.exitCode = reportError(e, typeof first === "string" ? first : undefined);
    }
  };
}

const BYTE_UNITS: Record<string, number> = {
  "": 1,
  k: 2 ** 10,
  m: 2 ** 20,
  g: 2 ** 30,
  t: 2 ** 40,
};

/** A byte count: an integer, optionally with a binary unit (512M, 4G, 4GiB). */
export function parseByteSize(text: string, what: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(text);
  const n = m ? Math.floor(Number(m[1]) * BYTE_UNITS[m[2]!.toLowerCase()]!) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new OnnxError(
      "E_USAGE",
      `${what} must be a positive number of bytes (e.g. 2000000000, 512M, 4G), got '${text}'`,
    );
  return n;
}

/**
 * --max-nodes and --max-memory (expand, and convert's lowering): the bounds of an expansion,
 * parsed; each is left out when not given.
 */
export function expansionBounds(opts: { maxNodes?: string; maxMemory?: string }): {
  maxNodes?: number;
  maxMemory?: number;
} {
  const out: { maxNodes?: number; maxMemory?: number } = {};
  if (opts.maxNodes !== undefined) {
    if (!/^\d+$/.test(opts.maxNodes) || !(Number(opts.maxNodes) >= 1))
      throw new OnnxError(
        "E_USAGE",
        `--max-nodes must be a positive integer, not '${opts.maxNodes}'`,
      );
    out.maxNodes = Number(opts.maxNodes);
  }
  if (opts.maxMemory !== undefined) out.maxMemory = parseByteSize(opts.maxMemory, "--max-memory");
  return out;
}

/** The default memory budget of a run: half of the machine's physical memory. */
export function defaultMaxMemory(): number {
  return Math.floor(totalmem() / 2);
}

/** At most this many problem lines go to stderr; the rest are counted (a model can have 100k). */
export const MAX_LISTED = 100;

/** Writes lines to stderr, the first MAX_LISTED of them, then one line counting the rest. */
export function writeListed(lines: string[], rest: (more: number) => string): void {
  const shown = lines.slice(0, MAX_LISTED);
  let out = shown.map((l) => `${l}\n`).join("");
  if (lines.length > shown.length) out += `${rest(lines.length - shown.length)}\n`;
  process.stderr.write(out);
}

// Shared CLI plumbing: exit codes and error printing.

import { totalmem } from "node:os";
import { OnnxError } from "../errors.js";

export const EXIT_OK = 0;
/** A check or test failed. */
export const EXIT_FAILED = 1;
/** Bad usage or bad input. */
export const EXIT_BAD_INPUT = 2;

let verbose = false;
export function setVerbose(v: boolean): void {
  verbose = v;
}

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
  let line = oneLine(
    text.replace(
      new RegExp(`'([^']{${MAX_ECHO + 1},})('|$)`, "g"),
      (_m, body: string, end: string) => `'${body.slice(0, MAX_ECHO)}…${end}`,
    ),
  );
  if (line.length > MAX_ERROR_LINE) line = line.slice(0, MAX_ERROR_LINE) + "…";
  return line;
}

/** Prints an error as one line (a stack trace only with --verbose) and returns the exit code. */
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

export function reportError(e: unknown): number {
  if (e instanceof ExitCode) return e.code;
  if (e instanceof OnnxError) {
    process.stderr.write(`onnx-expand: error: ${errorLine(e.message)}\n`);
    if (verbose && e.stack) process.stderr.write(`${e.stack}\n`);
    return e.code === "E_CHECK" ? EXIT_FAILED : EXIT_BAD_INPUT;
  }
  const msg = e instanceof Error ? e.message : String(e);
  if (e instanceof RangeError && /call stack/i.test(msg)) {
    // Recursion over the model's structure ran out of stack: bad input, not a bug to report.
    process.stderr.write(
      "onnx-expand: error: the model is nested too deeply to process (subgraphs or function calls)\n",
    );
    if (verbose && e.stack) process.stderr.write(`${e.stack}\n`);
    return EXIT_BAD_INPUT;
  }
  process.stderr.write(`onnx-expand: internal error: ${errorLine(msg.split("\n")[0]!)}\n`);
  if (verbose && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
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
      process.exitCode = reportError(e);
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

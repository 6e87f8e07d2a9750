// onnx-expand command line: each command lives in commands/<name>.ts and registers itself here.
// The `onnx-expand` binary (bin.ts) goes through program.ts's startCli, which loads only the
// commands a command line needs; buildProgram and main have them all, for library callers and tests.

import type { Command } from "commander";
import { guardTempFiles } from "../io/atomic.js";
import { createProgram, runProgram } from "./program.js";
import { registerFileCommands } from "./commands/files.js";
import { registerSchemaCommands } from "./commands/schema.js";
import { registerCheckCommands } from "./commands/check.js";
import { registerRunCommands } from "./commands/run.js";
import { registerPrecisionCommands } from "./commands/precision.js";
import { registerExpandCommands } from "./commands/expand.js";
import { registerConvertCommands } from "./commands/convert.js";
import { registerInspectCommands } from "./commands/inspect.js";

/** The program with every command registered, in program.ts's COMMAND_MODULES order. */
export function buildProgram(): Command {
  const program = createProgram();
  registerFileCommands(program);
  registerSchemaCommands(program);
  registerCheckCommands(program);
  registerRunCommands(program);
  registerExpandCommands(program);
  registerPrecisionCommands(program);
  registerConvertCommands(program);
  registerInspectCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  // Ctrl-C ends the process at once; the janitor removes the temporary files of a cut-short write.
  guardTempFiles();
  await runProgram(buildProgram(), argv);
}

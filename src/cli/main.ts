// onnx-expand command line: each command lives in commands/<name>.ts and registers itself here.

import { Command, CommanderError } from "commander";
import { guardTempFiles } from "../io/atomic.js";
import { EXIT_BAD_INPUT, setVerbose } from "./util.js";
import { registerFileCommands } from "./commands/files.js";
import { registerSchemaCommands } from "./commands/schema.js";
import { registerCheckCommands } from "./commands/check.js";
import { registerRunCommands } from "./commands/run.js";
import { registerExpandCommands } from "./commands/expand.js";
import { registerConvertCommands } from "./commands/convert.js";
import { registerInspectCommands } from "./commands/inspect.js";

export function buildProgram(): Command {
  const program = new Command();
  program
    .name("onnx-expand")
    .description(
      "Convert ONNX models between opsets, expand function ops into primitives, inspect and run them.",
    )
    .version("0.1.0")
    .option("--verbose", "print stack traces with errors")
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      outputError: (str, write) => write(`onnx-expand: ${str.replace(/^error: /, "error: ")}`),
    })
    .hook("preAction", (cmd) => setVerbose(Boolean(cmd.opts().verbose)));
  registerFileCommands(program);
  registerSchemaCommands(program);
  registerCheckCommands(program);
  registerRunCommands(program);
  registerExpandCommands(program);
  registerConvertCommands(program);
  registerInspectCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  // Ctrl-C ends the process at once (no handler: one could not run while a model is encoded);
  // the temporary files of a write it cuts short are removed by a janitor process.
  guardTempFiles();
  // A reader that stops early (`print big.onnx | head`) closes the pipe: end quietly, as other
  // command-line tools do, instead of dying on an unhandled EPIPE with a stack trace.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    process.stderr.write(`onnx-expand: error: cannot write output: ${e.code ?? e.message}\n`);
    process.exit(EXIT_BAD_INPUT);
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit 0; everything else commander rejects is bad usage.
      process.exitCode = e.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
      return;
    }
    throw e;
  }
}

// The program's shell: name, global options and error handling, and which module registers which
// command. The command modules are loaded on demand (start-up): `onnx-expand info m.onnx` loads
// the module of `info` only, `--version` none; `--help`, `help` and anything not a command name
// load them all, so that help and commander's own messages are those of the whole program.

import { Command, CommanderError } from "commander";
import { EXIT_BAD_INPUT, setVerbose } from "./exit.js";

import { VERSION } from "./version.js";

export { VERSION };

/** Registers some of the program's commands on it. */
export type Register = (program: Command) => void;

/** A command module: the commands it registers, in order, and how to load its register function. */
export interface CommandModule {
  commands: readonly string[];
  load: () => Promise<Register>;
}

/** Every command module, in the order their commands appear in `--help`. */
export const COMMAND_MODULES: readonly CommandModule[] = [
  {
    commands: ["print", "parse", "info"],
    load: async () => (await import("./commands/files.js")).registerFileCommands,
  },
  {
    commands: ["schema"],
    load: async () => (await import("./commands/schema.js")).registerSchemaCommands,
  },
  {
    commands: ["check", "targets"],
    load: async () => (await import("./commands/check.js")).registerCheckCommands,
  },
  {
    commands: ["run", "test"],
    load: async () => (await import("./commands/run.js")).registerRunCommands,
  },
  {
    commands: ["expand", "simplify", "lower", "diff"],
    load: async () => (await import("./commands/expand.js")).registerExpandCommands,
  },
  {
    commands: ["precision"],
    load: async () => (await import("./commands/precision.js")).registerPrecisionCommands,
  },
  {
    commands: ["convert"],
    load: async () => (await import("./commands/convert.js")).registerConvertCommands,
  },
  {
    commands: ["inspect"],
    load: async () => (await import("./commands/inspect.js")).registerInspectCommands,
  },
];

/** The program with no commands yet: name, description, version and global options. */
export function createProgram(): Command {
  const program = new Command();
  program
    .name("onnx-expand")
    .description(
      "Convert ONNX models between opsets, expand function ops into primitives, inspect and run them.",
    )
    .version(VERSION)
    .option("--verbose", "print stack traces with errors, and every node a command changed")
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      outputError: (str, write) => write(`onnx-expand: ${str.replace(/^error: /, "error: ")}`),
    })
    .hook("preAction", (cmd) => setVerbose(Boolean(cmd.opts().verbose)));
  return program;
}

/**
 * The modules a command line needs: none for `--version` alone, the one registering the command
 * named (the first word not starting with "-": the global options take no values), and all of
 * them for anything else (help, an unknown command, no command).
 */
export function modulesFor(args: readonly string[]): readonly CommandModule[] {
  const word = args.find((a) => !a.startsWith("-"));
  // commander answers --version as it meets it, before any help: no command is needed.
  if (word === undefined && args.some((a) => a === "-V" || a === "--version")) return [];
  const one =
    word === undefined ? undefined : COMMAND_MODULES.find((m) => m.commands.includes(word));
  return one ? [one] : COMMAND_MODULES;
}

/**
 * Whether the command line names a file or folder to write (-o, --output, --output-dir,
 * --write-value-info): the janitor that guards temporary files then starts at once, while this
 * process is small (io/atomic.ts guardTempFiles).
 */
export function namesOutput(args: readonly string[]): boolean {
  return args.some((a) => /^(-o|--output|--write-)/.test(a));
}

/** Sets up the process as the CLI does, then parses `argv` and runs the command. */
export async function runProgram(program: Command, argv: string[]): Promise<void> {
  // A reader that stops early (`print big.onnx | head`) closes the pipe: end quietly, as other
  // command-line tools do, instead of dying on an unhandled EPIPE with a stack trace.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    process.stderr.write(`onnx-expand: error: cannot write output: ${e.code ?? e.message}\n`);
    process.exit(EXIT_BAD_INPUT);
  });
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

/**
 * The CLI's entry: registers only the commands `argv` needs (see modulesFor), then runs it.
 * Ctrl-C ends the process at once (no handler: one could not run while a model is encoded); the
 * temporary files of a write it cuts short are removed by a janitor process (io/atomic.ts).
 */
export async function startCli(argv: string[]): Promise<void> {
  const modules = modulesFor(argv.slice(2));
  const program = createProgram();
  if (modules.length) {
    const [registers, atomic] = await Promise.all([
      Promise.all(modules.map((m) => m.load())),
      import("../io/atomic.js"),
    ]);
    atomic.guardTempFiles(true, namesOutput(argv.slice(2)));
    for (const register of registers) register(program);
  }
  await runProgram(program, argv);
}

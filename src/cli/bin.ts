#!/usr/bin/env node
// The `onnx-expand` binary. Built, it runs the one-file bundle beside it with its code cache
// (launch.ts); from the sources (tests, development), program.ts directly. `--version` alone is
// answered here, as the program would, without loading it.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadBundle } from "./launch.js";
import { VERSION } from "./version.js";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`${VERSION}\n`);
} else {
  const bundle = fileURLToPath(new URL("./cli.cjs", import.meta.url));
  const cli = existsSync(bundle) ? loadBundle(bundle).cli : await import("./program.js");
  await cli.startCli(process.argv);
}

#!/usr/bin/env node
// The `onnx-expand` binary: `--version` alone is answered here, as the program would, without
// loading anything; everything else goes through launch.ts (the bundle and its code cache).
import { VERSION } from "./version.js";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V"))
  process.stdout.write(`${VERSION}\n`);
else await (await import("./launch.js")).launch(process.argv);

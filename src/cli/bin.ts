#!/usr/bin/env node
// The `onnx-expand` binary: `--version` alone is answered here, as the program would, without
// loading anything; everything else goes through launch.ts (the bundle and its code cache).
// The build makes it dist/cli/bin.cjs, a CommonJS file (scripts/build-cli.mjs): Node starts an
// ES module entry ~6 ms later, and that second module loader is then also what `import` of the
// launcher starts. tsc's dist/cli/bin.js (an ES module) does the same, for `node dist/cli/bin.js`.
import { VERSION } from "./version.js";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V"))
  process.stdout.write(`${VERSION}\n`);
else void import("./launch.js").then((l) => l.launch(process.argv));

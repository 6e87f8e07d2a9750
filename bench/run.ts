// `npm run bench`: runs each benchmark in its own process (so memory peaks don't mix), in turn.
//   npm run bench -- whole convert        only the benchmarks whose file names start so
//   npm run bench -- whole --sizes 10k,100k,1M --repeat 3   options after the names: bench/whole.ts's
// bench/whole.ts runs here with one run per size unless --repeat is given (3 for medians).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const benches = [
  "io.ts",
  "reduce.ts",
  "lcse.ts",
  "convert.ts",
  "expand.ts",
  "infer.ts",
  "whole.ts",
  "large.ts",
  "interp-models.ts",
];
const args = process.argv.slice(2);
const firstOption = args.findIndex((a) => a.startsWith("--"));
const only = firstOption < 0 ? args : args.slice(0, firstOption);
const options = firstOption < 0 ? [] : args.slice(firstOption);
const tsx = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
// Benchmarks of the converter and the expander time the compiled library (dist/): build it first.
const tsc = spawnSync(
  process.execPath,
  [
    fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url)),
    "-p",
    fileURLToPath(new URL("../tsconfig.json", import.meta.url)),
  ],
  { stdio: "inherit" },
);
if (tsc.status !== 0) process.exit(1);
// bench/whole.ts runs the CLI as users do: the bundle (scripts/build-cli.mjs) and its schemas.
for (const script of ["build-cli.mjs", "postbuild.mjs"]) {
  const r = spawnSync(
    process.execPath,
    [fileURLToPath(new URL(`../scripts/${script}`, import.meta.url))],
    { stdio: "inherit" },
  );
  if (r.status !== 0) process.exit(1);
}
let failed = 0;
for (const b of benches) {
  if (only.length && !only.some((o) => b.startsWith(o))) continue;
  const path = fileURLToPath(new URL(b, import.meta.url));
  if (!existsSync(path)) continue;
  console.log(`\n=== bench/${b} ===`);
  const extra =
    b !== "whole.ts" ? [] : options.includes("--repeat") ? options : [...options, "--repeat", "1"];
  const r = spawnSync(process.execPath, ["--expose-gc", "--import", tsx, path, ...extra], {
    stdio: "inherit",
  });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;

// `npm run bench`: runs each benchmark in its own process (so memory peaks don't mix), in turn.
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
  "interp-models.ts",
];
const only = process.argv.slice(2);
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
let failed = 0;
for (const b of benches) {
  if (only.length && !only.some((o) => b.startsWith(o))) continue;
  const path = fileURLToPath(new URL(b, import.meta.url));
  if (!existsSync(path)) continue;
  console.log(`\n=== bench/${b} ===`);
  const r = spawnSync(process.execPath, ["--expose-gc", "--import", tsx, path], {
    stdio: "inherit",
  });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;

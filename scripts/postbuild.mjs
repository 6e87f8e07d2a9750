// After tsc: marks the CLI entry points executable, and validates schemas/ once for every run of
// the built package. Each operator file is parsed and checked as the registry does at load
// (zod and the consistency rules: a broken file fails the build with its path and field), and all
// of them are written to dist/schema/operators.validated with a stamp of the folder; the registry takes
// them from there while schemas/ is unchanged (src/schema/files.node.ts), so that a command does
// not load zod and validate ~200 files on each start.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

for (const name of ["bin.cjs", "bin.js"]) {
  const bin = new URL(`../dist/cli/${name}`, import.meta.url);
  if (existsSync(bin)) chmodSync(bin, 0o755);
}

const files = await import("../dist/schema/files.node.js");
const { parseOperatorFile } = await import("../dist/schema/registry.js");
const dir = fileURLToPath(new URL("../schemas/", import.meta.url));
const { stamp, texts } = files.stampSchemaDir(dir);
// Each validated file is kept as JSON text behind a head naming its operator and newest version
// (src/schema/stamp.ts): a command parses only the operators it looks up.
const operators = texts.map((f) => parseOperatorFile(f.text, f.path));
files.writeValidatedSchemas(files.VALIDATED_SCHEMAS, stamp, operators);

// The CLI's code cache (scripts/cli-cache.mjs), made by the Node that builds, in a child process so
// that V8's flags are a user's, once the commands it runs find the validated schemas.
if (existsSync(new URL("../dist/cli/cli.cjs", import.meta.url))) {
  const made = spawnSync(
    process.execPath,
    [fileURLToPath(new URL("./cli-cache.mjs", import.meta.url))],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  if (made.status !== 0) throw new Error(`scripts/cli-cache.mjs failed (exit ${made.status})`);
}

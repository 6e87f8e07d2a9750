// Bundles the command line (start-up): dist/cli/bin.js and dist/cli/convert-worker.js, written by
// tsc as small modules importing ~200 others, are replaced by esbuild bundles of the same sources
// and their dependencies, split so that each command's code is a chunk loaded when the command is
// run (src/cli/program.ts imports the command modules on demand). Node then resolves and compiles
// a handful of files instead of ~200 modules, and `--version` compiles only commander and the
// program's shell. The rest of dist/ (the library) stays as tsc wrote it.
//
// A module that finds its files from `import.meta.url` (schemas/, proto/onnx.proto, dist/web/)
// gets the URL its tsc output has, so that the relative paths it uses hold in the bundle too.

import { build } from "esbuild";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const out = join(root, "dist", "cli");
const CHUNK = "bin-chunk-";

/** `import.meta.url` in a source file under src/: the URL of its tsc output, from the bundle's. */
const metaUrlAsInDist = {
  name: "import-meta-url-as-in-dist",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith(src + sep)) return undefined;
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return { contents: text, loader: "ts" };
      const asJs = relative(src, args.path).replace(/\.ts$/, ".js").split(sep).join("/");
      const rel = relative(out, join(root, "dist")).split(sep).join("/") || ".";
      const url = `new URL(${JSON.stringify(`${rel}/${asJs}`)}, import.meta.url).href`;
      return { contents: text.replaceAll("import.meta.url", url), loader: "ts" };
    });
  },
};

/**
 * The registry validates operator files with zod (src/schema/validate.ts), ~750 kB of code to
 * compile on each start, though the build has validated schemas/ already (scripts/postbuild.mjs).
 * So in the bundle, validate.js is a stub that loads the validator, bundled on its own as
 * CommonJS, on its first call only (a synchronous require, as the registry's constructor is).
 */
const VALIDATOR = "schema-validate.cjs";
const lazyValidator = {
  name: "lazy-validator",
  setup(b) {
    b.onResolve({ filter: /^\.\/validate\.js$/ }, (args) =>
      args.importer === join(src, "schema", "registry.ts")
        ? { path: "validate", namespace: "lazy-validator" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-validator" }, () => ({
      contents: `import { createRequire } from "node:module";
let validator;
export function validateOperatorFile(json) {
  validator ??= createRequire(import.meta.url)(${JSON.stringify(`./${VALIDATOR}`)});
  return validator.validateOperatorFile(json);
}`,
      loader: "js",
    }));
  },
};

for (const f of readdirSync(out, { withFileTypes: true }))
  if (f.isFile() && f.name.startsWith(CHUNK)) rmSync(join(out, f.name));

await build({
  entryPoints: {
    bin: join(src, "cli", "bin.ts"),
    "convert-worker": join(src, "cli", "convert-worker.ts"),
  },
  outdir: out,
  bundle: true,
  splitting: true,
  chunkNames: `${CHUNK}[hash]`,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  legalComments: "none",
  logLevel: "warning",
  // The dependencies that are CommonJS (commander, protobufjs, ...) require Node's modules.
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
  },
  plugins: [lazyValidator, metaUrlAsInDist],
});

await build({
  entryPoints: [join(src, "schema", "validate.ts")],
  outfile: join(out, VALIDATOR),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
});

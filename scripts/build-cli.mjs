// Bundles the command line (start-up). The program is one CommonJS file, dist/cli/cli.cjs, that
// dist/cli/bin.cjs (a small launcher, src/cli/bin.ts) compiles with V8's code cache made here by
// running the commands once (scripts/cli-cache.mjs, dist/cli/cli.cjs.cache): Node 20 has no code
// cache for ES modules, and Node then neither resolves ~200 modules nor parses the command's code
// (scripts/postbuild.mjs makes the cache once the schemas are validated).
// dist/cli/convert-worker.js (the threads of `convert --jobs`) is an ES module bundle of its own.
// The rest of dist/ (the library) stays as tsc wrote it.
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
const metaUrlAsInDist = (base) => ({
  name: "import-meta-url-as-in-dist",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith(src + sep)) return undefined;
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return { contents: text, loader: "ts" };
      const asJs = relative(src, args.path).replace(/\.ts$/, ".js").split(sep).join("/");
      const rel = relative(out, join(root, "dist")).split(sep).join("/") || ".";
      const url = `new URL(${JSON.stringify(`${rel}/${asJs}`)}, ${base}).href`;
      return { contents: text.replaceAll("import.meta.url", url), loader: "ts" };
    });
  },
});

/**
 * The registry validates operator files with zod (src/schema/validate.ts), ~750 kB of code to
 * compile on each start, though the build has validated schemas/ already (scripts/postbuild.mjs).
 * So in the bundle, validate.js is a stub that loads the validator, bundled on its own as
 * CommonJS, on its first call only (a synchronous require, as the registry's constructor is:
 * CommonJS's own in cli.cjs, the banner's in the ES module bundle).
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
      contents: `let validator;
export function validateOperatorFile(json) {
  validator ??= require(${JSON.stringify(`./${VALIDATOR}`)});
  return validator.validateOperatorFile(json);
}`,
      loader: "js",
    }));
  },
};

for (const f of readdirSync(out, { withFileTypes: true }))
  if (
    f.isFile() &&
    (f.name.startsWith(CHUNK) || f.name.startsWith("cli.cjs") || f.name === "bin.cjs")
  )
    rmSync(join(out, f.name));

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
  external: [`./${VALIDATOR}`],
};
// The dependencies that are CommonJS (commander, protobufjs, ...) require Node's modules.
const esmRequire = {
  js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
};

// The launcher, CommonJS (Node starts an ES module entry later): launch.ts bundled in it and
// initialised on its first import only, so that `--version` runs none of it; program.js, which
// launch.ts imports only when there is no bundle (from the sources), stays outside.
await build({
  ...common,
  entryPoints: [join(src, "cli", "bin.ts")],
  outfile: join(out, "bin.cjs"),
  format: "cjs",
  external: ["./program.js", `./${VALIDATOR}`],
  banner: { js: 'var __cli_url = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [metaUrlAsInDist("__cli_url")],
});

await build({
  ...common,
  entryPoints: [join(src, "cli", "program.ts")],
  outfile: join(out, "cli.cjs"),
  format: "cjs",
  sourcemap: true,
  // convert.ts names `import.meta.resolve` for the TypeScript sources only.
  logOverride: { "empty-import-meta": "silent" },
  banner: { js: 'var __cli_url = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [lazyValidator, metaUrlAsInDist("__cli_url")],
});

await build({
  ...common,
  entryPoints: { "convert-worker": join(src, "cli", "convert-worker.ts") },
  outdir: out,
  splitting: true,
  chunkNames: `${CHUNK}[hash]`,
  format: "esm",
  sourcemap: true,
  banner: esmRequire,
  plugins: [lazyValidator, metaUrlAsInDist("import.meta.url")],
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

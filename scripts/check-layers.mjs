// Checks that imports in src/ point down the layer order only (docs/architecture.md, "Layers").
// A file may import its own layer or a lower one; src/index.ts (the public API) may import any.
// Prints one line per violation (file: import "x" (layer a imports higher layer b)) and exits 1.
// Usage: node scripts/check-layers.mjs [srcDir]

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const LAYERS = [
  "errors",
  "proto",
  "ir",
  "text",
  "io",
  "schema",
  "check",
  "targets",
  "interp",
  "passes",
  "inline",
  "convert",
  "expand",
  "diff",
  "app",
  "cli",
  "web", // the page (web/, outside src): on top of everything
];

const SOURCE = /\.(ts|mts|js|mjs)$/;
// import ... from "x", export ... from "x", import "x", import("x")
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (SOURCE.test(e.name) && !e.name.endsWith(".d.ts")) yield p;
  }
}

/** The layer of a path inside src: its first folder, or errors for errors.ts; undefined for index. */
function layerOf(src, path) {
  const first = relative(src, path).split(sep)[0];
  if (first === "errors.ts" || first === "errors.js") return "errors";
  return LAYERS.includes(first) ? first : undefined;
}

/** Comments stripped, so that an import named in prose is not read as one. */
function code(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

export function checkLayers(src) {
  const problems = [];
  for (const file of files(src)) {
    const from = layerOf(src, file);
    const rel = relative(process.cwd(), file);
    if (from === undefined) {
      if (relative(src, file) !== "index.ts") problems.push(`${rel}: not in a known layer`);
      continue;
    }
    for (const m of code(readFileSync(file, "utf8")).matchAll(IMPORT)) {
      const spec = m[1];
      if (!spec.startsWith(".")) continue; // a package
      const target = resolve(dirname(file), spec);
      // The package's data (proto/onnx.proto, schemas/*.json) is no layer: the web build bundles it.
      if (!/\.(m?[jt]s)$/.test(target) && relative(src, target).startsWith("..")) continue;
      const to = layerOf(src, target);
      if (to === undefined) {
        problems.push(`${rel}: import "${spec}" leaves the layers (${relative(src, target)})`);
        continue;
      }
      if (LAYERS.indexOf(to) > LAYERS.indexOf(from))
        problems.push(`${rel}: import "${spec}" (layer ${from} imports higher layer ${to})`);
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const src = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "../src"));
  const problems = checkLayers(src);
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(`${problems.length} import(s) against the layer order: ${LAYERS.join(", ")}`);
    process.exit(1);
  }
}

// Builds the inspector page into dist/web/: index.html, main.js (the page), worker.js (a Web
// Worker running the library and the graph layout) and helper.js (a classic script: the helper
// threads of the interpreter's matrix products, nested workers of worker.js). The library's Node-only modules (`*.node.ts`:
// schemas/ and proto/onnx.proto read from disk) are swapped for their `*.web.ts` siblings, which get
// the same files as bundled data. A `node:` import reaching the bundle fails the build.

import { build } from "esbuild";
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "web");

/**
 * protobufjs writes each message type's encoder, decoder, verifier, converters and constructor as
 * JavaScript text and compiles it with Function(); the page's Content-Security-Policy allows no
 * eval. So the text is generated here, in Node, for every type of proto/onnx.proto, and bundled as
 * code: the virtual module "onnx-expand:protobuf-codegen" maps (scope names, function text) to a
 * function taking the scope and returning the compiled function, which src/proto/proto-text.web.ts
 * hands to protobufjs in place of compiling.
 */
async function protobufCodegenModule() {
  const { default: protobuf } = await import("protobufjs");
  const { default: Long } = await import("long");
  protobuf.util.Long = Long;
  protobuf.configure();
  const real = protobuf.util.codegen;
  const table = new Map();
  protobuf.util.codegen = function recording(params, name) {
    const g = real(params, name);
    const gen = function (fmt, ...rest) {
      if (typeof fmt === "string") {
        g(fmt, ...rest);
        return gen;
      }
      const keys = Object.keys(fmt ?? {});
      table.set(`${keys.join(",")}\n${g.toString()}`, `function(${keys.join(",")}){return ${g}}`);
      return g(fmt);
    };
    return gen;
  };
  try {
    const text = readFileSync(join(root, "proto", "onnx.proto"), "utf8");
    const protoRoot = protobuf.parse(text, { keepCase: true }).root;
    protoRoot.resolveAll();
    const visit = (ns) => {
      for (const child of ns.nestedArray) {
        if (child instanceof protobuf.Type) {
          void child.ctor;
          child.setup();
        }
        if (child.nestedArray) visit(child);
      }
    };
    visit(protoRoot);
  } finally {
    protobuf.util.codegen = real;
  }
  const rows = [...table].map(([key, fn]) => `[${JSON.stringify(key)}, ${fn}]`);
  return `export default new Map([\n${rows.join(",\n")}\n]);`;
}

const webSwap = {
  name: "web-swap",
  setup(b) {
    b.onResolve({ filter: /^onnx-expand:protobuf-codegen$/ }, () => ({
      path: "protobuf-codegen",
      namespace: "protobuf-codegen",
    }));
    b.onLoad({ filter: /.*/, namespace: "protobuf-codegen" }, async () => ({
      contents: await protobufCodegenModule(),
      loader: "js",
    }));
    b.onResolve({ filter: /\.node\.js$/ }, (args) => ({
      path: resolve(args.resolveDir, args.path.replace(/\.node\.js$/, ".web.ts")),
    }));
    // The JSON files of schemas/ (for src/schema/files.web.ts) and of targets/ (the shipped
    // profiles, for src/targets/shipped.web.ts), as the virtual modules onnx-expand:<folder>.
    for (const folder of ["schemas", "targets"]) {
      b.onResolve({ filter: new RegExp(`^onnx-expand:${folder}$`) }, () => ({
        path: folder,
        namespace: folder,
      }));
      b.onLoad({ filter: /.*/, namespace: folder }, () => {
        const dir = join(root, folder);
        const files = readdirSync(dir)
          .filter((f) => f.endsWith(".json"))
          .sort()
          .map((f) => ({
            path: `${folder}/${f}`,
            text: JSON.stringify(JSON.parse(readFileSync(join(dir, f), "utf8"))),
          }));
        return { contents: `export default ${JSON.stringify(files)};`, loader: "js" };
      });
    }
    b.onResolve({ filter: /^node:/ }, (args) => ({
      errors: [{ text: `${args.path} imported by ${args.importer}: not available in a browser` }],
    }));
  },
};

mkdirSync(out, { recursive: true });
await build({
  entryPoints: { main: join(root, "web", "main.ts"), worker: join(root, "web", "worker.ts") },
  outdir: out,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  sourcemap: false,
  legalComments: "none",
  loader: { ".proto": "text" },
  plugins: [webSwap],
  logLevel: "warning",
});
await build({
  entryPoints: { helper: join(root, "web", "helper.ts") },
  outdir: out,
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  minify: true,
  sourcemap: false,
  legalComments: "none",
  plugins: [webSwap],
  logLevel: "warning",
});
for (const f of ["index.html", "style.css"]) copyFileSync(join(root, "web", f), join(out, f));

const sizes = ["index.html", "style.css", "main.js", "worker.js", "helper.js"].map((f) => {
  const bytes = readFileSync(join(out, f));
  return { f, raw: statSync(join(out, f)).size, gz: gzipSync(bytes, { level: 9 }).length };
});
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
for (const s of sizes) console.log(`dist/web/${s.f}: ${kib(s.raw)} (gzip ${kib(s.gz)})`);
const total = sizes.reduce((a, s) => a + s.gz, 0);
console.log(`dist/web total gzip: ${kib(total)}`);
writeFileSync(join(out, "sizes.json"), JSON.stringify(sizes, null, 2) + "\n");

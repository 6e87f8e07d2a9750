// The library runs in a browser: `node:` modules are imported only by the Node-only layer (the CLI,
// file reading (data files opened, ranges read) and writing (atomic, streamed), backend-test folders, and the `*.node.ts` modules the web build swaps
// for their `*.web.ts` siblings).

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const src = join(import.meta.dirname, "..", "..", "src");
const NODE_ONLY = [
  /^cli\//,
  /\.node\.ts$/,
  /^io\/files\.ts$/,
  /^io\/atomic\.ts$/,
  /^io\/external\.ts$/,
  /^io\/file-source\.ts$/,
  /^io\/save\.ts$/,
  // which files tensors are read from, so that no write replaces one (by device and inode)
  /^io\/tensor-files\.ts$/,
  /^interp\/backend-test\.ts$/,
  // the target profiles found on disk (the page takes none yet)
  /^targets\/load\.ts$/,
  /^interp\/kernels\/wasm\/assemble\.mjs$/,
];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe("browser portability", () => {
  it("imports node: modules only in the Node-only layer", () => {
    const offenders = files(src)
      .map((f) => relative(src, f).split("\\").join("/"))
      .filter((f) => /\.(ts|mjs)$/.test(f) && !NODE_ONLY.some((r) => r.test(f)))
      // Type-only imports are erased by the compiler and reach no bundle.
      .filter((f) =>
        /^import (?!type\b)[^;]*?from "node:/m.test(readFileSync(join(src, f), "utf8")),
      );
    expect(offenders).toEqual([]);
  });

  it("every *.node.ts module has a *.web.ts sibling with the same exports", () => {
    for (const f of files(src).filter((x) => x.endsWith(".node.ts"))) {
      const exported = (path: string) =>
        [...readFileSync(path, "utf8").matchAll(/export (?:function|interface|const|\{) ?(\w+)/g)]
          .map((m) => m[1])
          .sort();
      const web = f.replace(/\.node\.ts$/, ".web.ts");
      expect(exported(web), relative(src, web)).toEqual(exported(f));
    }
  });
});

// The repository names no folder of one machine: data and tools come from the repository itself,
// from an installable package (Debian's libonnx-testdata under /usr/share), or from a user's own
// setting (an environment variable), so a clone works wherever it lands.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
/** Folders that are not the project's sources: installed, built, exported or made locally. */
const SKIP = new Set(["node_modules", "dist", ".git", "corpus", "coverage", "bench/out"]);
const TEXT = /\.(ts|mts|mjs|cjs|js|json|md|py|sh|html|css|yml|yaml|txt|onnxtxt)$|^run$/;
/** A path under a machine's own folders: home directories, a workspace, /opt, /mnt, /srv. */
const MACHINE_PATH = /(?<![\w.~-])\/(?:work|root|home|Users|opt|mnt|srv)\/[\w.-]/;

function* textFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (SKIP.has(relative(ROOT, p)) || SKIP.has(e)) continue;
    if (statSync(p).isDirectory()) yield* textFiles(p);
    else if (TEXT.test(e)) yield p;
  }
}

describe("no absolute path of a machine", () => {
  it("finds none in any text file of the repository", () => {
    const found: string[] = [];
    let files = 0;
    for (const f of textFiles(ROOT)) {
      files++;
      readFileSync(f, "utf8")
        .split("\n")
        .forEach((line, i) => {
          const m = MACHINE_PATH.exec(line);
          if (m) found.push(`${relative(ROOT, f)}:${i + 1}: ${line.trim().slice(0, 120)}`);
        });
    }
    expect(files).toBeGreaterThan(100);
    expect(found).toEqual([]);
  });

  it("would find one", () => {
    // Spelled in parts, so that this file does not hold what it looks for.
    const at = (top: string, rest: string) => `/${top}/${rest}`;
    expect(MACHINE_PATH.test(`const dir = "${at("work", "shared/onnx-node-tests")}";`)).toBe(true);
    expect(MACHINE_PATH.test(`default ${at("root", ".cache/x")}`)).toBe(true);
    expect(MACHINE_PATH.test("see /usr/share/libonnx-testdata/data")).toBe(false);
    expect(MACHINE_PATH.test("a URL https://example.org/work/x")).toBe(false);
  });
});

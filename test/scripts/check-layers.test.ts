// scripts/check-layers.mjs: imports point down the layer order, and a violation names file and import.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, without type declarations
import { checkLayers } from "../../scripts/check-layers.mjs";

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "layers-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("check-layers", () => {
  it("accepts imports of the same or a lower layer, packages, and anything from index.ts", () => {
    const src = tree({
      "errors.ts": "export class OnnxError {}",
      "ir/types.ts": 'import { OnnxError } from "../errors.js";\nimport Long from "long";',
      "expand/inline.ts": 'import type { X } from "../check/index.js";\nimport "./more.js";',
      "check/index.ts": '// import { run } from "../interp/executor.js" (a comment, not an import)',
      "index.ts": 'export * from "./cli/main.js";',
    });
    expect(checkLayers(src)).toEqual([]);
  });

  it("names each file and import that reaches up, static or dynamic", () => {
    const src = tree({
      "check/analyze.ts": 'import {\n  inlineCall,\n} from "../expand/inline.js";',
      "ir/graph.ts": 'const m = await import("../interp/index.js");',
    });
    const problems = checkLayers(src);
    expect(problems).toHaveLength(2);
    expect(problems.join("\n")).toMatch(
      /check\/analyze\.ts: import "\.\.\/expand\/inline\.js" \(layer check imports higher layer expand\)/,
    );
    expect(problems.join("\n")).toMatch(/ir\/graph\.ts: import "\.\.\/interp\/index\.js"/);
  });

  it("ranks the interpreter below the transforms it judges", () => {
    const src = tree({
      "interp/executor.ts": 'import { convert } from "../convert/index.js";',
      "expand/expand.ts": 'import { run } from "../interp/index.js";',
      "convert/driver.ts": 'import { run } from "../interp/index.js";',
    });
    const problems = checkLayers(src);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /interp\/executor\.ts: .*layer interp imports higher layer convert/,
    );
  });
});

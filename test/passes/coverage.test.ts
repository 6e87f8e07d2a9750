// Every pass has its test file: a pass named `x` (a `name: "x"` beside its `run` or `requires`
// in src/passes, src/expand or src/convert, or a walkerPass("x", ...) or modelPass("x", ...)) is tested in
// test/passes/x.test.ts; the converter's pass, named per target, in convert-opset.test.ts.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = new URL("../../src/", import.meta.url).pathname;

function passNames(): string[] {
  const names = new Set<string>();
  for (const layer of ["passes", "expand", "convert"])
    for (const f of readdirSync(join(SRC, layer))) {
      if (!f.endsWith(".ts")) continue;
      const text = readFileSync(join(SRC, layer, f), "utf8");
      for (const m of text.matchAll(/name: "([a-z][a-z-]*)",\s*\n\s*(?:requires|run|ensures)\b/g))
        names.add(m[1]!);
      for (const m of text.matchAll(/(?:walkerPass|modelPass)\(\s*"([a-z][a-z-]*)"/g))
        names.add(m[1]!);
      if (/name: `convert\(opset/.test(text)) names.add("convert-opset");
    }
  return [...names].sort();
}

describe("every pass is tested", () => {
  it("has test/passes/<name>.test.ts", () => {
    const names = passNames();
    expect(names).toEqual(
      expect.arrayContaining([
        "convert-opset",
        "expand",
        "expand-schema-functions",
        "infer-value-info",
        "inline-local-functions",
        "lower-older-versions",
        "place-origins",
        "remove-dead-values",
        "remove-unused-functions",
        "trim-opset-imports",
        "validate-model",
      ]),
    );
    const untested = names.filter((n) => !existsSync(new URL(`./${n}.test.ts`, import.meta.url)));
    expect(untested).toEqual([]);
  });
});

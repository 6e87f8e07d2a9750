// No kernel writes a default the schema states, nor a version number: the executor binds the
// schema's defaults (interp/defaults.ts) and kernels ask schema/facts.ts what a version means.
// A scan of src/interp/kernels/: every attribute read that carries a default of its own
// (`attrInt(ctx.node, "axis", 0)`, `attrInts(ctx.node, "axes") ?? [...]`) must be for an
// attribute that no version of any op the file registers states a default for.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SchemaRegistry } from "../../src/schema/registry.js";

const dir = fileURLToPath(new URL("../../src/interp/kernels/", import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith(".ts"));
const registry = SchemaRegistry.default();

/** The op types a kernel file registers (the keys of the kernel records it exports). */
async function opsOf(file: string): Promise<string[]> {
  const mod = (await import(`../../src/interp/kernels/${file.replace(/\.ts$/, ".js")}`)) as Record<
    string,
    unknown
  >;
  const ops: string[] = [];
  for (const value of Object.values(mod))
    if (value && typeof value === "object" && !Array.isArray(value))
      for (const [k, f] of Object.entries(value))
        if (/^[A-Z]/.test(k) && typeof f === "function") ops.push(k);
  return ops;
}

/** Attribute reads with a default of the kernel's own: [attribute, line]. */
function readsWithDefault(text: string): [string, number][] {
  const found: [string, number][] = [];
  const patterns = [
    /attr(?:Int|Float|String)\(\s*ctx\.node,\s*"(\w+)",/g,
    /attr(?:Int|Float|String|Ints)\(\s*ctx\.node,\s*"(\w+)"\s*\)\s*\?\?/g,
  ];
  for (const re of patterns)
    for (const m of text.matchAll(re))
      found.push([m[1]!, text.slice(0, m.index).split("\n").length]);
  return found;
}

// Reads whose default is for an op of the file that states none, while another op of the same
// file states one for an attribute of that name: "file attribute", and why.
const ALLOWED: Record<string, string> = {
  "random.ts dtype":
    "RandomUniformLike/RandomNormalLike state no default (the input's type); RandomUniform/RandomNormal do",
};

describe("kernels carry no default the schema states", () => {
  it("finds the reads it scans for", () => {
    expect(
      readsWithDefault(`attrInt(ctx.node, "axis", 0); attrInts(ctx.node, "axes") ?? [1]`),
    ).toEqual([
      ["axis", 1],
      ["axes", 1],
    ]);
  });

  it.each(files)("%s", async (file) => {
    const ops = await opsOf(file);
    const text = readFileSync(dir + file, "utf8");
    const stated = (name: string) =>
      ops.flatMap((op) =>
        registry
          .versions("", op)
          .filter((v) => v.attributes.some((a) => a.name === name && a.default !== undefined))
          .map((v) => `${op}-${v.since}`),
      );
    const bad = readsWithDefault(text)
      .map(([name, line]) => [name, line, stated(name)] as const)
      .filter(([name, , versions]) => versions.length > 0 && !ALLOWED[`${file} ${name}`])
      .map(
        ([name, line, versions]) => `${file}:${line} '${name}' (stated by ${versions.join(", ")})`,
      );
    expect(bad).toEqual([]);
  });
});

describe("kernels and builders compare no version numbers", () => {
  const sources = [
    ...files.map((f) => dir + f),
    ...readdirSync(fileURLToPath(new URL("../../src/schema/builders/", import.meta.url)))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => fileURLToPath(new URL(`../../src/schema/builders/${f}`, import.meta.url))),
  ];
  it.each(sources.map((s) => [s.split("/src/")[1]!, s]))("%s", (_, path) => {
    const text = readFileSync(path, "utf8");
    const comparisons = [
      ...text.matchAll(/(?:since|version|opset)\s*(?:[<>]=?|[!=]==)\s*\d+/g),
      ...text.matchAll(/\d+\s*(?:[<>]=?|[!=]==)\s*[\w.]*(?:since|version|opset)\b/g),
    ].map((m) => m[0]);
    expect(comparisons).toEqual([]);
  });
});

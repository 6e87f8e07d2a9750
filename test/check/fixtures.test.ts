// Broken models written in ONNX text (test/data/broken/<problem code>.onnxtxt): each has exactly
// the problem its file name says; `several.onnxtxt` has several, all reported in one run.

import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkModel, formatProblem } from "../../src/check/index.js";
import { loadModel } from "../../src/io/files.js";
import { runCli } from "../helpers/cli.js";

const DIR = new URL("../data/broken/", import.meta.url).pathname;
const single = readdirSync(DIR)
  .filter((f) => f.endsWith(".onnxtxt") && f !== "several.onnxtxt")
  .sort();

describe("broken text models", () => {
  it("there is one file per problem kind under test", () => {
    expect(single.length).toBeGreaterThanOrEqual(10);
  });

  it.each(single)("%s has exactly that problem", (file) => {
    const r = checkModel(loadModel(DIR + file));
    expect(r.problems.map(formatProblem)).toHaveLength(1);
    expect(r.problems[0]!.code).toBe(file.replace(/\.onnxtxt$/, ""));
  });

  it("several.onnxtxt: every problem in one run", () => {
    const r = checkModel(loadModel(`${DIR}several.onnxtxt`));
    expect(r.problems.map((p) => `${p.code} @ ${p.where}`)).toEqual([
      "unknown-op @ node #0 (Frobnicate)",
      "type-not-allowed @ node #1 (Log)",
      "type-mismatch @ node #2 (Add)",
      "output-not-produced @ graph 'several'",
    ]);
  });

  it("the CLI reads text models too", () => {
    const r = runCli(["check", `${DIR}several.onnxtxt`]);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n").pop()).toBe(`4 problems in ${DIR}several.onnxtxt`);
  });
});

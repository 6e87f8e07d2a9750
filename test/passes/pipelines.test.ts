// The simplify and lower pipelines are described once, by the code: `--help` and
// docs/architecture.md print describePipelines(), and each step of lowerSteps names the pass it
// makes.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { describePipelines, lowerPipeline, lowerSteps } from "../../src/app/transform.js";
import { loadProfile } from "../../src/targets/load.js";
import { parseModelText } from "../../src/text/parse.js";
import { runCli } from "../helpers/cli.js";

const d = describePipelines();

describe("the pipelines described once", () => {
  it("docs/architecture.md holds describePipelines() between its markers", () => {
    const doc = readFileSync(new URL("../../docs/architecture.md", import.meta.url), "utf8");
    const block =
      /<!-- pipelines: begin -->\n+```text\n([\s\S]*?)\n```\n+<!-- pipelines: end -->/.exec(doc);
    expect(block?.[1]).toBe(`${d.simplify}\n\n${d.lower}`);
  });

  it("simplify --help and lower --help print them", () => {
    expect(runCli(["simplify", "--help"]).stdout).toContain(d.simplify);
    expect(runCli(["lower", "--help"]).stdout).toContain(d.lower);
  });

  it("each step of lowering makes the pass it names, where it applies", () => {
    // Opset 6 (below coreml's range), a Flatten, int64 shapes: seven of the ten steps run.
    const m = parseModelText(`<ir_version: 3, opset_import: ["" : 6]>
      g (double[2,3] x) => (float[2,3] y) {
        f = Flatten (x)
        c = Cast <to: int = 1> (f)
        y = Relu (c)
      }`);
    const req = { profile: loadProfile("coreml") };
    const made = lowerSteps(m, req).map((s) => [s.name, s.make()?.name] as const);
    for (const [name, pass] of made) if (pass) expect(pass.startsWith(name), name).toBe(true);
    expect(made.filter(([, pass]) => pass)).toHaveLength(7);
    expect(made.filter(([, pass]) => pass).map(([name]) => name)).toEqual(
      (lowerPipeline(m, req) as unknown as { steps: { name: string }[] }).steps.map((p) =>
        p.name.replace(/\(.*$/, ""),
      ),
    );
  });
});

// A small fixed-seed sample of the fuzz campaign (scripts/fuzz/campaign.ts) for each command: the
// mutated models must end cleanly (exit 0, 1 or 2 with one-line errors), within the time and
// memory caps. The full campaign is `npm run fuzz`; its last result is in the README.

import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { runCampaign, COMMANDS } from "../../scripts/fuzz/campaign.js";
import { judge } from "../../scripts/fuzz/campaign.js";

const present = new Set(buildProgram().commands.map((c) => c.name()));

describe("fuzz sample", () => {
  for (const command of COMMANDS)
    it.skipIf(!present.has(command))(`${command}: 24 mutated models end cleanly`, async () => {
      const s = await runCampaign({ command, count: 24, seed: 20261202, jobs: 2 });
      expect(s.inputs).toBe(24);
      expect(s.findings.map((f) => `${f.outcome} case ${f.index}: ${f.detail}`)).toEqual([]);
      expect(Object.keys(s.exitCodes).every((c) => ["0", "1", "2"].includes(c))).toBe(true);
    });

  it("judges a stack trace, an internal error and an escaped exception as crashes", () => {
    const base = { id: 0, code: 2, stdout: "", outBytes: 0, errBytes: 0 };
    expect(judge({ ...base, stderr: "onnx-expand: error: x.onnx: truncated\n" })).toBeUndefined();
    expect(judge({ ...base, stderr: "onnx-expand: internal error: boom\n" })).toMatch(/internal/);
    expect(judge({ ...base, stderr: "Error: x\n    at f (/a/b.ts:1:2)\n" })).toMatch(/stack/);
    expect(judge({ ...base, stderr: "", thrown: "TypeError: y" })).toMatch(/escaped/);
    expect(judge({ ...base, code: 134, stderr: "" })).toMatch(/exit code 134/);
  });
});

// `npm start`, the end-to-end demo: runs, lowers both examples, and the runs agree.

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

it("npm start lowers the examples and the runs agree", () => {
  const r = spawnSync(process.execPath, ["--import", tsx, "scripts/demo.ts"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  expect(r.stderr.replace(/.*onnxruntime.*\n/g, "")).toBe("");
  expect(r.status).toBe(0);
  expect(r.stdout).toContain(
    "~ [logsum] logsum = ReduceLogSum <axes: ints = [1], keepdims: int = 0> (x)",
  );
  expect(r.stdout).toContain('opset_import: ["" : 26]');
  const diffs = [...r.stdout.matchAll(/largest difference ([0-9.e+-]+)/g)].map((m) => Number(m[1]));
  expect(diffs.length).toBe(4);
  for (const d of diffs) expect(d).toBeLessThan(1e-5);
  expect(existsSync(`${root}examples/out/logcumsumexp-29.lowered.onnxtxt`)).toBe(true);
});

// Input files that are not what they claim: a profile or a --target-ops file that is a FIFO, a
// device, a folder or too large is refused in one line before anything is read; a profile whose
// opset range is empty is refused.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSmallTextFile } from "../../src/io/files.js";
import { saveModel } from "../../src/io/files.js";
import { parseProfile } from "../../src/targets/profile.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";

const MODEL = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y) {
  y = Relu (x)
}`);

describe("profiles and op lists read from files", () => {
  const d = mkdtempSync(join(tmpdir(), "onnx-expand-input-files-"));
  const model = join(d, "m.onnx");
  saveModel(MODEL, model);
  execFileSync("mkfifo", [join(d, "fifo.json")]);
  mkdirSync(join(d, "folder.json"));
  symlinkSync("/dev/zero", join(d, "zero.json"));
  writeFileSync(join(d, "huge.json"), Buffer.alloc((16 << 20) + 1, 0x20));
  const cases: [string, RegExp][] = [
    ["fifo.json", /is a FIFO \(named pipe\), not a regular/],
    ["folder.json", /is a directory, not a/],
    ["zero.json", /is a device or socket, not a regular/],
    ["huge.json", /is larger than 16777216 bytes, too large for a/],
    ["none.json", /no such/],
  ];

  it("check --target refuses each in one line, at once; lower --target a FIFO", () => {
    for (const [name, why] of cases)
      expectOneLineError(
        runCli(["check", model, "--target", join(d, name)], { timeout: 60_000 }),
        why,
      );
    expectOneLineError(
      runCli(["lower", model, "--target", join(d, "fifo.json"), "-o", join(d, "o.onnx")], {
        timeout: 60_000,
      }),
      cases[0]![1],
    );
  }, 240_000);

  it("expand --target-ops refuses each in one line", () => {
    for (const [name, why] of cases.slice(0, 4))
      expectOneLineError(
        runCli(["expand", model, "--target-ops", join(d, name), "-o", join(d, "o.onnx")], {
          timeout: 60_000,
        }),
        why,
      );
  }, 240_000);

  it("the reader itself: a regular file is read whole", () => {
    writeFileSync(join(d, "ok.txt"), "Relu\n");
    expect(readSmallTextFile(join(d, "ok.txt"), "file of ops")).toBe("Relu\n");
    expect(() => readSmallTextFile(join(d, "ok.txt"), "file of ops", 2)).toThrow(
      /larger than 2 bytes/,
    );
  });

  it("a profile whose opset min is above its max is refused", () => {
    const p = JSON.parse(readFileSync("targets/webnn.json", "utf8"));
    p.opset = { min: 23, max: 7 };
    expect(() => parseProfile(JSON.stringify(p), "p.json")).toThrow(
      /p\.json: opset: min 23 is above max 7: the range is empty$/,
    );
    writeFileSync(join(d, "empty-range.json"), JSON.stringify(p));
    expectOneLineError(
      runCli(["lower", model, "--target", join(d, "empty-range.json"), "-o", join(d, "o.onnx")]),
      /empty-range\.json: opset: min 23 is above max 7/,
    );
  }, 60_000);
});

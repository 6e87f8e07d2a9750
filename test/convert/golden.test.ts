// Golden text: representative models (test/golden/convert/<name>.onnxtxt) converted to the
// targets below, printed, compared with <name>.to<N>.onnxtxt. Refresh with
// `UPDATE_GOLDEN=1 npx vitest run test/convert/golden.test.ts`, then review `git diff`.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { convertModel } from "../../src/convert/index.js";
import { loadModel } from "../../src/io/files.js";
import { printModel } from "../../src/text/print.js";
import { expectValid } from "./convert-helpers.js";

const dir = fileURLToPath(new URL("../golden/convert/", import.meta.url));

const CASES: [name: string, targets: number[]][] = [
  ["reduce-mixed-12", [18, 11]],
  ["reduce-noop-18", [13]],
  ["function-11", [18]],
  ["legacy-3", [13]],
  // Family adapters: Clip, Pad, legacy broadcast, PRelu, Softmax, Split up from 6; the Softmax
  // family, ArgMax select_last_index, Split, Resize and Dropout down from 13.
  ["adapters-6", [13, 18]],
  ["adapters-13", [11]],
];

describe("golden conversions", () => {
  for (const [name, targets] of CASES)
    for (const target of targets)
      it(`${name} -> opset ${target}`, () => {
        const model = loadModel(`${dir}${name}.onnxtxt`);
        const r = convertModel(model, target);
        expect(r.plan.blocked).toEqual([]);
        expectValid(r.model!);
        const printed = printModel(r.model!);
        const path = `${dir}${name}.to${target}.onnxtxt`;
        if (process.env.UPDATE_GOLDEN || !existsSync(path)) writeFileSync(path, printed);
        expect(printed).toBe(readFileSync(path, "utf8"));
      });
});

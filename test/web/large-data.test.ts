// The page with models whose weights live in data files, in headless Chromium under the server's
// headers: a model picked with its data files draws without reading the weights, shows a weight's
// values (read from its range of the picked file), runs, and downloads the result as the model
// and its data file, which onnxruntime runs with the original's numbers; a model picked alone says
// which data file is missing, and its run is refused naming it. Skipped without Chromium.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel } from "../../src/io/files.js";
import { readRange } from "../../src/ir/tensor.js";
import { fillValues, makeLargeModel } from "../../scripts/large-models.js";
import {
  expectSameStoredWeights,
  findChromium,
  NO_CHROMIUM,
  openInPage,
  startPageSession,
  type PageSession,
} from "../helpers/browser.js";

const chromium = findChromium();
const H = 32;

async function ortOutputs(path: string): Promise<Float32Array[]> {
  const x = new Float32Array(3 * H);
  fillValues(x, 5);
  const s = await ort.InferenceSession.create(path, { logSeverityLevel: 3 });
  try {
    const out = await s.run({ x: new ort.Tensor("float32", x, [1, 3, H]) });
    return [out.y!.data as Float32Array, out.z!.data as Float32Array];
  } finally {
    await s.release();
  }
}

describe.skipIf(!chromium)(
  `models with data files in the page${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    let session: PageSession;
    let page: Page;
    let dir: string;
    let model: string;
    const data = () => [0, 1, 2].map((i) => join(dir, "src", `weights_${i}.bin`));

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "oe-page-large-"));
      model = makeLargeModel(join(dir, "src"), { hidden: H, layers: 6, files: 3, fill: "values" });
      session = await startPageSession(chromium!, { acceptDownloads: true });
      page = session.page;
    }, 120_000);
    afterAll(async () => {
      await session?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const open = (files: string[]) => openInPage(page, session.srv.url, files);

    it("picked with its data files: draws, shows a weight's values, runs, downloads model + data", async () => {
      await open([model, ...data()]);
      expect(await page.locator("#status").textContent()).toBe("Opened model.onnx.");
      // The value panel reads w_3's range of weights_0.bin: its statistics are the file's.
      await page.fill("#find", "w_3");
      await page.keyboard.press("Enter");
      await page.locator("body:not([data-state=busy])").waitFor();
      const w = page.locator("#details table.value[data-name=w_3]");
      const t = loadModel(model).graph.initializers.find((x) => x.name === "w_3")!;
      const values = new Float32Array(readRange(t.range!).slice().buffer);
      expect(await w.textContent()).toContain("(initializer)");
      const first = [0, 1, 2].map((i) => String(Number(values[i]!.toPrecision(6))));
      expect(await w.textContent()).toContain(`first${first.join(", ")}`);
      // Expand, run both sides, and download the result: the model and its data file.
      await page.click("#expand-form button");
      await page.locator("body:not([data-state=busy])").waitFor({ timeout: 60_000 });
      await page.click("#run-form button");
      await page.locator("body:not([data-state=busy])").waitFor({ timeout: 60_000 });
      expect(await page.locator("#error").isHidden()).toBe(true);
      expect(await page.locator("#run-report").textContent()).toMatch(/y\[1,1\].*z\[1,1\]/);
      const out = join(dir, "download");
      mkdirSync(out);
      const downloads: string[] = [];
      page.on("download", async (d) => {
        const to = join(out, d.suggestedFilename());
        await d.saveAs(to);
        downloads.push(d.suggestedFilename());
      });
      await page.click("#dl-onnx");
      await expect.poll(() => downloads.length, { timeout: 30_000 }).toBe(2);
      expect(downloads.sort()).toEqual(["model.result.onnx", "model.result.onnx.data"]);
      expectSameStoredWeights(model, join(out, "model.result.onnx"));
      const [a, b] = [await ortOutputs(model), await ortOutputs(join(out, "model.result.onnx"))];
      for (let k = 0; k < 2; k++)
        for (let i = 0; i < a[k]!.length; i++)
          expect(Math.abs(a[k]![i]! - b[k]![i]!)).toBeLessThanOrEqual(1e-5);
      // Nothing of the weights went through a copy of the file: the model file is small.
      expect(readFileSync(join(out, "model.result.onnx")).length).toBeLessThan(64 << 10);
    }, 120_000);

    it("picked alone: says which data file is missing, and a run names it", async () => {
      await open([model]);
      expect(await page.locator("#status").textContent()).toMatch(
        /'weights_0\.bin' was not opened with the model/,
      );
      expect(await page.locator("#pane-a").getAttribute("data-drawn")).not.toBeNull();
      await page.click("#run-form button");
      await page.locator("body:not([data-state=busy])").waitFor({ timeout: 60_000 });
      expect(await page.locator("#error").textContent()).toMatch(
        /keeps its data in 'weights_\d\.bin', which was not opened with the model/,
      );
    }, 120_000);
  },
);

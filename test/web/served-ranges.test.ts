// A model served by `onnx-expand inspect` with a data file past 2 GiB, in headless Chromium: the
// page opens it and draws it without reading a weight (the worker asks the data file's size with
// HEAD, nothing more), shows a weight that lies past 2 GiB by asking for its range alone (a 206 of
// exactly its bytes), never asks for a data file whole, and says so when the file is swapped on
// disk (410). The data file is sparse (truncate): 2.5 GiB that cost no disk. A small served model's
// result downloads with the served weights' bytes. Skipped without Chromium.

import {
  closeSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveInspector, type InspectServer } from "../../src/cli/server.js";
import { loadModel } from "../../src/io/files.js";
import { fillValues, makeLargeModel } from "../../scripts/large-models.js";
import {
  expectSameStoredWeights,
  findChromium,
  launchChromium,
  NO_CHROMIUM,
} from "../helpers/browser.js";
import { execFileSync } from "node:child_process";

const chromium = findChromium();
const H = 8192;
const LAYERS = 10;

interface Logged {
  method: string;
  url: string;
  range?: string;
  status: number;
  bytes: number;
}

describe.skipIf(!chromium)(
  `a served model past 2 GiB, read in ranges${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    let dir: string;
    let model: string;
    let srv: InspectServer;
    let browser: Browser;
    let page: Page;
    const log: Logged[] = [];
    let gamma: { offset: number; values: Float32Array };

    beforeAll(async () => {
      const root = join(import.meta.dirname, "..", "..");
      execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs")], { stdio: "ignore" });
      dir = mkdtempSync(join(tmpdir(), "oe-served-ranges-"));
      model = makeLargeModel(join(dir, "m"), {
        hidden: H,
        layers: LAYERS,
        files: 1,
        fill: "sparse",
      });
      // The last layer's gamma, past 2 GiB in the file, given values of its own (the rest is holes).
      const t = loadModel(model).graph.initializers.find((x) => x.name === `gamma_${LAYERS - 1}`)!;
      const offset = Number(
        t.data.kind === "external" && t.data.entries.find((e) => e[0] === "offset")![1],
      );
      const values = new Float32Array(H);
      fillValues(values, 42);
      const fd = openSync(join(dir, "m", "weights_0.bin"), "r+");
      writeSync(fd, new Uint8Array(values.buffer), 0, values.byteLength, offset);
      closeSync(fd);
      gamma = { offset, values };
      srv = await serveInspector({ model });
      // Each answer as the server sent it: its status and the bytes of its body (counted as
      // written: the file's bytes are streamed after this listener runs).
      srv.server.on("request", (req, res) => {
        const entry: Logged = {
          method: req.method!,
          url: req.url!,
          range: req.headers.range,
          status: 0,
          bytes: 0,
        };
        const write = res.write.bind(res) as (...a: unknown[]) => boolean;
        res.write = ((chunk: unknown, ...rest: unknown[]) => {
          if (chunk instanceof Uint8Array) entry.bytes += chunk.length;
          return write(chunk, ...rest);
        }) as typeof res.write;
        res.on("finish", () => {
          entry.status = res.statusCode;
          log.push(entry);
        });
      });
      browser = await launchChromium(chromium!);
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    }, 180_000);
    afterAll(async () => {
      await browser?.close();
      srv?.server.closeAllConnections();
      srv?.server.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const data = () => log.filter((r) => r.url === "/preload/1");
    const sent = (rs: Logged[]) => rs.reduce((a, r) => a + r.bytes, 0);

    it("opens and draws without reading a weight; a weight past 2 GiB is read as its range alone", async () => {
      const size = statSync(join(dir, "m", "weights_0.bin")).size;
      expect(size).toBeGreaterThan(2 ** 31);
      expect(gamma.offset).toBeGreaterThan(2 ** 31);
      await page.goto(srv.url);
      await page.waitForFunction(
        () =>
          document.getElementById("pane-a")?.dataset.drawn !== undefined ||
          !!document.body.dataset.error,
        undefined,
        { timeout: 120_000 },
      );
      await page.locator("body:not([data-state=busy])").waitFor();
      expect(await page.locator("#error").isHidden()).toBe(true);
      expect(await page.locator("#status").textContent()).toBe("Opened model.onnx.");
      // Drawn: the data file was asked its size, and not one byte of it was read.
      expect(data().map((r) => `${r.method} ${r.status}`)).toEqual(["HEAD 200"]);
      // The model file itself was read in ranges too (206), never as a 200 body.
      const modelReads = log.filter((r) => r.url === "/preload" && r.method === "GET");
      expect(modelReads.length).toBeGreaterThan(0);
      for (const r of modelReads) expect(r.status).toBe(206);

      // The value panel shows gamma's values: one ranged request for its 32 KiB past 2 GiB.
      await page.fill("#find", `gamma_${LAYERS - 1}`);
      await page.keyboard.press("Enter");
      await page.locator("body:not([data-state=busy])").waitFor();
      const w = page.locator(`#details table.value[data-name=gamma_${LAYERS - 1}]`);
      const first = [0, 1, 2].map((i) => String(Number(gamma.values[i]!.toPrecision(6))));
      await expect
        .poll(() => w.textContent(), { timeout: 30_000 })
        .toContain(`first${first.join(", ")}`);
      const end = gamma.offset + H * 4 - 1;
      const gets = data().filter((r) => r.method === "GET");
      expect(gets.map((r) => `${r.range} ${r.status}`)).toContain(
        `bytes=${gamma.offset}-${end} 206`,
      );
      // Every read of the data file was a range answered 206; none asked for it whole.
      for (const r of gets) {
        expect(r.range).toMatch(/^bytes=\d+-\d+$/);
        expect(r.status).toBe(206);
      }
      expect(sent(data())).toBe(H * 4);
    }, 180_000);

    it("a data file swapped on disk is refused (410) and the page says which file changed in the value panel", async () => {
      const file = join(dir, "m", "weights_0.bin");
      renameSync(file, join(dir, "m", "old.bin"));
      writeFileSync(join(dir, "other.bin"), "other");
      symlinkSync(join(dir, "other.bin"), file);
      await page.fill("#find", `gamma_${LAYERS - 2}`);
      await page.keyboard.press("Enter");
      await page.locator("body:not([data-state=busy])").waitFor();
      // The value panel says why the values are not shown: the file changed, by name.
      await expect
        .poll(
          () => page.locator(`#details table.value[data-name=gamma_${LAYERS - 2}]`).textContent(),
          {
            timeout: 30_000,
          },
        )
        .toMatch(
          /weights_0\.bin: cannot be read from http:\/\/127\.0\.0\.1:\d+\/preload\/1: it changed on disk since the server started/,
        );
      expect(data().some((r) => r.status === 410)).toBe(true);
      expect(data().every((r) => r.status !== 200 || r.method === "HEAD")).toBe(true);
    }, 120_000);
  },
);

describe.skipIf(!chromium)(
  `a served model's result downloaded${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    it("Expand, then download: the data file holds the served file's bytes, read in ranges", async () => {
      const dir = mkdtempSync(join(tmpdir(), "oe-served-download-"));
      const model = makeLargeModel(join(dir, "m"), {
        hidden: 32,
        layers: 6,
        files: 2,
        fill: "values",
      });
      const srv = await serveInspector({ model });
      const browser = await launchChromium(chromium!);
      try {
        const page = await browser.newPage({ acceptDownloads: true });
        await page.goto(srv.url);
        await page.locator("#pane-a[data-drawn]").waitFor({ timeout: 120_000 });
        await page.locator("body:not([data-state=busy])").waitFor();
        await page.click("#expand-form button");
        await page.locator("body:not([data-state=busy])").waitFor({ timeout: 60_000 });
        expect(await page.locator("#error").isHidden()).toBe(true);
        const out = join(dir, "download");
        const saved: Promise<void>[] = [];
        page.on("download", (d) => saved.push(d.saveAs(join(out, d.suggestedFilename()))));
        await page.click("#dl-onnx");
        await expect.poll(() => saved.length, { timeout: 30_000 }).toBe(2);
        await Promise.all(saved);
        expectSameStoredWeights(model, join(out, "model.result.onnx"));
      } finally {
        await browser.close();
        srv.server.closeAllConnections();
        srv.server.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 180_000);
  },
);

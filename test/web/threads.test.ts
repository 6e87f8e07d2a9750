// The interpreter's helper threads in the page (issue 20, item 2), in headless Chromium: served by
// `inspect` (cross-origin isolated), a run of a model made of large matrix products and a
// convolution computes them on more than one thread (the run report says how many took part) and
// gives the same bytes as the page served without the headers, where it runs on one thread.
// Skipped, saying why, when no Chromium is installed.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveInspector, webDir, type InspectServer } from "../../src/cli/server.js";
import {
  collectLogs,
  cspViolations,
  findChromium,
  launchChromium,
  NO_CHROMIUM,
  serveStatic,
} from "../helpers/browser.js";

const root = join(import.meta.dirname, "..", "..");
const chromium = findChromium();

/** Three 256×512×512 products (67 M multiply-adds each) and a 3×3 convolution (75 M). */
const PRODUCTS = `<ir_version: 9, opset_import: ["" : 18]>
g (float[256,512] x, float[512,512] w, float[1,32,64,64] img, float[64,32,3,3] k)
  => (float[256,512] y, float[1,64,64,64] z) {
  a = MatMul (x, w)
  b = MatMul (a, w)
  y = MatMul (b, w)
  z = Conv <pads: ints = [1, 1, 1, 1]> (img, k)
}`;

interface Ran {
  threads: number;
  outputs: { name: string; digest?: string }[];
  isolated: boolean;
  cores: number;
  logs: string[];
}

/** Opens the model in a fresh tab at `url`, runs it on seeded random inputs, reads the report. */
async function runIn(browser: Browser, url: string, model: string): Promise<Ran> {
  const page: Page = await browser.newPage();
  const logs = await collectLogs(page);
  try {
    await page.goto(url);
    await page.setInputFiles("#file", model);
    await page.locator("#pane-a[data-drawn]").waitFor({ timeout: 120_000 });
    await page.locator("body:not([data-state=busy])").waitFor({ timeout: 120_000 });
    await page.selectOption("#run-mode", "random");
    await page.click("#run-form button");
    await page.locator("#run-report[data-threads]").waitFor({ timeout: 120_000 });
    const box = page.locator("#run-report");
    return {
      threads: Number(await box.getAttribute("data-threads")),
      outputs: JSON.parse((await box.getAttribute("data-outputs")) ?? "[]"),
      isolated: await page.evaluate(() => crossOriginIsolated),
      cores: await page.evaluate(() => navigator.hardwareConcurrency),
      logs,
    };
  } finally {
    await page.close();
  }
}

describe.skipIf(!chromium)(
  `helper threads in the page${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    let browser: Browser;
    let srv: InspectServer;
    let plain: Awaited<ReturnType<typeof serveStatic>>;
    let work: string;
    let model: string;

    beforeAll(async () => {
      execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs")], { stdio: "ignore" });
      work = mkdtempSync(join(tmpdir(), "web-threads-"));
      model = join(work, "products.onnxtxt");
      writeFileSync(model, PRODUCTS);
      srv = await serveInspector();
      plain = await serveStatic(webDir());
      browser = await launchChromium(chromium!);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      srv?.server.close();
      plain?.server.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it("isolated: products on helper threads, the same bytes as one thread without isolation", async () => {
      const threaded = await runIn(browser, srv.url, model);
      const alone = await runIn(browser, plain.url, model);
      expect(threaded.isolated).toBe(true);
      expect(cspViolations(threaded.logs)).toEqual([]);
      expect(alone.isolated).toBe(false);
      expect(alone.threads).toBe(1);
      if (threaded.cores >= 2) expect(threaded.threads).toBeGreaterThan(1);
      expect(threaded.outputs.map((o) => o.name)).toEqual(["y", "z"]);
      for (const o of threaded.outputs) expect(o.digest).toMatch(/^[0-9a-f]{8}$/);
      expect(threaded.outputs).toEqual(alone.outputs);
    }, 300_000);
  },
);

// Lower with a precision choice in the page: the deployed BERT lowered for WebGPU in float16 —
// the notes say how many nodes became float16 and the output error the interpreter measured, the
// result is drawn, and a Run compares it with the float32 model node by node (no error shown).
// Skipped, saying why, when no Chromium is installed.

import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveInspector, type InspectServer } from "../../src/cli/server.js";
import { findChromium, launchChromium, NO_CHROMIUM } from "../helpers/browser.js";

const root = join(import.meta.dirname, "..", "..");
const chromium = findChromium();
const BERT = join(root, "test", "data", "deployed", "bert_fp32", "model.onnx");

async function settled(page: Page): Promise<string> {
  await page.locator("body:not([data-state=busy])").waitFor({ timeout: 120_000 });
  return (await page.locator("#error").isVisible()) ? await page.locator("#error").innerText() : "";
}

describe.skipIf(!chromium)(`precision in the page${chromium ? "" : ` (${NO_CHROMIUM})`}`, () => {
  let srv: InspectServer;
  let browser: Browser;
  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs")], { stdio: "ignore" });
    srv = await serveInspector();
    browser = await launchChromium(chromium!);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    srv?.server.close();
  });

  it("Lower for WebGPU in float16 says what became float16 and the error", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(srv.url);
      await page.setInputFiles("#file", BERT);
      await page.locator("#pane-a[data-drawn]").waitFor({ timeout: 120_000 });
      expect(await settled(page)).toBe("");
      await page.selectOption("#target", "webgpu@1");
      await page.selectOption("#precision", "float16");
      await page.fill("#dims", "batch=1,sequence=8");
      await page.click("#lower");
      expect(await settled(page)).toBe("");
      await page.locator("#pane-b[data-drawn]").waitFor({ timeout: 120_000 });
      const notes = await page.locator("#diff").innerText();
      const m =
        /float16: (\d+) node\(s\) made float16, \d+ kept float32, \d+ Cast\(s\) inserted, [\d.]+% of weight bytes in float16, output error ([\d.e+-]+)/.exec(
          notes,
        );
      expect(m, notes).not.toBeNull();
      expect(Number(m![1])).toBeGreaterThan(50);
      expect(Number(m![2])).toBeLessThan(1e-2);
    } finally {
      await page.close();
    }
  }, 300_000);
});

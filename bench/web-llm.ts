// An LLM in the page (bench/web.ts, case "llm"): the corpus decoder at the export script's
// `medium` size (803 MB of float32 weights in model.onnx.data), picked with its data file. Timed:
// from picking the files to <body data-state="ready"> (drawn), and Run at sequence length 8 on
// seeded random inputs, from the click to ready (and the worker's own time for the run); the
// renderer processes' RSS when drawn, and the most it reached during the run (sampled).
// The folder is WEB_LLM (default corpus/exported/llama_medium_dynamo); the case is left out,
// saying so, when it is not there.

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { INSTRUMENT, rendererRss, waitReady } from "./web-page.js";

export interface LlmResult {
  name: string;
  nodes: string;
  boxes: string;
  readyMs: number | string;
  rssReadyMb?: number;
  runMs?: number;
  workerRunMs?: number;
  rssRunPeakMb?: number;
}

/** The model's folder, or undefined when it has not been exported. */
export function llmFolder(root: string): string | undefined {
  const dir = process.env.WEB_LLM ?? join(root, "corpus", "exported", "llama_medium_dynamo");
  return existsSync(join(dir, "model.onnx")) && existsSync(join(dir, "model.onnx.data"))
    ? dir
    : undefined;
}

export async function benchLlm(browser: Browser, url: string, dir: string): Promise<LlmResult> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const out: LlmResult = { name: "llm medium, 803 MB", nodes: "", boxes: "", readyMs: "" };
  try {
    const page = await context.newPage();
    await page.addInitScript(INSTRUMENT);
    await page.goto(url);
    await page.locator("body[data-state=ready]").waitFor({ timeout: 30_000 });
    await page.setInputFiles("#file", [join(dir, "model.onnx"), join(dir, "model.onnx.data")]);
    const error = await waitReady(page);
    const ready = await page.evaluate(() => {
      const b = (window as unknown as { bench: { t0: number; ready: number } }).bench;
      return b.ready - b.t0;
    });
    out.readyMs = error ? `error: ${error.split("\n")[0]}` : Math.round(ready);
    out.nodes = (await page.locator("#pane-a").getAttribute("data-drawn")) ?? "";
    out.boxes = (await page.locator("#pane-a").getAttribute("data-boxes")) ?? "";
    out.rssReadyMb = await rendererRss(browser);
    if (error) return out;
    await page.fill("#dims", "batch=1,sequence=8");
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, (await rendererRss(browser)) ?? 0);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const t0 = Date.now();
    await page.click("#run-form button");
    await page.locator("body:not([data-state=busy])").waitFor({ timeout: 1_800_000 });
    out.runMs = Date.now() - t0;
    sampling = false;
    await sampler;
    out.rssRunPeakMb = peak || undefined;
    const failed = await page.locator("#error").isVisible();
    if (failed) out.readyMs = `run: ${(await page.locator("#error").innerText()).split("\n")[0]}`;
    else out.workerRunMs = Number(await page.locator("#run-report").getAttribute("data-ms"));
  } finally {
    await context.close().catch(() => undefined);
  }
  return out;
}

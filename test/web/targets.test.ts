// Targets in the page (issue 31, item 5): the target selector lists the shipped profiles; Check
// against one marks every node it does not fully support (and the groups holding them) and lists
// each with its reason and a way to the node; Lower makes the result for the target (with the
// dims box's dims) and checks it again. On the deployed BERT for WebGPU: 25 of 252 nodes not fully
// supported before (Shape and Reshape have no GPU kernel there), the Reshapes alone after. Lower
// with a precision (float16) says what became float16 and the interpreter's output error.
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

describe.skipIf(!chromium)(`targets in the page${chromium ? "" : ` (${NO_CHROMIUM})`}`, () => {
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

  it("Check against WebGPU marks what it lacks; Lower leaves only the Reshapes", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(srv.url);
      await page.setInputFiles("#file", BERT);
      await page.locator("#pane-a[data-drawn]").waitFor({ timeout: 120_000 });
      expect(await settled(page)).toBe("");
      const options = await page
        .locator("#target option")
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
      expect(options).toEqual(expect.arrayContaining(["", "webnn@1", "webgpu@1", "tensorrt@1"]));
      // Lower with no target picked says so.
      await page.click("#lower");
      expect(await settled(page)).toMatch(/pick a target/);

      await page.selectOption("#target", "webgpu@1");
      await page.click("#check");
      expect(await settled(page)).toBe("");
      const report = page.locator("#check-report");
      expect(await report.locator("h3").first().innerText()).toMatch(
        /webgpu@1: 25 of 252 node\(s\) not supported/,
      );
      expect(await page.locator("#pane-a").getAttribute("data-problems")).toBe("25");
      // All 25 are partial (limited by the source), marked in the partial colour.
      expect(await page.locator("#pane-a").getAttribute("data-partial")).toBe("25");
      expect(await report.innerText()).toMatch(
        /partial: graph > node '\/Shape' \(Shape\): limited/,
      );
      // A line leads to its node.
      await report.locator("button.problem").first().click();
      expect(await settled(page)).toBe("");
      expect(await page.locator("#details h3").textContent()).toMatch(/Shape/);

      await page.fill("#dims", "batch=1,sequence=8");
      await page.click("#lower");
      expect(await settled(page)).toBe("");
      await page.locator("#pane-b[data-drawn]").waitFor({ timeout: 120_000 });
      expect(await page.locator("#diff").innerText()).toMatch(/still not supported by webgpu@1/);
      const result = report.locator("h3[data-side=b]");
      const m = /webgpu@1: (\d+) of (\d+) node\(s\) not supported/.exec(await result.innerText());
      expect(m).not.toBeNull();
      expect(Number(m![1])).toBeLessThan(25);
      const left = await report.locator("h3[data-side=b] + ol").innerText();
      expect(left).toMatch(/\(Reshape\): limited/);
      expect(left).not.toMatch(/\(Shape\): limited/);
      expect(Number(await page.locator("#pane-b").getAttribute("data-problems"))).toBe(
        Number(m![1]),
      );

      // Against WebNN: Range is unsupported (red), the 8 Reshapes partial (their own colour).
      await page.selectOption("#target", "webnn@1");
      await page.click("#check");
      expect(await settled(page)).toBe("");
      expect(await page.locator("#pane-a").getAttribute("data-problems")).toBe("9");
      expect(await page.locator("#pane-a").getAttribute("data-partial")).toBe("8");
    } finally {
      await page.close();
    }
  }, 300_000);

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

// Targets in the page (issue 31, item 5; issue 39, item 2): the target selector lists the shipped
// profiles; Check against one marks every node it does not fully support (and the groups holding
// them), colours the partitions the backend would form and lists the nodes that split them first,
// each line with its reason and a way to the node; Lower makes the result for the target (with
// the dims box's dims) and checks it again. On the deployed BERT: WebGPU leaves its int64 shape
// arithmetic; WebNN
// splits it into 6 partitions, one after lowering with fixed dims. Lower with a precision
// (float16) says what became float16 and the interpreter's output error. Lower with the ranges
// box (`attention_mask=0:1`, lower --input-range) leaves the deployed BERT nothing unsupported
// for WebGPU (its int64 mask's Cast read through a table); a range naming no input is an error.
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

  it("Check colours the partitions and lists the nodes that split them; Lower leaves one", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(srv.url);
      await page.setInputFiles("#file", BERT);
      await page.locator("#pane-a[data-drawn]").waitFor({ timeout: 120_000 });
      expect(await settled(page)).toBe("");
      const options = await page
        .locator("#target option")
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
      expect(options).toEqual(expect.arrayContaining(["", "webnn@2", "webgpu@2", "tensorrt@2"]));
      // Lower with no target picked says so.
      await page.click("#lower");
      expect(await settled(page)).toMatch(/pick a target/);

      // WebGPU's kernels read no int64 data (the profile's types, read from the release): as
      // exported, the dynamic shape arithmetic (Shape → Gather → Unsqueeze → Concat) is not
      // taken, 48 nodes in 5 partitions; fixed dims fold it away (below).
      await page.selectOption("#target", "webgpu@2");
      await page.click("#check");
      expect(await settled(page)).toBe("");
      const report = page.locator("#check-report");
      expect(await report.locator("h3").first().innerText()).toMatch(
        /webgpu@2: 48 of 180 node\(s\) not supported, 5 partition\(s\) \(72 Constant nodes not counted: onnxruntime folds them into initializers\)/,
      );
      expect(await page.locator("#pane-a").getAttribute("data-problems")).toBe("48");
      expect(await page.locator("#pane-a").getAttribute("data-partitions")).toBe("5");

      // WebNN: Range is unsupported (red), the 8 Reshapes of computed shapes partial (their own
      // colour); 6 partitions, coloured, the nodes that split them listed first, each leading
      // to its node.
      await page.selectOption("#target", "webnn@2");
      await page.click("#check");
      expect(await settled(page)).toBe("");
      expect(await page.locator("#pane-a").getAttribute("data-problems")).toBe("9");
      expect(await page.locator("#pane-a").getAttribute("data-partial")).toBe("8");
      expect(await page.locator("#pane-a").getAttribute("data-partitions")).toBe("6");
      // every node of a partition painted (the main view's 180 nodes but Constants, less 9)
      const painted = await page
        .locator("#pane-a [data-painted]")
        .first()
        .getAttribute("data-painted");
      expect(Number(painted)).toBe(171);
      const text = await report.innerText();
      expect(text).toMatch(/partitions: 6 partitions \(nodes 10, 40, 16, 58, 16, 31\)/);
      // grouped by reason and op: the Reshapes of computed shapes, the Range
      expect(text).toMatch(/8\tReshape\tsplits partitions: input '…' is computed/);
      expect(text).toMatch(/1\tRange\tsplits partitions: Range-11 is a function op/);
      await report.locator("button.open-group").first().click();
      await report.locator("button.problem").first().click();
      expect(await settled(page)).toBe("");
      expect(await page.locator("#details h3").textContent()).toMatch(/Reshape|Range/);

      await page.fill("#dims", "batch=1,sequence=8");
      await page.click("#lower");
      expect(await settled(page)).toBe("");
      await page.locator("#pane-b[data-drawn]").waitFor({ timeout: 120_000 });
      expect(await page.locator("#diff").innerText()).toMatch(/every node is supported by webnn@2/);
      expect(await report.locator("h3[data-side=b]").innerText()).toMatch(
        /webnn@2: 0 of \d+ node\(s\) not supported, 1 partition\(s\)/,
      );
      expect(await page.locator("#pane-b").getAttribute("data-partitions")).toBe("1");
    } finally {
      await page.close();
    }
  }, 300_000);

  /** The BERT opened, webgpu picked, its dims fixed: ready to Lower. */
  async function bertForWebgpu(page: Page): Promise<void> {
    await page.goto(srv.url);
    await page.setInputFiles("#file", BERT);
    await page.locator("#pane-a[data-drawn]").waitFor({ timeout: 120_000 });
    expect(await settled(page)).toBe("");
    await page.selectOption("#target", "webgpu@2");
    await page.fill("#dims", "batch=1,sequence=8");
  }

  it("Lower for WebGPU in float16 says what became float16 and the error", async () => {
    const page = await browser.newPage();
    try {
      await bertForWebgpu(page);
      await page.selectOption("#precision", "float16");
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

  it("Lower for WebGPU with the mask's range declared leaves nothing unsupported; a bad range is one error", async () => {
    const page = await browser.newPage();
    try {
      await bertForWebgpu(page);
      await page.fill("#ranges", "mask=0:1");
      await page.click("#lower");
      expect(await settled(page)).toMatch(/the model has no input 'mask'/);
      // the int64 mask's Cast, which WebGPU does not take, read through a table
      await page.fill("#ranges", "attention_mask=0:1");
      await page.click("#lower");
      expect(await settled(page)).toBe("");
      await page.locator("#pane-b[data-drawn]").waitFor({ timeout: 120_000 });
      expect(await page.locator("#diff").innerText()).toMatch(
        /every node is supported by webgpu@2/,
      );
    } finally {
      await page.close();
    }
  }, 300_000);
});

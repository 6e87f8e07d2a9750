// The page's layout (issue 32, item 5), in headless Chromium at 1400×900: the graph panes take
// the window below the bars, and reports, notes and node details never move them: the first
// pane's top edge and height are the same after opening a model, converting and opening details;
// an error sits under the bars, clear of the panes' toolbars, and moves them down by its own
// height only until its × closes it; details sit beside the panes, not over the result; a long view name leaves the
// pane's Fit/SVG/PNG buttons inside the pane. Skipped, saying why, when no Chromium is installed.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  findChromium,
  NO_CHROMIUM,
  openInPage,
  startPageSession,
  type PageSession,
} from "../helpers/browser.js";

const chromium = findChromium();
const root = join(import.meta.dirname, "..", "..");

/** A model whose If branch has a very long graph name (its view's name). */
const LONG_VIEW = `<ir_version: 9, opset_import: ["" : 18]>
g (bool c, float[2] x) => (float[2] y) {
  y = If (c) <
    then_branch = ${"then_branch_of_a_very_long_name_".repeat(8)} () => (float[2] t) { t = Abs (x) },
    else_branch = else_short () => (float[2] e) { e = Neg (x) }
  >
}`;

async function settled(page: Page): Promise<void> {
  await page.locator("body:not([data-state=busy])").waitFor({ timeout: 60_000 });
}

const box = async (page: Page, sel: string) => (await page.locator(sel).boundingBox())!;

describe.skipIf(!chromium)(`the page's layout${chromium ? "" : ` (${NO_CHROMIUM})`}`, () => {
  let session: PageSession | undefined;
  let page: Page;
  let work: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "page-layout-"));
    session = await startPageSession(chromium!);
    page = session.page;
  }, 120_000);
  afterAll(async () => {
    await session?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("the graph keeps its place through convert, an error and details", async () => {
    await openInPage(page, session!.srv.url, join(root, "test/data/deployed/bert_fp32/model.onnx"));
    const first = await box(page, "#pane-a");
    // Below the bars: the graph starts in the top tenth of the window and reaches its bottom.
    expect(first.y).toBeLessThan(100);
    expect(first.y + first.height).toBeGreaterThan(880);
    const same = async (what: string) => {
      const now = await box(page, "#pane-a");
      expect({ what, y: now.y, h: now.height }).toEqual({ what, y: first.y, h: first.height });
    };
    await page.fill("#opset", "17");
    await page.click("#convert-form button");
    await page.locator("#pane-b[data-drawn]").waitFor({ timeout: 60_000 });
    await settled(page);
    await same("after convert (notes and the diff shown)");
    // An error: an opset the tool does not know.
    await page.fill("#opset", "999");
    await page.click("#convert-form button");
    await settled(page);
    expect(await page.locator("#error").isVisible()).toBe(true);
    const error = await box(page, "#error");
    const moved = await box(page, "#pane-a");
    expect(moved.y).toBeGreaterThanOrEqual(error.y + error.height);
    expect(moved.y + moved.height).toBeCloseTo(first.y + first.height, 0);
    await page.click("#error .close-error");
    await same("with the error closed");
    // Details of a node: beside the panes, not over the result pane.
    await page.fill("#find", "Gather");
    await page.keyboard.press("Enter");
    await settled(page);
    expect(await page.locator("#details").isVisible()).toBe(true);
    await same("with details open");
    const details = await box(page, "#details");
    const b = await box(page, "#pane-b");
    expect(details.x).toBeGreaterThanOrEqual(b.x + b.width);
    // The reports panel folds away, and the panes take its room.
    await page.click("#side-toggle");
    expect((await box(page, "#pane-b")).x + (await box(page, "#pane-b")).width).toBeGreaterThan(
      b.x + b.width + 200,
    );
    await same("with the reports panel folded");
    await page.click("#side-toggle");
  }, 120_000);

  it("a long view name leaves Fit, SVG and PNG inside the pane", async () => {
    const file = join(work, "long-view.onnxtxt");
    writeFileSync(file, LONG_VIEW);
    await openInPage(page, session!.srv.url, file);
    const select = page.locator("#pane-a select.views");
    const value = await select.evaluate((s: HTMLSelectElement) => {
      const longest = [...s.options].sort((a, b) => b.text.length - a.text.length)[0]!;
      return longest.value;
    });
    await select.selectOption(value);
    await settled(page);
    const pane = await box(page, "#pane-a");
    for (const b of ["Fit", "SVG", "PNG"]) {
      const r = await box(page, `#pane-a .bar button:text-is("${b}")`);
      expect(r.x + r.width, b).toBeLessThanOrEqual(pane.x + pane.width);
    }
  }, 120_000);
});

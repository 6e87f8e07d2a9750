// Numbers on the graph (issue 32, item 8), in headless Chromium: after Expand and Run, every node
// of the result is painted with its largest difference from the original's value of the same
// name, "no match" (never zero) where the original has no such value; "go to the worst" selects
// the node with the largest difference; the time per node paints both panes. Skipped, saying
// why, when no Chromium is installed.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { findChromium, NO_CHROMIUM, openInPage, pageSuite } from "../helpers/browser.js";

const chromium = findChromium();

// Gelu-20 expands into Erf and friends: its inner values have no match in the original; its
// output 'u' and the Abs nodes around it do.
const GELU = `<ir_version: 9, opset_import: ["" : 20]>
g (float[64,64] x) => (float[64,64] y) {
  [first] t = Abs (x)
  [act] u = Gelu (t)
  [last] y = Abs (u)
}`;

async function settled(page: Page): Promise<void> {
  await page.locator("body:not([data-state=busy])").waitFor({ timeout: 60_000 });
}

describe.skipIf(!chromium)(`numbers on the graph${chromium ? "" : ` (${NO_CHROMIUM})`}`, () => {
  const suite = pageSuite("page-paint-");

  it("differences painted per node, no match shown as such, the worst one a click away", async () => {
    const page = suite.session().page;
    const file = join(suite.work(), "gelu.onnxtxt");
    writeFileSync(file, GELU);
    await openInPage(page, suite.session().srv.url, file);
    await page.click("#expand-form button");
    await page.locator("#pane-b[data-drawn]").waitFor({ timeout: 60_000 });
    await settled(page);
    await page.selectOption("#run-mode", "random");
    await page.click("#run-form button");
    await settled(page);
    const bar = page.locator("#paint-bar");
    expect(await bar.isVisible()).toBe(true);
    expect(await page.locator("#paint-mode").inputValue()).toBe("diff");
    const nodesB = Number(await page.locator("#pane-b").getAttribute("data-drawn"));
    const noMatch = Number(await bar.getAttribute("data-no-match"));
    const matched = Number(await bar.getAttribute("data-matched"));
    // first, the Mul writing 'u' (Gelu's output) and last match; the rest of the body does not
    expect(matched).toBe(3);
    expect(noMatch).toBe(nodesB - 3);
    expect(
      Number(await page.locator("#pane-b [data-painted]").getAttribute("data-painted")),
    ).toBeGreaterThan(nodesB - 1);
    const worst = Number(await bar.getAttribute("data-worst"));
    expect(worst).toBeLessThan(1e-5);
    await page.click("#paint-worst");
    await settled(page);
    const selected = await page.locator("#pane-b").getAttribute("data-selected");
    expect(selected).toMatch(/^n\d+$/);
    expect(await page.locator("#status").textContent()).toMatch(/^The largest difference: /);
    // times: both panes painted, every box
    await page.selectOption("#paint-mode", "time");
    expect(await page.evaluate(() => document.body.dataset.paint)).toBe("time");
    const paintedA = Number(
      await page.locator("#pane-a [data-painted]").getAttribute("data-painted"),
    );
    expect(paintedA).toBeGreaterThanOrEqual(3);
    // nothing: the paint is gone
    await page.selectOption("#paint-mode", "none");
    expect(await page.locator("#pane-b [data-painted]").getAttribute("data-painted")).toBe("0");
  }, 120_000);
});

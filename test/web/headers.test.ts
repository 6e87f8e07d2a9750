// The page under its header set (PAGE_HEADERS, src/cli/server.ts) in headless Chromium: served by
// `serveInspector`, it is cross-origin isolated, its Content-Security-Policy is enforced, and it
// opens, converts, expands and runs a model without a single CSP violation in the page or its
// worker. A static copy served without the headers still does all of it (not isolated, so
// single-threaded). The interpreter's helper threads (issue 20, item 2): isolated, a run of a model
// made of large matrix products and a convolution computes them on more than one thread (the run
// report says how many took part) and gives the same bytes as the static copy, where it runs on
// one thread; a helper that starts late (its script held back) is not waited for: runs before it
// is up take one thread and the same bytes. Skipped, saying why, when no Chromium is installed.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
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
// The model the bench runs side by side (three 256×512×512 products, a 3×3 convolution).
import { PRODUCTS_MODEL } from "../../bench/web-run.js";

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

interface Ran {
  threads: number;
  outputs: { name: string; digest?: string }[];
  isolated: boolean;
  cores: number;
  logs: string[];
}

/** Opens the model in a tab at `url`, ready to run it on seeded random inputs. */
async function openModel(page: Page, url: string, file: string): Promise<void> {
  await page.goto(url);
  await page.setInputFiles("#file", file);
  await page.locator("#pane-a[data-drawn]").waitFor({ timeout: 120_000 });
  await page.locator("body:not([data-state=busy])").waitFor({ timeout: 120_000 });
  await page.selectOption("#run-mode", "random");
}

/** Runs the open model once and reads the run report. */
async function runOnce(page: Page, logs: string[]): Promise<Ran> {
  await page.evaluate(() => document.getElementById("run-report")!.removeAttribute("data-threads"));
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
}

/** Opens the model in a fresh tab at `url`, runs it once, closes the tab. */
async function runIn(browser: Browser, url: string, file: string): Promise<Ran> {
  const page: Page = await browser.newPage();
  const logs = await collectLogs(page);
  try {
    await openModel(page, url, file);
    return await runOnce(page, logs);
  } finally {
    await page.close();
  }
}

/**
 * A proxy in front of the page's server (its headers pass through, so the page stays isolated)
 * that holds back the helper threads' script until `release` is called.
 */
async function holdingHelpers(
  target: string,
): Promise<{ url: string; server: Server; release(): void }> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const server = createServer((req, res) => {
    void (async () => {
      if ((req.url ?? "").startsWith("/helper.js")) await released;
      const r = await fetch(new URL(req.url ?? "/", target));
      const body = Buffer.from(await r.arrayBuffer());
      res.writeHead(r.status, Object.fromEntries(r.headers)).end(body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, server, release };
}

describe.skipIf(!chromium)(
  `the page's header set in headless Chromium${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    let browser: Browser;
    let srv: InspectServer;
    let plain: Awaited<ReturnType<typeof serveStatic>>;
    let work: string;
    let products: string;
    /** The outputs of the single-thread run. */
    let reference: Ran["outputs"] = [];

    beforeAll(async () => {
      execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs")], { stdio: "ignore" });
      work = mkdtempSync(join(tmpdir(), "web-headers-"));
      products = join(work, "products.onnxtxt");
      writeFileSync(products, PRODUCTS_MODEL);
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

    it("isolated: products on helper threads, the same bytes as one thread without isolation", async () => {
      const threaded = await runIn(browser, srv.url, products);
      const alone = await runIn(browser, plain.url, products);
      expect(threaded.isolated).toBe(true);
      expect(cspViolations(threaded.logs)).toEqual([]);
      expect(alone.isolated).toBe(false);
      expect(alone.threads).toBe(1);
      if (threaded.cores >= 2) expect(threaded.threads).toBeGreaterThan(1);
      expect(threaded.outputs.map((o) => o.name)).toEqual(["y", "z"]);
      for (const o of threaded.outputs) expect(o.digest).toMatch(/^[0-9a-f]{8}$/);
      expect(threaded.outputs).toEqual(alone.outputs);
      reference = alone.outputs;
    }, 300_000);

    it("a helper that is not running yet is not waited for: one thread, the same bytes", async () => {
      const proxy = await holdingHelpers(srv.url);
      const page = await browser.newPage();
      const logs = await collectLogs(page);
      try {
        await openModel(page, proxy.url, products);
        const early = await runOnce(page, logs);
        expect(early.isolated).toBe(true);
        expect(early.threads).toBe(1);
        expect(early.outputs).toEqual(reference);
        proxy.release();
        if (early.cores < 2) return;
        // Once the script arrives the helper starts, and the next runs use it.
        let late = early;
        for (let i = 0; i < 20 && late.threads === 1; i++) {
          await page.waitForTimeout(250);
          late = await runOnce(page, logs);
        }
        expect(late.threads).toBeGreaterThan(1);
        expect(late.outputs).toEqual(early.outputs);
      } finally {
        await page.close();
        proxy.server.close();
      }
    }, 300_000);
  },
);

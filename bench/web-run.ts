// The interpreter's runs in the page (issue 20, item 2), for `npm run bench:web`: a model of large
// products opened twice in headless Chromium, once served by `inspect` (cross-origin isolated: the
// products run on helper threads) and once served without the headers (one thread), and run on the
// same seeded random inputs in turns, side by side. Reports the run time measured in the worker
// (median of the repeats), the threads that took part, the ratio, and whether the outputs' bytes
// agree.

import type { Browser, Page } from "playwright-core";

export interface RunCase {
  name: string;
  file: string;
}

export interface RunResult {
  name: string;
  isolatedMs: number;
  isolatedThreads: number;
  plainMs: number;
  plainThreads: number;
  /** Single-thread time over threaded time. */
  speedup: number;
  sameBytes: boolean;
}

/** Three 256×512×512 products and a 3×3 convolution of 32 to 64 channels over 64×64. */
export const PRODUCTS_MODEL = `<ir_version: 9, opset_import: ["" : 18]>
g (float[256,512] x, float[512,512] w, float[1,32,64,64] img, float[64,32,3,3] k)
  => (float[256,512] y, float[1,64,64,64] z) {
  a = MatMul (x, w)
  b = MatMul (a, w)
  y = MatMul (b, w)
  z = Conv <pads: ints = [1, 1, 1, 1]> (img, k)
}`;

async function open(browser: Browser, url: string, file: string, timeout: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url);
  await page.setInputFiles("#file", file);
  await page.locator("#pane-a[data-drawn], body[data-error]").first().waitFor({ timeout });
  await page.locator("body:not([data-state=busy])").waitFor({ timeout });
  await page.selectOption("#run-mode", "random");
  return page;
}

/** One run: its time in the worker, the threads, the outputs' digests. */
async function runOnce(page: Page, timeout: number) {
  await page.evaluate(() => document.getElementById("run-report")!.removeAttribute("data-threads"));
  await page.click("#run-form button");
  await page.locator("#run-report[data-threads], body[data-error]").first().waitFor({ timeout });
  const box = page.locator("#run-report");
  if ((await box.getAttribute("data-threads")) === null)
    throw new Error(`the run failed: ${await page.locator("#error").innerText()}`);
  return {
    ms: Number(await box.getAttribute("data-ms")),
    threads: Number(await box.getAttribute("data-threads")),
    digests: (await box.getAttribute("data-outputs")) ?? "",
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs each case `repeats` times in each page, in turns; prints one line per case. */
export async function benchRuns(
  browser: Browser,
  isolatedUrl: string,
  plainUrl: string,
  cases: RunCase[],
  repeats = 5,
  timeout = 180_000,
): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const c of cases) {
    const iso = await open(browser, isolatedUrl, c.file, timeout);
    const plain = await open(browser, plainUrl, c.file, timeout);
    try {
      const a: Awaited<ReturnType<typeof runOnce>>[] = [];
      const b: typeof a = [];
      for (let i = 0; i < repeats; i++) {
        a.push(await runOnce(iso, timeout));
        b.push(await runOnce(plain, timeout));
      }
      const r: RunResult = {
        name: c.name,
        isolatedMs: Math.round(median(a.map((x) => x.ms))),
        isolatedThreads: Math.max(...a.map((x) => x.threads)),
        plainMs: Math.round(median(b.map((x) => x.ms))),
        plainThreads: Math.max(...b.map((x) => x.threads)),
        speedup: 0,
        sameBytes: [...a, ...b].every((x) => x.digests === a[0]!.digests),
      };
      r.speedup = Number((r.plainMs / r.isolatedMs).toFixed(2));
      results.push(r);
      console.log(
        `${r.name.padEnd(38)} isolated ${r.isolatedMs} ms (${r.isolatedThreads} threads)  ` +
          `not isolated ${r.plainMs} ms (${r.plainThreads} thread)  ×${r.speedup}  ` +
          `outputs ${r.sameBytes ? "byte-identical" : "DIFFER"}`,
      );
    } finally {
      await iso.close();
      await plain.close();
    }
  }
  return results;
}

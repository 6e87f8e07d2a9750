// Headless Chromium for the browser tests: Debian's chromium-headless-shell driven by
// playwright-core (which downloads no browser). Found at $CHROMIUM_PATH or the Debian paths.

import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";

const CANDIDATES = [
  "/usr/bin/chromium-headless-shell",
  "/usr/lib/chromium/chromium-headless-shell",
  "/usr/lib/chromium/headless_shell",
  "/usr/bin/chromium",
];

/** The Chromium binary, or undefined (then the browser tests skip). */
export function findChromium(): string | undefined {
  const env = process.env.CHROMIUM_PATH;
  if (env) return existsSync(env) ? env : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

export const NO_CHROMIUM =
  "no Chromium found (apt-get install chromium-headless-shell, or set CHROMIUM_PATH): browser tests skipped";

export async function launchChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

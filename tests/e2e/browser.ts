/** Debian's Chromium driven by playwright-core (no browser download). CHROME_PATH overrides the binary. */
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROME_PATH ?? "/usr/bin/chromium";

export async function launchBrowser(): Promise<Browser> {
  // Playwright gives each launch a new, empty profile directory.
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

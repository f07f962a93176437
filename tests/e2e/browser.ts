/** Debian's Chromium driven by playwright-core (no browser download). CHROME_PATH overrides the binary. */
import { type Browser, chromium } from "playwright-core";

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

/** Delete every run through the API, so a test file starts from an empty history whatever ran before it. */
export async function deleteAllRuns(baseUrl: string): Promise<void> {
  for (;;) {
    const response = await fetch(`${baseUrl}/api/runs?per_page=100`);
    const { runs } = (await response.json()) as { runs: { id: string }[] };
    if (runs.length === 0) return;
    for (const run of runs) {
      const deleted = await fetch(`${baseUrl}/api/runs/${run.id}`, { method: "DELETE" });
      if (deleted.status !== 204) throw new Error(`could not delete run ${run.id}: ${deleted.status}`);
    }
  }
}

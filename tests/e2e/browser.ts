/** Debian's Chromium driven by playwright-core (no browser download). CHROME_PATH overrides the binary. */
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROME_PATH ?? "/usr/bin/chromium";

/**
 * How long any page action (a navigation, a click, waiting for an element) may take before the test fails:
 * only a guard against a page that never gets there. Playwright's own 30 s was seen to run out on a machine
 * whose both cores were busy with other work, where a first page load can take tens of seconds.
 */
export const PAGE_ACTION_TIMEOUT_MS = 300_000;

export async function launchBrowser(): Promise<Browser> {
  const browser = await launchChromium();
  // Every page and context starts with the guard above and a goto that waits for React, whichever way the test
  // opens it.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(PAGE_ACTION_TIMEOUT_MS);
    context.setDefaultNavigationTimeout(PAGE_ACTION_TIMEOUT_MS);
    const contextNewPage = context.newPage.bind(context);
    context.newPage = async () => gotoWaitsForReact(await contextNewPage());
    return context;
  };
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (options) => {
    const page = await newPage(options);
    page.setDefaultTimeout(PAGE_ACTION_TIMEOUT_MS);
    page.setDefaultNavigationTimeout(PAGE_ACTION_TIMEOUT_MS);
    return gotoWaitsForReact(page);
  };
  return browser;
}

/**
 * `page.goto` (and `reload`) answer once the page has loaded and React has taken it over. A click or a key typed
 * before the app's script has run is lost (React replays the events that arrive while it hydrates, not those
 * from before), and on a busy machine a test's first action came first: a form submitted by Enter never
 * reached the URL, a file was never attached. Documents that are not the app's pages (JSON, images) answer at
 * once.
 */
function gotoWaitsForReact(page: Page): Page {
  const goto = page.goto.bind(page);
  page.goto = async (url, options) => {
    const response = await goto(url, options);
    await reactHasTakenOver(page);
    return response;
  };
  const reload = page.reload.bind(page);
  page.reload = async (options) => {
    const response = await reload(options);
    await reactHasTakenOver(page);
    return response;
  };
  return page;
}

async function reactHasTakenOver(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    if (!document.querySelector('script[src*="/_next/"]')) return true;
    // React marks each DOM node it hydrates; the root is hydrated first.
    const root = document.querySelector("main") ?? document.body;
    return root !== null && Object.keys(root).some((key) => key.startsWith("__reactFiber"));
  });
}

function launchChromium(): Promise<Browser> {
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

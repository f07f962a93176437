/**
 * The link preview of a saved comparison with the longest texts the product makes, fetched from the running
 * server: a 1200×630 PNG whose margins stay white (nothing drawn past its box reaches them).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { CANVAS, MARGIN } from "../../lib/comparisons/og-layout";
import { LONG_TITLE, longestPreviewDocuments } from "../support/long-preview";
import { decodePng, inkOutside } from "../support/png";
import { deleteAllRuns } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
let slug = "";

beforeAll(async () => {
  await deleteAllRuns(baseUrl);
  const runs: string[] = [];
  for (const document of longestPreviewDocuments()) {
    const response = await fetch(`${baseUrl}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(document),
    });
    if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
    runs.push(((await response.json()) as { id: string }).id);
  }
  const saved = await fetch(`${baseUrl}/api/comparisons`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ runs, title: LONG_TITLE }),
  });
  if (saved.status !== 201) throw new Error(`save failed: ${saved.status} ${await saved.text()}`);
  slug = ((await saved.json()) as { slug: string }).slug;
});

describe("the link preview of the longest comparison", () => {
  it("is a 1200×630 PNG with nothing drawn in its margins", async () => {
    const response = await fetch(`${baseUrl}/api/og?slug=${slug}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    const png = decodePng(new Uint8Array(await response.arrayBuffer()));
    expect([png.width, png.height]).toEqual([CANVAS.width, CANVAS.height]);
    const content = {
      x: MARGIN.left,
      y: MARGIN.top,
      width: CANVAS.width - MARGIN.left - MARGIN.right,
      height: CANVAS.height - MARGIN.top - MARGIN.bottom,
    };
    expect(inkOutside(png, [content], 1)).toEqual([]);
    // The content area was drawn on.
    expect(inkOutside(png, [], 0).length).toBeGreaterThan(10_000);
  });
});

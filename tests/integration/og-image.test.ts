/**
 * The link-preview image: a real PNG of 1200×630 for a comparison and for a saved one, and still a PNG (with a
 * 404) when the comparison does not exist, so a preview never breaks.
 */
import fs from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as postComparison } from "@/app/api/comparisons/route";
import { GET as getOg } from "@/app/api/og/route";
import { POST as postRun } from "@/app/api/runs/route";
import { measureText } from "@/lib/comparisons/og-fonts";
import { layoutPreview } from "@/lib/comparisons/og-layout";
import { openSavedComparison } from "@/lib/comparisons/save";
import { LONG_TITLE, longestPreviewDocuments } from "../support/long-preview";
import { decodePng, inkOutside } from "../support/png";
import { BASE, clearDatabase, fixtureText, jsonRequest, noContext, SEED_FILES } from "./helpers";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Width and height from the IHDR chunk, which a PNG must start with right after its signature. */
function pngHeader(bytes: Uint8Array): { signature: number[]; chunk: string; width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    signature: [...bytes.subarray(0, 8)],
    chunk: new TextDecoder().decode(bytes.subarray(12, 16)),
    width: view.getUint32(16),
    height: view.getUint32(20),
  };
}

async function image(
  query: string,
): Promise<{ status: number; type: string | null; cache: string | null; bytes: Uint8Array }> {
  const response = await getOg(new Request(`${BASE}/api/og?${query}`), noContext);
  const bytes = new Uint8Array(await response.arrayBuffer());
  // OG_DUMP=dir writes each image there, to look at.
  if (process.env.OG_DUMP)
    fs.writeFileSync(
      `${process.env.OG_DUMP}/og-${response.status}-${query.replace(/[^a-z0-9]+/gi, "_").slice(0, 60)}.png`,
      bytes,
    );
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    cache: response.headers.get("cache-control"),
    bytes,
  };
}

async function upload(file: string): Promise<string> {
  const response = await postRun(jsonRequest("/api/runs", "POST", fixtureText(file)), noContext);
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

let ids: { vllm: string; noGraphs: string; graphs: string };

beforeAll(async () => {
  await clearDatabase();
  ids = {
    vllm: await upload(SEED_FILES.vllm),
    noGraphs: await upload(SEED_FILES.sglangNoGraphs),
    graphs: await upload(SEED_FILES.sglangGraphs),
  };
});

describe("GET /api/og", () => {
  it("draws the seed comparison as a 1200×630 PNG, cacheable for five minutes", async () => {
    const result = await image(`runs=${ids.noGraphs},${ids.graphs}`);
    expect(result.status).toBe(200);
    expect(result.type).toBe("image/png");
    expect(result.cache).toBe("public, max-age=300");
    expect(pngHeader(result.bytes)).toEqual({ signature: PNG_SIGNATURE, chunk: "IHDR", width: 1200, height: 630 });
    // A drawn card, not an empty canvas.
    expect(result.bytes.byteLength).toBeGreaterThan(10_000);
  });

  it("draws all three seed runs against a chosen baseline, with the compare page's parameters", async () => {
    const result = await image(
      `runs=${ids.vllm},${ids.noGraphs},${ids.graphs}&baseline=${ids.noGraphs}&noise=5&stat=p99`,
    );
    expect(result.status).toBe(200);
    expect(pngHeader(result.bytes)).toMatchObject({ width: 1200, height: 630 });
  });

  it("draws five series with many load levels (the compact layout)", async () => {
    const sweep = (name: string, scale: number) =>
      JSON.stringify({
        format: "servebench/v1",
        name,
        engine: "vllm",
        model: "Kimi-K2.5 INT4",
        hardware: { gpu: "RTX PRO 6000 Blackwell", gpu_count: 8 },
        command: `vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8 --max-num-seqs ${scale * 64}`,
        results: [1, 2, 4, 8, 16, 32, 64, 128, 256].map((concurrency) => ({
          concurrency,
          output_throughput: Math.round(70 * scale * concurrency ** 0.72),
        })),
      });
    const extra: string[] = [];
    for (const [name, scale] of [
      ["vLLM sweep, max-num-seqs 64", 1],
      ["vLLM sweep, max-num-seqs 128 with a much longer name than usual", 2],
    ] as const) {
      const response = await postRun(jsonRequest("/api/runs", "POST", sweep(name, scale)), noContext);
      extra.push(((await response.json()) as { id: string }).id);
    }
    const result = await image(`runs=${ids.vllm},${ids.noGraphs},${ids.graphs},${extra.join(",")}`);
    expect(result.status).toBe(200);
    expect(pngHeader(result.bytes)).toMatchObject({ width: 1200, height: 630 });
  });

  it("draws a saved comparison by its slug", async () => {
    const response = await postComparison(
      jsonRequest("/api/comparisons", "POST", {
        runs: [ids.noGraphs, ids.graphs],
        title: "CUDA graphs: 2.4× single stream on Blackwell",
      }),
      noContext,
    );
    expect(response.status).toBe(201);
    const { slug } = (await response.json()) as { slug: string };
    const result = await image(`slug=${slug}`);
    expect(result.status).toBe(200);
    expect(result.type).toBe("image/png");
    expect(pngHeader(result.bytes)).toMatchObject({ width: 1200, height: 630 });
  });

  it.each([
    ["unknown runs", "runs=AAAAAAAAAAAA,BBBBBBBBBBBB"],
    ["an unknown slug", "slug=nosuchsl"],
    ["no runs at all", ""],
  ])("answers %s with 404 and still a 1200×630 PNG", async (_what, query) => {
    const result = await image(query);
    expect(result.status).toBe(404);
    expect(result.type).toBe("image/png");
    expect(result.cache).toBe("public, max-age=300");
    expect(pngHeader(result.bytes)).toEqual({ signature: PNG_SIGNATURE, chunk: "IHDR", width: 1200, height: 630 });
  });

  it("draws the longest texts inside their boxes: every pixel outside them stays white", async () => {
    const runIds: string[] = [];
    for (const document of longestPreviewDocuments()) {
      const response = await postRun(jsonRequest("/api/runs", "POST", document), noContext);
      expect(response.status).toBe(201);
      runIds.push(((await response.json()) as { id: string }).id);
    }
    const saved = await postComparison(
      jsonRequest("/api/comparisons", "POST", { runs: runIds, title: LONG_TITLE }),
      noContext,
    );
    expect(saved.status).toBe(201);
    const { slug } = (await saved.json()) as { slug: string };
    const result = await image(`slug=${slug}`);
    expect(result.status).toBe(200);
    const png = decodePng(result.bytes);
    expect([png.width, png.height]).toEqual([1200, 630]);

    // The same layout the route drew, from the same comparison.
    const opened = await openSavedComparison(slug);
    const layout = layoutPreview(opened.saved.title, opened.comparison!, measureText);
    expect(layout.texts.find((text) => text.key === "title")?.cut).toBe(true);
    const boxes = [...layout.texts, ...layout.panels, ...layout.swatches, layout.chart.box];
    // A pixel of slack for anti-aliasing at a box's edge.
    expect(inkOutside(png, boxes, 1)).toEqual([]);
    // And the boxes were drawn: the title's first line has ink.
    const title = layout.texts.find((text) => text.key === "title")!;
    const titleArea = { ...title, height: title.lineHeight };
    const outsideTitle = inkOutside(png, [titleArea], 0).length;
    expect(inkOutside(png, [], 0).length).toBeGreaterThan(outsideTitle);
  });
});

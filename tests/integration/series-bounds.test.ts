/**
 * What a series read costs follows what it shows, never the series' length: GET /api/series/{id} and the series page
 * show the newest SERIES_VIEW_RUNS runs, judged against the runs before the first of them (read, not shown), with
 * settings held to SETTINGS_BOUNDS. A PATCH beyond a bound is a 422 naming the setting; settings stored beyond them
 * (before the bounds, or restored from an export of then) are judged at the bound.
 */
import { isValidElement, type ReactNode } from "react";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as getSeries, PATCH as patchSeries } from "@/app/api/series/[id]/route";
import SeriesPage from "@/app/series/[id]/page";
import { AnnotationForm } from "@/components/series/AnnotationForm";
import { db } from "@/lib/db/client";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { createRuns } from "@/lib/runs/store";
import { SERIES_FIGURES } from "@/lib/series/metrics";
import { SERIES_VIEW_RUNS, type SeriesView } from "@/lib/series/queries";
import { SETTINGS_BOUNDS } from "@/lib/series/settings";
import { BASE, idContext, jsonRequest } from "./helpers";

const RUNS = 1_150;
const DAY_MS = 86_400_000;
const START = Date.parse("2023-01-01T02:00:00Z");
const KEY = "output_throughput@c:8";

/** Night `index`: 1,000 tok/s plus index mod 10, each night at a commit of its own. */
function nightly(index: number) {
  return normalizeRunDocument({
    format: "servebench/v1",
    name: `nightly ${index}`,
    engine: "vllm",
    model: "meta-llama/Llama-3.1-8B-Instruct",
    series: "bounded-nightly",
    git_commit: (0x1000000 + index).toString(16).padStart(8, "0"),
    measured_at: new Date(START + index * DAY_MS).toISOString(),
    results: [{ concurrency: 8, output_throughput: 1_000 + (index % 10), mean_tpot_ms: 12 }],
  });
}

let seriesId = "";

async function view(): Promise<SeriesView> {
  const response = await getSeries(new Request(`${BASE}/api/series/${seriesId}`), idContext(seriesId));
  expect(response.status).toBe(200);
  return (await response.json()) as SeriesView;
}

async function patch(settings: Record<string, unknown>) {
  const response = await patchSeries(
    jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings }),
    idContext(seriesId),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  for (let start = 0; start < RUNS; start += 250) {
    const count = Math.min(250, RUNS - start);
    await createRuns(Array.from({ length: count }, (_, offset) => nightly(start + offset)));
  }
  seriesId = (await db().series.findFirstOrThrow({ where: { name: "bounded-nightly" } })).id;
});

describe(`a series of ${RUNS} runs`, () => {
  it(`shows its newest ${SERIES_VIEW_RUNS}, the first judged against the runs before it`, async () => {
    const shown = await view();
    expect(shown.run_count).toBe(RUNS);
    expect(shown.truncated).toBe(true);
    expect(shown.points).toHaveLength(SERIES_VIEW_RUNS);
    expect(shown.points[0]!.name).toBe(`nightly ${RUNS - SERIES_VIEW_RUNS}`);
    expect(shown.points.at(-1)!.name).toBe(`nightly ${RUNS - 1}`);
    // One judgement per point shown, none for the runs read as the first one's baseline.
    const judgements = shown.judgements[KEY]!;
    expect(judgements).toHaveLength(SERIES_VIEW_RUNS);
    // Night 150's baseline: the 30 nights before it (120–149), 1,000 + 0…9 three times over.
    expect(judgements[0]).toMatchObject({ status: "ok", mean: 1_000, baseline_mean: 1_004.5 });
    // Its "what changed" is against night 149, which is read but not shown.
    expect(shown.points[0]!.what_changed).toEqual(["commit: 01000095 → 01000096"]);
    // Levels are counted over the runs read (those shown and their baseline), not the whole series.
    expect(shown.levels).toEqual([{ key: "c:8", runs: SERIES_VIEW_RUNS + SETTINGS_BOUNDS.window }]);
  });

  it("refuses settings beyond the bounds with a 422 naming each, and stores nothing", async () => {
    const before = (await db().series.findUniqueOrThrow({ where: { id: seriesId } })).settingsJson;
    const tooWide = await patch({
      window: SETTINGS_BOUNDS.window + 1,
      rolling: SETTINGS_BOUNDS.rolling + 1,
      min_samples: SETTINGS_BOUNDS.min_samples + 1,
    });
    expect(tooWide.status).toBe(422);
    const error = tooWide.body.error as { code: string; issues: { path: string; message: string }[] };
    expect(error.code).toBe("validation_failed");
    expect(error.issues).toEqual([
      { path: "settings.window", message: "Too big: expected number to be <=100" },
      { path: "settings.min_samples", message: "Too big: expected number to be <=100" },
      { path: "settings.rolling", message: "Too big: expected number to be <=30" },
    ]);
    const twice = await patch({ figures: ["peak_tok_s", "output_throughput", "peak_tok_s"] });
    expect(twice.status).toBe(422);
    expect((twice.body.error as { issues: unknown[] }).issues).toEqual([
      { path: "settings.figures.2", message: "names peak_tok_s a second time" },
    ]);
    expect((await db().series.findUniqueOrThrow({ where: { id: seriesId } })).settingsJson).toBe(before);
  });

  it("takes the bounds themselves and every figure once", async () => {
    const accepted = await patch({ window: 100, rolling: 30, min_samples: 100, figures: [...SERIES_FIGURES] });
    expect(accepted.status).toBe(200);
    expect(accepted.body.settings).toMatchObject({ window: 100, rolling: 30, min_samples: 100 });
    const shown = await view();
    expect(shown.settings.figures).toHaveLength(SERIES_FIGURES.length);
    // Night 150 is judged against the 100 nights before it: ten full cycles of 0…9.
    expect(shown.judgements[KEY]![0]).toMatchObject({ status: "ok", baseline_mean: 1_004.5 });
    expect(shown.judgements[KEY]).toHaveLength(SERIES_VIEW_RUNS);
    await patch({ window: null, rolling: null, min_samples: null, figures: null });
  });

  it("judges settings stored beyond the bounds at the bounds", async () => {
    // As a series patched before the bounds (or restored from an export of then) holds them.
    await db().series.update({
      where: { id: seriesId },
      data: { settingsJson: JSON.stringify({ window: 500, rolling: 100, min_samples: 400, threshold_pct: 3 }) },
    });
    const shown = await view();
    expect(shown.settings).toMatchObject({ window: 100, rolling: 30, min_samples: 100, threshold_pct: 3 });
    // 100 baseline points: night 150 has them (it has 150 before it), so it is judged.
    expect(shown.judgements[KEY]![0]!.status).toBe("ok");
    await db().series.update({ where: { id: seriesId }, data: { settingsJson: "{}" } });
  });

  it("offers the newest 200 runs to mark an expected change at, and says where the others are", async () => {
    const page = await SeriesPage({ params: Promise.resolve({ id: seriesId }), searchParams: Promise.resolve({}) });
    const forms = findElements(page, AnnotationForm);
    expect(forms).toHaveLength(1);
    const runs = (forms[0]!.props as { runs: { id: string; label: string }[] }).runs;
    expect(runs).toHaveLength(200);
    expect(runs.at(-1)!.label).toMatch(/ · nightly 1149$/);
    expect(runs[0]!.label).toMatch(/ · nightly 950$/);
    expect(findByTestId(page, "annotation-choices-note")).toHaveLength(1);
  });
});

/** The elements of a rendered tree (server components called, not rendered) of a given component. */
function findElements(node: ReactNode, type: unknown): { props: unknown }[] {
  const found: { props: unknown }[] = [];
  const visit = (child: ReactNode) => {
    if (Array.isArray(child)) {
      for (const item of child) visit(item);
      return;
    }
    if (!isValidElement(child)) return;
    if (child.type === type) found.push(child);
    visit((child.props as { children?: ReactNode }).children);
  };
  visit(node);
  return found;
}

function findByTestId(node: ReactNode, testId: string): unknown[] {
  const found: unknown[] = [];
  const visit = (child: ReactNode) => {
    if (Array.isArray(child)) {
      for (const item of child) visit(item);
      return;
    }
    if (!isValidElement(child)) return;
    const props = child.props as { children?: ReactNode; "data-testid"?: string };
    if (props["data-testid"] === testId) found.push(child);
    visit(props.children);
  };
  visit(node);
  return found;
}

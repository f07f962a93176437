/**
 * The series and alerts API read their input as GET /api/runs does, through the real route handlers on a real
 * migrated database: unknown query parameters ignored whatever their name, numbers in decimal digits only, settings
 * naming only real figures, and notes under the character rules of a run's notes. A refused write changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it, test } from "vitest";
import { GET as getAlert, PATCH as patchAlert } from "@/app/api/alerts/[id]/route";
import { GET as listAlerts } from "@/app/api/alerts/route";
import { POST as postRun } from "@/app/api/runs/route";
import { POST as postAnnotation } from "@/app/api/series/[id]/annotations/route";
import { GET as getSeries, PATCH as patchSeries } from "@/app/api/series/[id]/route";
import { GET as listSeries } from "@/app/api/series/route";
import { db } from "@/lib/db/client";
import { stopDeliveries } from "@/lib/webhooks/deliveries";
import { nightlyDocuments } from "@/tests/support/nightly-documents";
import { BASE, idContext, jsonRequest, noContext } from "./helpers";

interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}

let seriesId = "";
let alertId = "";
let runIds: string[] = [];

/** What a refused series or alert write must leave as it was. */
async function snapshot() {
  const [series, changes, annotations] = await Promise.all([
    db().series.findMany({ orderBy: { id: "asc" } }),
    db().seriesChange.findMany({ orderBy: { id: "asc" } }),
    db().seriesAnnotation.findMany({ orderBy: { id: "asc" } }),
  ]);
  return { series, changes, annotations };
}

async function expectRefusedWrite(write: () => Promise<Response>, status: number, path: string, message?: string) {
  const before = await snapshot();
  const response = await write();
  const body = (await response.json()) as ErrorBody;
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(body.error.issues?.[0]?.path).toBe(path);
  if (message !== undefined) expect(body.error.issues?.[0]?.message).toBe(message);
  expect(await snapshot()).toEqual(before);
  return body;
}

beforeAll(async () => {
  await db().run.deleteMany({});
  await db().series.deleteMany({});
  // 12 nights, a −10% step from night 8: one regression, confirmed at night 9.
  for (const doc of nightlyDocuments({ seed: 7, series: "input-rules", flakeAt: null, stepAt: 8, nights: 12 })) {
    const response = await postRun(jsonRequest("/api/runs", "POST", doc), noContext);
    expect(response.status).toBe(201);
    const body = (await response.json()) as { id: string; series: { series: { id: string } } };
    runIds.push(body.id);
    seriesId = body.series.series.id;
  }
  const alerts = (await (await listAlerts(new Request(`${BASE}/api/alerts`), noContext)).json()) as {
    alerts: { id: string; kind: string }[];
  };
  expect(alerts.alerts.length).toBeGreaterThan(0);
  alertId = alerts.alerts[0]!.id;
});

afterAll(async () => {
  await stopDeliveries();
  runIds = [];
});

describe("query parameters of the series and alerts API", () => {
  const routes: [string, (query: string) => Promise<Response>][] = [
    ["/api/series", (query) => listSeries(new Request(`${BASE}/api/series${query}`), noContext)],
    ["/api/alerts", (query) => listAlerts(new Request(`${BASE}/api/alerts${query}`), noContext)],
    [
      "/api/series/{id}",
      (query) => getSeries(new Request(`${BASE}/api/series/${seriesId}${query}`), idContext(seriesId)),
    ],
  ];

  test.each(["constructor=1", "toString=x", "__proto__=1", "hasOwnProperty=1", "valueOf=2", "__defineGetter__=x"])(
    "?%s is an unknown parameter like any other: ignored",
    async (query) => {
      for (const [route, call] of routes) {
        const response = await call(`?${query}`);
        expect(response.status, `${route}: ${await response.clone().text()}`).toBe(200);
      }
      const listed = (await (await routes[0]![1](`?${query}`)).json()) as { series: { id: string }[] };
      expect(listed.series.map((entry) => entry.id)).toEqual([seriesId]);
    },
  );

  test.each([
    ["per_page", "0x10"],
    ["page", "1e3"],
    ["per_page", "16.0"],
    ["page", "%2B2"],
    ["page", "-1"],
    ["per_page", "101"],
  ])("%s=%s is a 400 naming it, on the series and the alerts list", async (key, value) => {
    for (const [route, call] of routes.slice(0, 2)) {
      const response = await call(`?${key}=${value}`);
      const body = (await response.json()) as ErrorBody;
      expect(response.status, route).toBe(400);
      expect(body.error.code).toBe("bad_request");
      expect(body.error.issues?.[0]?.path).toBe(key);
    }
  });

  it("says what a number must look like, as GET /api/runs does, and takes decimal digits", async () => {
    const body = (await (await routes[1]![1]("?per_page=0x10")).json()) as ErrorBody;
    expect(body).toEqual({
      error: {
        code: "bad_request",
        message: "Invalid query parameter per_page: must be a whole number written in decimal digits",
        issues: [{ path: "per_page", message: "must be a whole number written in decimal digits" }],
      },
    });
    const page = (await (await routes[1]![1]("?status=all&page=1&per_page=1")).json()) as { alerts: unknown[] };
    expect(page.alerts).toHaveLength(1);
  });
});

describe("series settings name only real figures", () => {
  test.each([["constructor"], ["__proto__"], ["toString"], ["hasOwnProperty"], ["single_stream_tok_s", "valueOf"]])(
    "figures %j is a 422 naming the figure, and the series keeps its settings",
    async (...figures) => {
      const index = figures.length - 1;
      await expectRefusedWrite(
        () =>
          patchSeries(jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings: { figures } }), idContext(seriesId)),
        422,
        `settings.figures.${index}`,
      );
    },
  );

  it("takes real figures, and the series is judged on them", async () => {
    const response = await patchSeries(
      jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings: { figures: ["peak_tok_s"] } }),
      idContext(seriesId),
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { settings: { figures: string[] } }).settings.figures).toEqual(["peak_tok_s"]);
    const view = (await (
      await getSeries(new Request(`${BASE}/api/series/${seriesId}`), idContext(seriesId))
    ).json()) as {
      metrics: { key: string; judged: boolean }[];
    };
    expect(view.metrics.filter((metric) => metric.judged).map((metric) => metric.key)).toEqual(["peak_tok_s"]);
    await patchSeries(
      jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings: { figures: null } }),
      idContext(seriesId),
    );
  });

  it("a number beyond ±2^53 in the settings is refused naming it", async () => {
    await expectRefusedWrite(
      () =>
        patchSeries(
          jsonRequest(`/api/series/${seriesId}`, "PATCH", '{"settings": {"window": 9007199254740993}}'),
          idContext(seriesId),
        ),
      422,
      "settings.window",
    );
  });
});

describe("alert and annotation notes follow the rules of a run's notes", () => {
  test.each([
    [
      "an unpaired high surrogate",
      "before\uD800after",
      "must not contain an unpaired surrogate (U+D800 at character 7)",
    ],
    ["an unpaired low surrogate", "\uDC00", "must not contain an unpaired surrogate (U+DC00 at character 1)"],
    ["a NUL", "a\u0000b", "must not contain a control character (U+0000 at character 2)"],
    ["a right-to-left override", "a\u202Eb", "must not contain a bidirectional override (U+202E at character 2)"],
  ])("an alert note with %s is a 422 naming note, the alert unchanged", async (_label, note, message) => {
    await expectRefusedWrite(
      () => patchAlert(jsonRequest(`/api/alerts/${alertId}`, "PATCH", { note }), idContext(alertId)),
      422,
      "note",
      message,
    );
    await expectRefusedWrite(
      () =>
        postAnnotation(
          jsonRequest(`/api/series/${seriesId}/annotations`, "POST", { run_id: runIds[3], note }),
          idContext(seriesId),
        ),
      422,
      "note",
      message,
    );
  });

  it("a note over 2,000 characters is named as such, not as an unknown field", async () => {
    await expectRefusedWrite(
      () => patchAlert(jsonRequest(`/api/alerts/${alertId}`, "PATCH", { note: "x".repeat(2_001) }), idContext(alertId)),
      422,
      "note",
      "must be at most 2,000 characters",
    );
  });

  it("keeps a note with line breaks, right-to-left text and an emoji", async () => {
    const note = "נבדק\u200F.\nregression 📉 confirmed";
    const response = await patchAlert(jsonRequest(`/api/alerts/${alertId}`, "PATCH", { note }), idContext(alertId));
    expect(response.status).toBe(200);
    const alert = (await (await getAlert(new Request(`${BASE}/api/alerts/${alertId}`), idContext(alertId))).json()) as {
      note: string;
    };
    expect(alert.note).toBe(note);
  });
});

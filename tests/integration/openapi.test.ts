/**
 * The OpenAPI document: valid OpenAPI 3.1, one entry per route file and method (and no entry without one),
 * and the real responses of every route, called as Next calls them on a real database, match it.
 */
import fs from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as getAlert, PATCH as patchAlert } from "@/app/api/alerts/[id]/route";
import { GET as getDeliveries } from "@/app/api/alerts/deliveries/route";
import { GET as listAlerts } from "@/app/api/alerts/route";
import { GET as compareRuns } from "@/app/api/compare/runs/route";
import { DELETE as deleteComparison, GET as getComparison } from "@/app/api/comparisons/[slug]/route";
import { GET as listComparisons, POST as saveComparison } from "@/app/api/comparisons/route";
import { GET as exportAll } from "@/app/api/export/route";
import { GET as health } from "@/app/api/health/route";
import { GET as openapi } from "@/app/api/openapi.json/route";
import { GET as getRestoreJob } from "@/app/api/restore/jobs/[id]/route";
import { GET as listRestoreJobs } from "@/app/api/restore/jobs/route";
import { POST as restore } from "@/app/api/restore/route";
import { DELETE as deleteRun, GET as getRun, PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { GET as listRuns, POST as postRun } from "@/app/api/runs/route";
import { DELETE as deleteAnnotation } from "@/app/api/series/[id]/annotations/[annotationId]/route";
import { POST as postAnnotation } from "@/app/api/series/[id]/annotations/route";
import { GET as getSeries, PATCH as patchSeries } from "@/app/api/series/[id]/route";
import { GET as listSeries } from "@/app/api/series/route";
import { waitForRestoreJob } from "@/lib/backup/restore-jobs";
import { nightlyDocuments } from "@/tests/support/nightly-documents";
import { BASE, fixtureJson, idContext, jsonRequest, noContext, SEED_FILES } from "./helpers";

const ROOT = path.join(__dirname, "..", "..");
type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
};
let doc: Doc & Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const checked = new Set<string>();

beforeAll(async () => {
  doc = (await (openapi() as Response).json()) as Doc & Record<string, unknown>;
  ajv.addSchema({ ...doc, $id: "openapi" });
});

/** Hold a real response to the document: its status must be documented and its JSON body match the schema. */
async function conforms(method: string, template: string, response: Response): Promise<unknown> {
  const operation = doc.paths[template]?.[method.toLowerCase()];
  expect(operation, `${method} ${template} is documented`).toBeDefined();
  const documented = operation!.responses[String(response.status)];
  expect(documented, `${method} ${template} → ${response.status} is documented`).toBeDefined();
  checked.add(`${method} ${template} ${response.status}`);
  if (response.status === 204) return null;
  const body = (await response.json()) as unknown;
  const pointer = `openapi#/paths/${template.replace(/~/g, "~0").replace(/\//g, "~1")}/${method.toLowerCase()}/responses/${response.status}/content/application~1json/schema`;
  const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
  const valid = validate(body);
  expect(
    validate.errors ?? [],
    `${method} ${template} → ${response.status}: ${JSON.stringify(body).slice(0, 300)}`,
  ).toEqual([]);
  expect(valid).toBe(true);
  return body;
}

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return /^route\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("documents exactly the routes and methods in app/api", () => {
    // The catch-all ([...path]) is no API: it answers every address no route takes with a JSON 404.
    const files = routeFiles(path.join(ROOT, "app", "api")).filter((file) => !file.includes("[..."));
    const fromFiles = files.flatMap((file) => {
      const route = `/${path.relative(path.join(ROOT, "app"), path.dirname(file)).split(path.sep).join("/")}`.replace(
        /\[([^\]]+)\]/g,
        "{$1}",
      );
      const source = fs.readFileSync(file, "utf8");
      return ["GET", "POST", "PATCH", "PUT", "DELETE"]
        .filter((method) => new RegExp(`export (const|async function|function) ${method}\\b`).test(source))
        .map((method) => `${method} ${route}`);
    });
    const documented = Object.entries(doc.paths)
      .filter(([route]) => route.startsWith("/api/"))
      .flatMap(([route, item]) =>
        Object.keys(item)
          .filter((key) => ["get", "post", "patch", "put", "delete"].includes(key))
          .map((method) => `${method.toUpperCase()} ${route}`),
      );
    expect(documented.sort()).toEqual(fromFiles.sort());
  });
});

describe("real responses match the document", () => {
  it("runs, comparisons, series, alerts: success and error answers", async () => {
    // Runs
    const created = (await conforms(
      "POST",
      "/api/runs",
      await postRun(jsonRequest("/api/runs", "POST", fixtureJson(SEED_FILES.vllm)), noContext),
    )) as { id: string };
    await conforms(
      "POST",
      "/api/runs",
      await postRun(jsonRequest("/api/runs", "POST", fixtureJson(SEED_FILES.vllm)), noContext),
    );
    await conforms(
      "POST",
      "/api/runs",
      await postRun(jsonRequest("/api/runs?dry_run=1", "POST", fixtureJson(SEED_FILES.sglangGraphs)), noContext),
    );
    await conforms(
      "POST",
      "/api/runs",
      await postRun(jsonRequest("/api/runs", "POST", { format: "servebench/v1" }), noContext),
    );
    await conforms(
      "POST",
      "/api/runs",
      await postRun(jsonRequest("/api/runs", "POST", "{", "application/json"), noContext),
    );
    await conforms("POST", "/api/runs", await postRun(jsonRequest("/api/runs", "POST", "x", "text/html"), noContext));
    await conforms("GET", "/api/runs", await listRuns(new Request(`${BASE}/api/runs?engine=vllm`), noContext));
    await conforms("GET", "/api/runs", await listRuns(new Request(`${BASE}/api/runs?per_page=0`), noContext));
    await conforms(
      "GET",
      "/api/runs/{id}",
      await getRun(new Request(`${BASE}/api/runs/${created.id}`), idContext(created.id)),
    );
    await conforms("GET", "/api/runs/{id}", await getRun(new Request(`${BASE}/api/runs/nope`), idContext("nope")));
    await conforms(
      "GET",
      "/api/runs/{id}",
      await getRun(new Request(`${BASE}/api/runs/${created.id}?format=llm-d`), idContext(created.id)),
    );
    await conforms(
      "GET",
      "/api/runs/{id}",
      await getRun(new Request(`${BASE}/api/runs/${created.id}?format=csv`), idContext(created.id)),
    );
    await conforms(
      "PATCH",
      "/api/runs/{id}",
      await patchRun(jsonRequest(`/api/runs/${created.id}`, "PATCH", { tags: ["a"] }), idContext(created.id)),
    );
    await conforms(
      "PATCH",
      "/api/runs/{id}",
      await patchRun(jsonRequest(`/api/runs/${created.id}`, "PATCH", { tags: [""] }), idContext(created.id)),
    );
    await conforms(
      "GET",
      "/api/compare/runs",
      await compareRuns(new Request(`${BASE}/api/compare/runs?runs=${created.id}`), noContext),
    );
    await conforms("GET", "/api/compare/runs", await compareRuns(new Request(`${BASE}/api/compare/runs`), noContext));
    await conforms("GET", "/api/health", await health(new Request(`${BASE}/api/health`), noContext));

    // Saved comparisons
    const saved = (await conforms(
      "POST",
      "/api/comparisons",
      await saveComparison(jsonRequest("/api/comparisons", "POST", { runs: [created.id], title: "t" }), noContext),
    )) as { slug: string };
    await conforms(
      "POST",
      "/api/comparisons",
      await saveComparison(jsonRequest("/api/comparisons", "POST", { runs: [] }), noContext),
    );
    await conforms("GET", "/api/comparisons", await listComparisons(new Request(`${BASE}/api/comparisons`), noContext));
    const slug = { params: Promise.resolve({ slug: saved.slug }) };
    await conforms(
      "GET",
      "/api/comparisons/{slug}",
      await getComparison(new Request(`${BASE}/api/comparisons/${saved.slug}`), slug),
    );
    await conforms(
      "DELETE",
      "/api/comparisons/{slug}",
      await deleteComparison(new Request(`${BASE}/api/comparisons/${saved.slug}`, { method: "DELETE" }), slug),
    );
    await conforms(
      "GET",
      "/api/comparisons/{slug}",
      await getComparison(new Request(`${BASE}/api/comparisons/${saved.slug}`), slug),
    );

    // A series with a regression
    let seriesId = "";
    const ids: string[] = [];
    for (const night of nightlyDocuments({ seed: 7, series: "openapi", flakeAt: 10, stepAt: 20, nights: 23 })) {
      const body = (await conforms(
        "POST",
        "/api/runs",
        await postRun(jsonRequest("/api/runs", "POST", night), noContext),
      )) as {
        id: string;
        series: { series: { id: string } };
      };
      ids.push(body.id);
      seriesId = body.series.series.id;
    }
    await conforms("GET", "/api/series", await listSeries(new Request(`${BASE}/api/series?all=1`), noContext));
    await conforms("GET", "/api/series", await listSeries(new Request(`${BASE}/api/series?all=maybe`), noContext));
    await conforms(
      "GET",
      "/api/series/{id}",
      await getSeries(new Request(`${BASE}/api/series/${seriesId}`), idContext(seriesId)),
    );
    await conforms(
      "GET",
      "/api/series/{id}",
      await getSeries(new Request(`${BASE}/api/series/${seriesId}?level=c:1`), idContext(seriesId)),
    );
    await conforms(
      "GET",
      "/api/series/{id}",
      await getSeries(new Request(`${BASE}/api/series/nope`), idContext("nope")),
    );
    await conforms(
      "PATCH",
      "/api/series/{id}",
      await patchSeries(
        jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings: { window: 20 } }),
        idContext(seriesId),
      ),
    );
    await conforms(
      "PATCH",
      "/api/series/{id}",
      await patchSeries(
        jsonRequest(`/api/series/${seriesId}`, "PATCH", { settings: { window: "x" } }),
        idContext(seriesId),
      ),
    );
    const annotation = (await conforms(
      "POST",
      "/api/series/{id}/annotations",
      await postAnnotation(
        jsonRequest(`/api/series/${seriesId}/annotations`, "POST", { run_id: ids[3], note: "new box" }),
        idContext(seriesId),
      ),
    )) as { id: string };
    await conforms(
      "POST",
      "/api/series/{id}/annotations",
      await postAnnotation(jsonRequest(`/api/series/${seriesId}/annotations`, "POST", {}), idContext(seriesId)),
    );
    const annotationContext = { params: Promise.resolve({ id: seriesId, annotationId: annotation.id }) };
    const deleteRequest = () =>
      new Request(`${BASE}/api/series/${seriesId}/annotations/${annotation.id}`, { method: "DELETE" });
    await conforms(
      "DELETE",
      "/api/series/{id}/annotations/{annotationId}",
      await deleteAnnotation(deleteRequest(), annotationContext),
    );
    await conforms(
      "DELETE",
      "/api/series/{id}/annotations/{annotationId}",
      await deleteAnnotation(deleteRequest(), annotationContext),
    );

    const alerts = (await conforms(
      "GET",
      "/api/alerts",
      await listAlerts(new Request(`${BASE}/api/alerts?status=all`), noContext),
    )) as {
      alerts: { id: string }[];
    };
    expect(alerts.alerts.length).toBeGreaterThan(0);
    const alertId = alerts.alerts[0]!.id;
    await conforms("GET", "/api/alerts", await listAlerts(new Request(`${BASE}/api/alerts?status=closed`), noContext));
    await conforms(
      "GET",
      "/api/alerts/{id}",
      await getAlert(new Request(`${BASE}/api/alerts/${alertId}`), idContext(alertId)),
    );
    await conforms(
      "GET",
      "/api/alerts/{id}",
      await getAlert(new Request(`${BASE}/api/alerts/nope`), idContext("nope")),
    );
    await conforms(
      "PATCH",
      "/api/alerts/{id}",
      await patchAlert(
        jsonRequest(`/api/alerts/${alertId}`, "PATCH", { status: "acknowledged", note: "n" }),
        idContext(alertId),
      ),
    );
    await conforms(
      "PATCH",
      "/api/alerts/{id}",
      await patchAlert(jsonRequest(`/api/alerts/${alertId}`, "PATCH", {}), idContext(alertId)),
    );
    await conforms(
      "GET",
      "/api/alerts/deliveries",
      await getDeliveries(new Request(`${BASE}/api/alerts/deliveries`), noContext),
    );

    await conforms(
      "DELETE",
      "/api/runs/{id}",
      await deleteRun(new Request(`${BASE}/api/runs/${created.id}`, { method: "DELETE" }), idContext(created.id)),
    );
    await conforms(
      "DELETE",
      "/api/runs/{id}",
      await deleteRun(new Request(`${BASE}/api/runs/${created.id}`, { method: "DELETE" }), idContext(created.id)),
    );
    // An export restored into the same instance: every line already present, reported line by line.
    const exported = await (await exportAll(new Request(`${BASE}/api/export`), noContext)).text();
    const restored = (await conforms(
      "POST",
      "/api/restore",
      await restore(
        new Request(`${BASE}/api/restore`, {
          method: "POST",
          headers: { "content-type": "application/x-ndjson" },
          body: exported,
        }),
        noContext,
      ),
    )) as { runs: { already_present: number } };
    expect(restored.runs.already_present).toBeGreaterThan(0);
    const pending = (await conforms(
      "POST",
      "/api/restore",
      await restore(
        new Request(`${BASE}/api/restore`, {
          method: "POST",
          headers: { "content-type": "application/x-ndjson", prefer: "respond-async" },
          body: exported,
        }),
        noContext,
      ),
    )) as { id: string };
    await waitForRestoreJob(pending.id, 600_000);
    await conforms(
      "GET",
      "/api/restore/jobs/{id}",
      await getRestoreJob(new Request(`${BASE}/api/restore/jobs/${pending.id}`), idContext(pending.id)),
    );
    await conforms(
      "GET",
      "/api/restore/jobs/{id}",
      await getRestoreJob(new Request(`${BASE}/api/restore/jobs/nope`), idContext("nope")),
    );
    await conforms(
      "GET",
      "/api/restore/jobs",
      await listRestoreJobs(new Request(`${BASE}/api/restore/jobs`), noContext),
    );
    await conforms("GET", "/api/health", await health(new Request(`${BASE}/api/health`), noContext));
    expect(checked.size).toBeGreaterThanOrEqual(36);
  });
});

/**
 * The OpenAPI 3.1 document of servebench's HTTP API, served at /api/openapi.json. Generated from the zod
 * schemas the routes validate with (and lib/openapi/responses.ts for what they return), so it cannot drift
 * from the code; tests/integration/openapi.test.ts holds every route file and real responses to it.
 */
import { z } from "zod";
import { ComparisonListQuerySchema, SaveComparisonSchema } from "@/lib/comparisons/schema";
import { runDocumentJsonSchema } from "@/lib/document/schema";
import { RunPatchSchema } from "@/lib/ingest/ingest";
import { ListQuerySchema } from "@/lib/runs/list-query";
import { RunReadQuerySchema } from "@/lib/runs/run-answer";
import {
  AlertListQuerySchema,
  AlertPatchSchema,
  AnnotationCreateSchema,
  SeriesListQuerySchema,
  SeriesPatchSchema,
  SeriesViewQuerySchema,
} from "@/lib/series/schema";
import {
  AlertListSchema,
  AlertSchema,
  AnnotationSchema,
  ComparisonCreatedSchema,
  ComparisonListSchema,
  DeliveryLogSchema,
  ErrorBodySchema,
  HealthProblemSchema,
  HealthSchema,
  RestoreJobListSchema,
  RestoreJobSchema,
  RestoreReportSchema,
  RunListSchema,
  SavedComparisonSchema,
  SeriesListSchema,
  SeriesSettingsResultSchema,
  SeriesViewSchema,
  UploadPreviewSchema,
  UploadResultSchema,
} from "./responses";

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return json;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function json(description: string, schema: JsonSchema) {
  return { description, content: { "application/json": { schema } } };
}

const ERROR_STATUS_TEXT: Record<number, string> = {
  400: "Bad request: a query parameter or the body cannot be read",
  401: "A write token is required (SERVEBENCH_WRITE_TOKEN) or was wrong",
  404: "Not found",
  413: "The body is larger than SERVEBENCH_MAX_BODY_MB (a restore's raw body: SERVEBENCH_MAX_RESTORE_MB)",
  415: "Unsupported media type",
  403: "A write from another site (Origin or Sec-Fetch-Site names another host): refused",
  422: "Invalid: `issues` names every violated field",
  503: "The database cannot answer or take writes now: busy, unavailable, a full disk or read-only (the code says which)",
};

function errors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [String(status), json(ERROR_STATUS_TEXT[status]!, ref("Error"))]));
}

function queryParameters(schema: z.ZodObject) {
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const fieldSchema = schemaOf(field, "input");
    return {
      name,
      in: "query",
      required: false,
      ...(typeof fieldSchema.description === "string" ? { description: fieldSchema.description } : {}),
      schema: fieldSchema,
    };
  });
}

function pathParameter(name: string, description: string) {
  return { name, in: "path", required: true, description, schema: { type: "string" } };
}

function jsonBody(schema: JsonSchema, description?: string) {
  return { required: true, ...(description ? { description } : {}), content: { "application/json": { schema } } };
}

const WRITE = [{}, { writeToken: [] }];
const runsQuery = z.strictObject({ runs: z.string().describe("Comma-separated run ids.") });

export function openApiDocument(version: string): JsonSchema {
  const document = buildDocument(version);
  const paths = document.paths as Record<
    string,
    Record<string, { security?: unknown; responses?: Record<string, unknown> }>
  >;
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation.responses || method === "parameters") continue;
      if (operation.security === WRITE) operation.responses["403"] ??= json(ERROR_STATUS_TEXT[403]!, ref("Error"));
      operation.responses["503"] ??= json(ERROR_STATUS_TEXT[503]!, ref("Error"));
    }
  }
  return document;
}

function buildDocument(version: string): JsonSchema {
  const runDocument = runDocumentJsonSchema();
  return {
    openapi: "3.1.0",
    info: {
      title: "servebench",
      version,
      description:
        "Keep, compare and share LLM inference-server benchmark runs; series over time with regression detection. " +
        "Reading is open; writing needs `Authorization: Bearer <token>` when the server sets SERVEBENCH_WRITE_TOKEN.",
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: { writeToken: { type: "http", scheme: "bearer" } },
      schemas: {
        Error: schemaOf(ErrorBodySchema),
        RunDocument: { ...runDocument, $id: undefined },
        StoredRun: { allOf: [ref("RunDocument"), { type: "object", required: ["id", "created_at"] }] },
        RunVerdict: schemaOf(UploadResultSchema.shape.series.unwrap()),
      },
    },
    paths: {
      "/api/runs": {
        get: {
          operationId: "listRuns",
          summary: "The history: runs, newest first, filtered and paged",
          parameters: queryParameters(ListQuerySchema),
          responses: { "200": json("A page of runs", schemaOf(RunListSchema)), ...errors(400) },
        },
        post: {
          operationId: "uploadRuns",
          summary:
            "Store runs: a servebench/v1 document, a tool's results file, or multipart `file` fields with context",
          description:
            "Each new run is judged against its series; `series` in the answer is the verdict (docs/series.md). " +
            "The `Server-Timing` header says how long judging took. Content already stored is not stored again (200, `duplicate`).",
          security: WRITE,
          parameters: [
            {
              name: "dry_run",
              in: "query",
              required: false,
              description: "1: preview only, store nothing",
              schema: { type: "string", enum: ["1"] },
            },
            {
              name: "level",
              in: "query",
              required: false,
              description:
                "The load level of a file that states none, repeatable: FILE=concurrency:N or FILE=rate:R; for a raw body (one file) concurrency:N or rate:R",
              schema: { type: "array", items: { type: "string" } },
            },
          ],
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: ref("RunDocument") },
              "multipart/form-data": {
                schema: {
                  type: "object",
                  properties: {
                    file: { type: "array", items: { type: "string", contentMediaType: "application/octet-stream" } },
                    name: { type: "string" },
                    engine: { type: "string" },
                    engine_version: { type: "string" },
                    model: { type: "string" },
                    gpu: { type: "string" },
                    gpu_count: { type: "string" },
                    command: { type: "string" },
                    tags: { type: "string", description: "comma-separated" },
                    notes: { type: "string" },
                    series: { type: "string" },
                    series_override: {
                      type: "string",
                      description: "1 or true: store the run in the named series although its configuration differs",
                    },
                    git_commit: { type: "string" },
                    git_branch: { type: "string" },
                    ci_url: { type: "string" },
                    split: { type: "string" },
                    fragments: { type: "string" },
                    level: {
                      type: "array",
                      items: { type: "string" },
                      description:
                        "The load level of a file that states none (an AIPerf/GenAI-Perf CSV), one field per file: FILE=concurrency:N or FILE=rate:R (requests/s); FILE is the file's name as uploaded. A file that states its own level refuses one (422).",
                    },
                  },
                },
              },
              "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } },
            },
          },
          responses: {
            "201": json("Stored", schemaOf(UploadResultSchema)),
            "200": json("Already stored (`duplicate: true`), or the preview of a dry run", {
              oneOf: [schemaOf(UploadResultSchema), schemaOf(UploadPreviewSchema)],
            }),
            ...errors(400, 401, 413, 415, 422),
          },
        },
      },
      "/api/runs/{id}": {
        parameters: [pathParameter("id", "The run id")],
        get: {
          operationId: "getRun",
          summary: "One run as a servebench/v1 document, or as llm-d benchmark reports v0.2.1 (one per load point)",
          parameters: [
            { name: "download", in: "query", required: false, schema: { type: "string", enum: ["1"] } },
            ...queryParameters(RunReadQuerySchema),
          ],
          responses: {
            "200": json("The run; with `format=llm-d`, its llm-d benchmark reports", {
              anyOf: [
                ref("StoredRun"),
                {
                  type: "array",
                  description:
                    "One llm-d benchmark report v0.2.1 per load point, in the run's order: each valid per llm-d-benchmark's br_v0_2_1_json_schema.json (llmdbenchmark/analysis/benchmark_report).",
                  items: {
                    type: "object",
                    required: ["version", "run", "results"],
                    properties: { version: { const: "0.2.1" }, run: { type: "object" }, results: { type: "object" } },
                  },
                },
              ],
            }),
            ...errors(400, 404),
          },
        },
        patch: {
          operationId: "updateRun",
          summary: "Change a run's name, tags or notes",
          security: WRITE,
          requestBody: jsonBody(schemaOf(RunPatchSchema, "input")),
          responses: { "200": json("The changed run", ref("StoredRun")), ...errors(400, 401, 404, 415, 422) },
        },
        delete: {
          operationId: "deleteRun",
          summary: "Delete a run (its series is judged again)",
          security: WRITE,
          responses: { "204": { description: "Deleted" }, ...errors(401, 404) },
        },
      },
      "/api/runs/{id}/accuracy": {
        parameters: [pathParameter("id", "The run id")],
        post: {
          operationId: "attachRunAccuracy",
          summary:
            "Attach an evaluator's accuracy results (lm-eval, lighteval) to a run: the scores join the run's, a score of the same evaluator, task, metric and filter replacing the one stored",
          security: WRITE,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { type: "object", description: "One results file as the evaluator wrote it" },
              },
              "multipart/form-data": {
                schema: {
                  type: "object",
                  properties: {
                    file: { type: "array", items: { type: "string", contentMediaType: "application/octet-stream" } },
                  },
                  required: ["file"],
                },
              },
            },
          },
          responses: {
            "200": json("The run with its accuracy scores", ref("StoredRun")),
            ...errors(400, 401, 404, 413, 415, 422),
          },
        },
      },
      "/api/export": {
        get: {
          operationId: "exportRuns",
          summary: "Every run as JSON lines, oldest first; uploading the file restores them",
          responses: {
            "200": {
              description: "One servebench/v1 document per line",
              content: { "application/x-ndjson": { schema: { type: "string" } } },
            },
          },
        },
      },
      "/api/schema": {
        get: {
          operationId: "getRunSchema",
          summary: "The JSON Schema of the servebench/v1 document",
          responses: {
            "200": {
              description: "JSON Schema",
              content: { "application/schema+json": { schema: { type: "object" } } },
            },
          },
        },
      },
      "/api/openapi.json": {
        get: {
          operationId: "getOpenApi",
          summary: "This document",
          responses: { "200": json("OpenAPI 3.1", { type: "object" }) },
        },
      },
      "/api/health": {
        get: {
          operationId: "health",
          summary: "The server and its database answer, and the database takes writes",
          responses: {
            "200": json("Healthy", schemaOf(HealthSchema)),
            "503": json("The database cannot take writes, and why", schemaOf(HealthProblemSchema)),
          },
        },
      },
      "/api/mcp": {
        post: {
          operationId: "mcp",
          summary:
            "The read-only MCP server (Model Context Protocol, streamable HTTP, stateless, JSON answers): tools to search and read runs, compare them, read series, alerts and saved comparisons. Open like every read; docs/api.md#mcp",
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: { type: "object", description: "A JSON-RPC 2.0 message of MCP" } },
            },
          },
          responses: {
            "200": json("The JSON-RPC answer", { type: "object" }),
            "202": { description: "A notification, accepted" },
            "400": json("Not a JSON-RPC message of MCP", { type: "object" }),
            ...errors(403),
          },
        },
      },
      "/api/restore": {
        post: {
          operationId: "restore",
          summary:
            "Restore an export (GET /api/export) line by line: what is valid is stored with its id or slug, each refused line is reported with its reason",
          security: WRITE,
          requestBody: {
            required: true,
            content: {
              "application/x-ndjson": { schema: { type: "string" } },
              "multipart/form-data": {
                schema: {
                  type: "object",
                  properties: { file: { type: "string", format: "binary" } },
                  required: ["file"],
                },
              },
            },
          },
          parameters: [
            {
              name: "Prefer",
              in: "header",
              required: false,
              description:
                "`respond-async`: answer 202 as soon as the body is stored; `wait=N`: wait up to N seconds (at most 120; 30 by default) for the job to end",
              schema: { type: "string" },
            },
          ],
          responses: {
            "200": json(
              "The job ended within the wait: what happened to each line (Content-Location names the job)",
              schemaOf(RestoreReportSchema),
            ),
            "202": json(
              "The job goes on: poll the address in Location (Retry-After says when)",
              schemaOf(RestoreJobSchema),
            ),
            ...errors(400, 401, 403, 413, 415, 422, 503),
          },
        },
      },
      "/api/restore/jobs": {
        get: {
          operationId: "listRestoreJobs",
          summary: "The latest 20 restore jobs, newest first",
          responses: { "200": json("The jobs", schemaOf(RestoreJobListSchema)) },
        },
      },
      "/api/restore/jobs/{id}": {
        parameters: [pathParameter("id", "The restore job's id")],
        get: {
          operationId: "getRestoreJob",
          summary: "A restore job's status and progress, and its report once it is done",
          responses: { "200": json("The job", schemaOf(RestoreJobSchema)), ...errors(404) },
        },
      },
      "/api/compare/runs": {
        get: {
          operationId: "exportComparedRuns",
          summary: "The compared runs as one JSON array of documents",
          parameters: queryParameters(runsQuery),
          responses: { "200": json("The runs", { type: "array", items: ref("StoredRun") }), ...errors(400, 404) },
        },
      },
      "/api/compare/csv": {
        get: {
          operationId: "exportComparisonCsv",
          summary: "The comparison's figures as CSV",
          parameters: queryParameters(runsQuery),
          responses: {
            "200": { description: "CSV", content: { "text/csv": { schema: { type: "string" } } } },
            ...errors(400, 404),
          },
        },
      },
      "/api/compare/capacity": {
        get: {
          operationId: "exportComparisonCapacity",
          summary: "The comparison's capacity at SLO tiers, the planner's answer and the per-interactivity table",
          description:
            "Takes every parameter of /compare; the capacity ones are tiers, tier, demand, gpus_per_node, max_cost, gpu_budget, power_budget_kw, bucket and price (docs/comparing.md#capacity).",
          parameters: queryParameters(runsQuery),
          responses: { "200": json("The capacity section", { type: "object" }), ...errors(400, 404) },
        },
      },
      "/api/comparisons": {
        get: {
          operationId: "listComparisons",
          summary: "Saved comparisons, newest first",
          parameters: queryParameters(ComparisonListQuerySchema),
          responses: { "200": json("A page of saved comparisons", schemaOf(ComparisonListSchema)), ...errors(400) },
        },
        post: {
          operationId: "saveComparison",
          summary: "Save a comparison under a short link",
          security: WRITE,
          requestBody: jsonBody(schemaOf(SaveComparisonSchema, "input")),
          responses: { "201": json("Saved", schemaOf(ComparisonCreatedSchema)), ...errors(400, 401, 415, 422) },
        },
      },
      "/api/comparisons/{slug}": {
        parameters: [pathParameter("slug", "The comparison's 8-character slug")],
        get: {
          operationId: "getComparison",
          summary: "A saved comparison",
          responses: { "200": json("The comparison", schemaOf(SavedComparisonSchema)), ...errors(404) },
        },
        delete: {
          operationId: "deleteComparison",
          summary: "Delete a saved comparison",
          security: WRITE,
          responses: { "204": { description: "Deleted" }, ...errors(401, 404) },
        },
      },
      "/api/og": {
        get: {
          operationId: "comparisonImage",
          summary: "The link-preview image of a comparison",
          parameters: [
            { name: "runs", in: "query", required: false, schema: { type: "string" } },
            {
              name: "c",
              in: "query",
              required: false,
              description: "A saved comparison's slug",
              schema: { type: "string" },
            },
          ],
          responses: {
            "200": {
              description: "PNG",
              content: { "image/png": { schema: { type: "string", contentMediaType: "image/png" } } },
            },
          },
        },
      },
      "/api/series": {
        get: {
          operationId: "listSeries",
          summary: "Series, the most recently measured first, with status, last value and trend",
          parameters: queryParameters(SeriesListQuerySchema),
          responses: { "200": json("A page of series", schemaOf(SeriesListSchema)), ...errors(400) },
        },
      },
      "/api/series/{id}": {
        parameters: [pathParameter("id", "The series id")],
        get: {
          operationId: "getSeries",
          summary: "A series: its runs' figures, each point's judgement, detected changes and annotations",
          parameters: queryParameters(SeriesViewQuerySchema),
          responses: { "200": json("The series", schemaOf(SeriesViewSchema)), ...errors(400, 404) },
        },
        patch: {
          operationId: "updateSeriesSettings",
          summary: "Change the series' detection settings (null restores a default); the series is judged again",
          security: WRITE,
          requestBody: jsonBody(schemaOf(SeriesPatchSchema, "input")),
          responses: {
            "200": json("The settings now", schemaOf(SeriesSettingsResultSchema)),
            ...errors(400, 401, 404, 415, 422),
          },
        },
      },
      "/api/series/{id}/annotations": {
        parameters: [pathParameter("id", "The series id")],
        post: {
          operationId: "addSeriesAnnotation",
          summary: "Mark an expected change: the baseline restarts at this run",
          security: WRITE,
          requestBody: jsonBody(schemaOf(AnnotationCreateSchema, "input")),
          responses: { "201": json("The annotation", schemaOf(AnnotationSchema)), ...errors(400, 401, 404, 415, 422) },
        },
      },
      "/api/series/{id}/annotations/{annotationId}": {
        parameters: [pathParameter("id", "The series id"), pathParameter("annotationId", "The annotation id")],
        delete: {
          operationId: "deleteSeriesAnnotation",
          summary: "Remove an expected-change mark",
          security: WRITE,
          responses: { "204": { description: "Removed" }, ...errors(401, 404) },
        },
      },
      "/api/alerts": {
        get: {
          operationId: "listAlerts",
          summary: "Regressions by status (open by default), newest first",
          parameters: queryParameters(AlertListQuerySchema),
          responses: { "200": json("A page of alerts", schemaOf(AlertListSchema)), ...errors(400) },
        },
      },
      "/api/alerts/{id}": {
        parameters: [pathParameter("id", "The alert id")],
        get: {
          operationId: "getAlert",
          summary: "One alert",
          responses: { "200": json("The alert", schemaOf(AlertSchema)), ...errors(404) },
        },
        patch: {
          operationId: "updateAlert",
          summary: "Set an alert's status (open, acknowledged, expected) and note",
          security: WRITE,
          requestBody: jsonBody(schemaOf(AlertPatchSchema, "input")),
          responses: { "200": json("The alert", schemaOf(AlertSchema)), ...errors(400, 401, 404, 415, 422) },
        },
      },
      "/api/alerts/deliveries": {
        get: {
          operationId: "listWebhookDeliveries",
          summary: "The webhook delivery log, newest first",
          responses: { "200": json("Deliveries and their attempts", schemaOf(DeliveryLogSchema)) },
        },
      },
      "/cli/servebench.mjs": {
        get: {
          operationId: "getCli",
          summary: "The servebench command in one file (needs Node ≥ 20): curl -fsSO $URL/cli/servebench.mjs",
          responses: {
            "200": { description: "The CLI", content: { "text/javascript": { schema: { type: "string" } } } },
          },
        },
      },
    },
  };
}

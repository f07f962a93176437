/**
 * Saved comparisons through the real route handlers and a real migrated SQLite file: create from the seed
 * campaign, read back, list, delete, and every error with its exact body.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DELETE as deleteComparison, GET as getComparison } from "@/app/api/comparisons/[slug]/route";
import { GET as listComparisons, POST as postComparison } from "@/app/api/comparisons/route";
import { POST as postRun } from "@/app/api/runs/route";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { BASE, clearDatabase, fixtureText, jsonRequest, noContext, SEED_FILES, tableColumns } from "./helpers";

type Saved = {
  slug: string;
  url: string;
  title: string;
  notes: string | null;
  runs: string[];
  baseline: string | null;
  noise: number;
  hide: string[];
  stat: string;
  created_at: string;
};

const slugContext = (slug: string) => ({ params: Promise.resolve({ slug }) });

async function uploadRun(file: string): Promise<string> {
  const response = await postRun(jsonRequest("/api/runs", "POST", fixtureText(file)), noContext);
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function create(body: unknown): Promise<Response> {
  return postComparison(jsonRequest("/api/comparisons", "POST", body), noContext);
}

async function createOk(body: unknown): Promise<{ slug: string; url: string }> {
  const response = await create(body);
  expect(response.status).toBe(201);
  return (await response.json()) as { slug: string; url: string };
}

async function read(slug: string): Promise<{ status: number; body: unknown }> {
  const response = await getComparison(new Request(`${BASE}/api/comparisons/${slug}`), slugContext(slug));
  return { status: response.status, body: await response.json() };
}

async function list(query = ""): Promise<{ status: number; body: { comparisons: Saved[]; total: number } }> {
  const response = await listComparisons(new Request(`${BASE}/api/comparisons${query}`), noContext);
  return { status: response.status, body: (await response.json()) as { comparisons: Saved[]; total: number } };
}

async function storedCount(): Promise<number> {
  return db().comparison.count();
}

let vllm: string;
let noGraphs: string;
let graphs: string;

beforeAll(async () => {
  await clearDatabase();
  vllm = await uploadRun(SEED_FILES.vllm);
  noGraphs = await uploadRun(SEED_FILES.sglangNoGraphs);
  graphs = await uploadRun(SEED_FILES.sglangGraphs);
});

beforeEach(async () => {
  await db().comparison.deleteMany({});
});

describe("the Comparison table", () => {
  it("has exactly the columns of the Prisma model", async () => {
    const columns = await tableColumns("Comparison");
    expect(columns.sort()).toEqual(Object.values(Prisma.ComparisonScalarFieldEnum).sort());
  });
});

describe("POST /api/comparisons", () => {
  it("saves the seed comparison and answers 201 with a short unguessable slug", async () => {
    const response = await create({ runs: [noGraphs, graphs] });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { slug: string; url: string };
    expect(body.slug).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(body).toEqual({ slug: body.slug, url: `/c/${body.slug}` });
    expect(response.headers.get("location")).toBe(`/c/${body.slug}`);
    expect(await storedCount()).toBe(1);
  });

  it("titles it with the comparison's summary when no title is given", async () => {
    const { slug } = await createOk({ runs: [noGraphs, graphs] });
    const { body } = await read(slug);
    expect(body).toMatchObject({
      title: "SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph",
      notes: null,
      runs: [noGraphs, graphs],
      baseline: null,
      // No noise given: the page's default (from the repeats' spread, else ±3%).
      noise: null,
      hide: [],
      stat: "mean",
      log_y: false,
      slo: { ttft_ms: null, tpot_ms: null, stat: "p99" },
      price: "",
      at_user: null,
      capacity: {},
      cdf_level: null,
      cdf_metric: "ttft",
    });
  });

  it("keeps the order of the runs, the baseline, the view, the title and the notes", async () => {
    const before = Date.now();
    const notes = "Same launch, CUDA graphs on.\n<script>alert(1)</script> stays text.";
    const { slug, url } = await createOk({
      runs: [graphs, vllm, noGraphs],
      baseline: noGraphs,
      title: "  CUDA graphs on Blackwell  ",
      notes,
      noise: 5,
      hide: [vllm],
      stat: "p99",
      slo: { tpot_ms: 20, stat: "mean" },
      price: "2.5,H100:3.1",
      at_user: 40,
      // Stored as the page's URL writes it: spaces trimmed, numbers as text.
      capacity: { tiers: "chat, fast:ttft=300:p95", demand: "rps:20", bucket: 5 },
    });
    const { status, body } = await read(slug);
    expect(status).toBe(200);
    expect(body).toEqual({
      slug,
      url,
      title: "CUDA graphs on Blackwell",
      notes,
      runs: [graphs, vllm, noGraphs],
      baseline: noGraphs,
      noise: 5,
      hide: [vllm],
      stat: "p99",
      log_y: false,
      slo: { ttft_ms: null, tpot_ms: 20, stat: "mean" },
      price: "2.5,h100:3.1",
      at_user: 40,
      capacity: { tiers: "chat,fast:ttft=300:p95", demand: "rps:20", bucket: "5" },
      cdf_level: null,
      cdf_metric: "ttft",
      created_at: expect.any(String),
    });
    const created = Date.parse((body as Saved).created_at);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(created).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("keeps a baseline that is the first run, and drops empty notes", async () => {
    const { slug } = await createOk({ runs: [vllm, graphs], baseline: vllm, notes: "   " });
    expect((await read(slug)).body).toMatchObject({ runs: [vllm, graphs], baseline: vllm, notes: null });
  });

  it("gives every saved comparison its own slug", async () => {
    const slugs = new Set<string>();
    for (let index = 0; index < 5; index += 1) slugs.add((await createOk({ runs: [vllm] })).slug);
    expect(slugs.size).toBe(5);
  });

  it.each([
    [
      "an unknown run id",
      () => ({ runs: [noGraphs, "nosuchrun123"] }),
      [{ path: "runs.1", message: 'no run has the id "nosuchrun123"' }],
    ],
    [
      "a baseline not among the runs",
      () => ({ runs: [noGraphs, graphs], baseline: vllm }),
      [{ path: "baseline", message: "must be one of the compared runs" }],
    ],
    ["empty runs", () => ({ runs: [] }), [{ path: "runs", message: "must name at least one run" }]],
    [
      "13 runs",
      () => ({ runs: Array.from({ length: 13 }, (_, index) => `run${String(index).padStart(9, "0")}`) }),
      [{ path: "runs", message: "a comparison holds at most 12 runs" }],
    ],
    [
      "a title that is too long",
      () => ({ runs: [graphs], title: "t".repeat(201) }),
      [{ path: "title", message: "must be at most 200 characters" }],
    ],
    [
      "notes that are too long",
      () => ({ runs: [graphs], notes: "n".repeat(20_001) }),
      [{ path: "notes", message: "must be at most 20,000 characters" }],
    ],
    [
      "a run listed twice",
      () => ({ runs: ["nosuchrun123", "nosuchrun123"] }),
      [{ path: "runs.1", message: '"nosuchrun123" is listed twice' }],
    ],
    [
      "a hidden series not among the runs",
      () => ({ runs: [graphs], hide: [vllm] }),
      [{ path: "hide.0", message: "must be one of the compared runs" }],
    ],
    [
      "an unknown stat and noise out of range",
      () => ({ runs: [graphs], stat: "p50", noise: -1 }),
      [
        { path: "noise", message: "must be between 0 and 100" },
        { path: "stat", message: "must be one of mean, median, p90, p95, p99" },
      ],
    ],
    [
      "an unknown field",
      () => ({ runs: [graphs], colour: "red" }),
      [{ path: "colour", message: 'unknown field "colour"' }],
    ],
    [
      "a price that is not one",
      () => ({ runs: [graphs], price: "H100:3.1,L40S:cheap" }),
      [
        {
          path: "price",
          message: '"L40S:cheap" is not a price: a $/GPU-hour above 0 and at most 10000, alone or as GPU:price',
        },
      ],
    ],
    [
      "capacity parameters that are not ones",
      () => ({ runs: [graphs], capacity: { tiers: "chat,fast:ttft=soon", demand: "people:5", gpus_per_node: 0 } }),
      [
        {
          path: "capacity.tiers",
          message:
            '"ttft=soon" in tier fast is not a target (ttft=MS, tpot=MS, e2e=MS, up to 3600000) nor a statistic (mean, median, p90, p95, p99)',
        },
        { path: "capacity.demand", message: '"people:5" is not a demand: users:N, rps:N or tok_s:N' },
        { path: "capacity.gpus_per_node", message: "must be a number above 0 and at most 1024" },
      ],
    ],
    ["no runs field", () => ({ title: "x" }), [{ path: "runs", message: "is required" }]],
    [
      "a JSON array",
      () => [graphs],
      [
        {
          path: "",
          message:
            "expected a JSON object with runs, and optionally baseline, title, notes, noise, hide, stat, log_y, slo, price, at_user, capacity, cdf_level, cdf_metric",
        },
      ],
    ],
  ])("refuses %s with 422 naming the field, and stores nothing", async (_what, body, issues) => {
    const response = await create(body());
    expect(response.status).toBe(422);
    const error = ((await response.json()) as { error: { code: string; message: string; issues: unknown[] } }).error;
    expect(error.code).toBe("validation_failed");
    expect(error.issues).toEqual(issues);
    const first = issues[0]!;
    expect(error.message).toBe(
      `Invalid comparison. ${first.path || "body"}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`,
    );
    expect(await storedCount()).toBe(0);
  });

  it("refuses malformed JSON with 400", async () => {
    const response = await create('{"runs": [');
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("invalid_json");
    expect(body.error.message).toMatch(/^The request body is not valid JSON: /);
    expect(await storedCount()).toBe(0);
  });

  it("refuses another content type with 415", async () => {
    const response = await postComparison(
      jsonRequest("/api/comparisons", "POST", `runs=${graphs}`, "application/x-www-form-urlencoded"),
      noContext,
    );
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      error: {
        code: "unsupported_media_type",
        message: 'Content-Type "application/x-www-form-urlencoded" is not supported here; send application/json.',
      },
    });
  });
});

describe("GET /api/comparisons", () => {
  it("lists saved comparisons newest first, with their runs", async () => {
    const older = await createOk({ runs: [noGraphs, graphs], title: "older", notes: "first" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = await createOk({ runs: [vllm, noGraphs, graphs], baseline: noGraphs, title: "newer" });
    const { status, body } = await list();
    expect(status).toBe(200);
    expect(body.total).toBe(2);
    expect(body.comparisons).toEqual([
      {
        slug: newer.slug,
        url: newer.url,
        title: "newer",
        notes: null,
        runs: [vllm, noGraphs, graphs],
        created_at: expect.any(String),
      },
      {
        slug: older.slug,
        url: older.url,
        title: "older",
        notes: "first",
        runs: [noGraphs, graphs],
        created_at: expect.any(String),
      },
    ]);
  });

  it("pages with page and per_page", async () => {
    const slugs: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      slugs.push((await createOk({ runs: [vllm], title: `c${index}` })).slug);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const second = await list("?page=2&per_page=2");
    expect(second.body.total).toBe(3);
    expect(second.body.comparisons.map((item) => item.title)).toEqual(["c0"]);
    const first = await list("?per_page=2");
    expect(first.body.comparisons.map((item) => item.title)).toEqual(["c2", "c1"]);
  });

  it("answers an empty list when nothing is saved", async () => {
    expect((await list()).body).toEqual({ comparisons: [], total: 0 });
  });

  it.each([
    ["?per_page=101", "per_page"],
    ["?page=0", "page"],
    ["?page=x", "page"],
  ])("refuses %s with 400 naming %s", async (query, parameter) => {
    const { status, body } = await list(query);
    expect(status).toBe(400);
    const error = (body as unknown as { error: { code: string; issues: { path: string }[] } }).error;
    expect(error.code).toBe("bad_request");
    expect(error.issues[0]!.path).toBe(parameter);
  });
});

describe("GET and DELETE /api/comparisons/{slug}", () => {
  it("answers 404 in the standard shape for an unknown slug", async () => {
    expect(await read("nosuchsl")).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: 'Saved comparison "nosuchsl" not found' } },
    });
  });

  it("deletes a saved comparison (204), after which it is gone (404), and a second delete is a 404", async () => {
    const { slug } = await createOk({ runs: [noGraphs, graphs] });
    const response = await deleteComparison(
      new Request(`${BASE}/api/comparisons/${slug}`, { method: "DELETE" }),
      slugContext(slug),
    );
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect((await read(slug)).status).toBe(404);
    const again = await deleteComparison(
      new Request(`${BASE}/api/comparisons/${slug}`, { method: "DELETE" }),
      slugContext(slug),
    );
    expect(again.status).toBe(404);
    expect(await storedCount()).toBe(0);
  });

  it("keeps a saved comparison when one of its runs is deleted later", async () => {
    // Another run than the seed vLLM run uploaded before all tests (the same content would be that run).
    const response = await postRun(
      jsonRequest("/api/runs", "POST", {
        ...(JSON.parse(fixtureText(SEED_FILES.vllm)) as object),
        name: "vLLM, deleted later",
      }),
      noContext,
    );
    expect(response.status).toBe(201);
    const extra = ((await response.json()) as { id: string }).id;
    const { slug } = await createOk({ runs: [extra, graphs] });
    await db().run.delete({ where: { id: extra } });
    expect((await read(slug)).body).toMatchObject({ runs: [extra, graphs] });
  });
});

/**
 * Write protection with SERVEBENCH_WRITE_TOKEN set: every handler that creates, edits or deletes answers 401
 * with the exact body, and writes nothing, without the token or with a wrong one; the right token works; the
 * upload preview and every read stay open. The proxy adds the WWW-Authenticate challenge to those 401s.
 * (Open mode, the variable unset, is tests/integration/open-mode.test.ts: env() is read once per process.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// Before anything imports lib/env.ts: vi.hoisted runs ahead of the imports below.
const { TOKEN } = vi.hoisted(() => {
  const token = "it-write-token-0123456789abcdef";
  process.env.SERVEBENCH_WRITE_TOKEN = token;
  return { TOKEN: token };
});

import { NextRequest } from "next/server";
import { DELETE as deleteComparison, GET as getComparison } from "@/app/api/comparisons/[slug]/route";
import { GET as listComparisons, POST as postComparison } from "@/app/api/comparisons/route";
import { GET as getHealth } from "@/app/api/health/route";
import { DELETE as deleteRun, GET as getRun, PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { GET as listRuns, POST as postRun } from "@/app/api/runs/route";
import { GET as getSchema } from "@/app/api/schema/route";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { bearerToken, tokensEqual } from "@/lib/http/auth";
import { proxy } from "@/proxy";
import { BASE, counts, fixtureJson, fixtureText, idContext, multipartRequest, noContext, SEED_FILES } from "./helpers";

const MISSING = {
  error: {
    code: "unauthorized",
    message: "This servebench needs a write token to create, edit or delete: send it as Authorization: Bearer <token>.",
  },
};
const WRONG = {
  error: {
    code: "unauthorized",
    message: "The write token is wrong: this servebench refused the Authorization header.",
  },
};

/** Authorization headers that must be refused, and the body each is refused with. */
const REFUSED: { label: string; authorization: string | null; body: typeof MISSING }[] = [
  { label: "no Authorization header", authorization: null, body: MISSING },
  { label: "another scheme", authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString("base64")}`, body: MISSING },
  { label: "Bearer without a token", authorization: "Bearer", body: MISSING },
  { label: "a wrong token", authorization: "Bearer not-the-write-token-at-all", body: WRONG },
  { label: "the token with one character more", authorization: `Bearer ${TOKEN}x`, body: WRONG },
  { label: "a prefix of the token", authorization: `Bearer ${TOKEN.slice(0, -1)}`, body: WRONG },
  { label: "the token in the wrong case", authorization: `Bearer ${TOKEN.toUpperCase()}`, body: WRONG },
];

const slugContext = (slug: string) => ({ params: Promise.resolve({ slug }) });

function request(
  url: string,
  method: string,
  options: { authorization?: string | null; json?: unknown; contentType?: string } = {},
): Request {
  const headers = new Headers();
  if (options.authorization) headers.set("authorization", options.authorization);
  if (options.json !== undefined) headers.set("content-type", options.contentType ?? "application/json");
  return new Request(`${BASE}${url}`, {
    method,
    headers,
    body:
      options.json === undefined
        ? undefined
        : typeof options.json === "string"
          ? options.json
          : JSON.stringify(options.json),
  });
}

/** A seed document under another name, so it is new content (an identical upload would be the same run). */
function documentNamed(name: string): Record<string, unknown> {
  return { ...fixtureJson(SEED_FILES.vllm), name };
}

async function snapshot() {
  return { ...(await counts()), comparisons: await db().comparison.count() };
}

async function json(response: Response): Promise<unknown> {
  return (await response.json()) as unknown;
}

let runId: string;
let otherRunId: string;
let slug: string;

beforeAll(async () => {
  expect(env().SERVEBENCH_WRITE_TOKEN).toBe(TOKEN);
  const auth = `Bearer ${TOKEN}`;
  const first = await postRun(
    request("/api/runs", "POST", { authorization: auth, json: documentNamed("write-token run A") }),
    noContext,
  );
  expect(first.status).toBe(201);
  runId = ((await first.json()) as { id: string }).id;
  const second = await postRun(
    request("/api/runs", "POST", { authorization: auth, json: documentNamed("write-token run B") }),
    noContext,
  );
  expect(second.status).toBe(201);
  otherRunId = ((await second.json()) as { id: string }).id;
  const saved = await postComparison(
    request("/api/comparisons", "POST", { authorization: auth, json: { runs: [runId, otherRunId], title: "Saved" } }),
    noContext,
  );
  expect(saved.status).toBe(201);
  slug = ((await saved.json()) as { slug: string }).slug;
});

afterAll(async () => {
  await db().comparison.deleteMany({});
  await db().run.deleteMany({});
});

/** Every write, as a function of its Authorization header. */
const WRITES: { name: string; send: (authorization: string | null) => Promise<Response> }[] = [
  {
    name: "POST /api/runs (JSON)",
    send: (authorization) =>
      postRun(request("/api/runs", "POST", { authorization, json: documentNamed("refused upload") }), noContext),
  },
  {
    name: "POST /api/runs (multipart)",
    send: (authorization) => {
      const form = new FormData();
      form.append("file", new Blob([fixtureText(SEED_FILES.sglangGraphs)], { type: "application/json" }), "run.json");
      form.append("name", "refused multipart upload");
      const headers = authorization ? { authorization } : undefined;
      return postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form, headers }), noContext);
    },
  },
  {
    name: "PATCH /api/runs/{id}",
    send: (authorization) =>
      patchRun(
        request(`/api/runs/${runId}`, "PATCH", { authorization, json: { name: "renamed", notes: "x" } }),
        idContext(runId),
      ),
  },
  {
    name: "DELETE /api/runs/{id}",
    send: (authorization) => deleteRun(request(`/api/runs/${runId}`, "DELETE", { authorization }), idContext(runId)),
  },
  {
    name: "POST /api/comparisons",
    send: (authorization) =>
      postComparison(
        request("/api/comparisons", "POST", { authorization, json: { runs: [runId, otherRunId], title: "Refused" } }),
        noContext,
      ),
  },
  {
    name: "DELETE /api/comparisons/{slug}",
    send: (authorization) =>
      deleteComparison(request(`/api/comparisons/${slug}`, "DELETE", { authorization }), slugContext(slug)),
  },
];

describe("with SERVEBENCH_WRITE_TOKEN set", () => {
  for (const write of WRITES) {
    for (const refused of REFUSED) {
      it(`${write.name} with ${refused.label}: 401 with the exact body, nothing written`, async () => {
        const before = await snapshot();
        const runBefore = await json(await getRun(request(`/api/runs/${runId}`, "GET"), idContext(runId)));
        const response = await write.send(refused.authorization);
        expect(response.status).toBe(401);
        expect(response.headers.get("content-type")).toContain("application/json");
        expect(await response.json()).toEqual(refused.body);
        expect(await snapshot()).toEqual(before);
        // The run is untouched, name and notes included, and the saved comparison is still there.
        expect(await json(await getRun(request(`/api/runs/${runId}`, "GET"), idContext(runId)))).toEqual(runBefore);
        expect((await getComparison(request(`/api/comparisons/${slug}`, "GET"), slugContext(slug))).status).toBe(200);
      });
    }
  }

  it("refuses a write to a run or comparison that does not exist with 401, not 404 (nothing is looked up first)", async () => {
    const run = await deleteRun(request("/api/runs/nosuchrun123", "DELETE"), idContext("nosuchrun123"));
    expect(run.status).toBe(401);
    expect(await run.json()).toEqual(MISSING);
    const comparison = await deleteComparison(
      request("/api/comparisons/nosuchcm", "DELETE", { authorization: "Bearer wrong-token" }),
      slugContext("nosuchcm"),
    );
    expect(comparison.status).toBe(401);
    expect(await comparison.json()).toEqual(WRONG);
  });

  it("refuses before reading the body: a broken body without a token is a 401, not a 400", async () => {
    const response = await postRun(request("/api/runs", "POST", { json: "{not json" }), noContext);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(MISSING);
  });

  it("needs the token for the upload preview (dry_run=1) too, and writes nothing either way", async () => {
    const before = await snapshot();
    // The preview writes nothing but is the first half of a write, and as costly: refused without the token,
    // before the body is read.
    const refused = await postRun(
      request("/api/runs?dry_run=1", "POST", { json: documentNamed("preview only") }),
      noContext,
    );
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual(MISSING);
    const refusedForm = await postRun(
      multipartRequest("/api/runs?dry_run=1", { file: new Blob([fixtureText(SEED_FILES.sglangGraphs)]) }),
      noContext,
    );
    expect(refusedForm.status).toBe(401);
    const response = await postRun(
      request("/api/runs?dry_run=1", "POST", { json: documentNamed("preview only"), authorization: `Bearer ${TOKEN}` }),
      noContext,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { runs: { document: { name: string }; valid: boolean }[] };
    expect(body.runs.map((run) => [run.document.name, run.valid])).toEqual([["preview only", true]]);
    expect(await snapshot()).toEqual(before);
  });

  it("does not let dry_run=1 open any other write", async () => {
    const patched = await patchRun(
      request(`/api/runs/${runId}?dry_run=1`, "PATCH", { json: { name: "renamed" } }),
      idContext(runId),
    );
    expect(patched.status).toBe(401);
    const deleted = await deleteRun(request(`/api/runs/${runId}?dry_run=1`, "DELETE"), idContext(runId));
    expect(deleted.status).toBe(401);
    const saved = await postComparison(
      request("/api/comparisons?dry_run=1", "POST", { json: { runs: [runId] } }),
      noContext,
    );
    expect(saved.status).toBe(401);
    expect(await saved.json()).toEqual(MISSING);
    const upload = await postRun(
      request("/api/runs?dry_run=0", "POST", { json: documentNamed("not a preview") }),
      noContext,
    );
    expect(upload.status).toBe(401);
  });

  it("keeps every read open without a token", async () => {
    const list = await listRuns(request("/api/runs", "GET"), noContext);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { total: number }).total).toBe(2);
    const run = await getRun(request(`/api/runs/${runId}`, "GET"), idContext(runId));
    expect(run.status).toBe(200);
    expect(((await run.json()) as { name: string }).name).toBe("write-token run A");
    const comparisons = await listComparisons(request("/api/comparisons", "GET"), noContext);
    expect(comparisons.status).toBe(200);
    expect(((await comparisons.json()) as { comparisons: { slug: string }[] }).comparisons.map((c) => c.slug)).toEqual([
      slug,
    ]);
    const comparison = await getComparison(request(`/api/comparisons/${slug}`, "GET"), slugContext(slug));
    expect(comparison.status).toBe(200);
    expect(((await comparison.json()) as { runs: string[] }).runs).toEqual([runId, otherRunId]);
    const health = await getHealth(request("/api/health", "GET"), noContext);
    expect(await health.json()).toEqual({ ok: true, database: "ok" });
    expect(getSchema().status).toBe(200);
  });

  it("writes with the right token: upload, edit, save and delete a comparison, delete a run", async () => {
    const auth = `Bearer ${TOKEN}`;
    const before = await snapshot();

    const uploaded = await postRun(
      request("/api/runs", "POST", { authorization: auth, json: documentNamed("with the token") }),
      noContext,
    );
    expect(uploaded.status).toBe(201);
    const { id } = (await uploaded.json()) as { id: string };
    expect((await snapshot()).runs).toBe(before.runs + 1);

    // The scheme is case-insensitive (RFC 7235).
    const patched = await patchRun(
      request(`/api/runs/${id}`, "PATCH", {
        authorization: `bearer ${TOKEN}`,
        json: { name: "renamed with the token" },
      }),
      idContext(id),
    );
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { name: string }).name).toBe("renamed with the token");

    const saved = await postComparison(
      request("/api/comparisons", "POST", { authorization: auth, json: { runs: [id, runId] } }),
      noContext,
    );
    expect(saved.status).toBe(201);
    const { slug: newSlug } = (await saved.json()) as { slug: string };
    expect((await snapshot()).comparisons).toBe(before.comparisons + 1);

    const unsaved = await deleteComparison(
      request(`/api/comparisons/${newSlug}`, "DELETE", { authorization: auth }),
      slugContext(newSlug),
    );
    expect(unsaved.status).toBe(204);
    const deleted = await deleteRun(request(`/api/runs/${id}`, "DELETE", { authorization: auth }), idContext(id));
    expect(deleted.status).toBe(204);
    expect(await snapshot()).toEqual(before);
  });

  it("answers the usual errors once the token is right", async () => {
    const missing = await deleteRun(
      request("/api/runs/nosuchrun123", "DELETE", { authorization: `Bearer ${TOKEN}` }),
      idContext("nosuchrun123"),
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: "not_found", message: 'Run "nosuchrun123" not found' } });
  });
});

describe("the token check itself", () => {
  it("reads only the Bearer scheme's token", () => {
    const with_ = (authorization: string) => bearerToken(new Request(BASE, { headers: { authorization } }));
    expect(with_(`Bearer ${TOKEN}`)).toBe(TOKEN);
    expect(with_(`  BEARER   ${TOKEN}  `)).toBe(TOKEN);
    expect(with_("Bearer")).toBeNull();
    expect(with_("Bearer a b")).toBeNull();
    expect(with_(`Token ${TOKEN}`)).toBeNull();
    expect(bearerToken(new Request(BASE))).toBeNull();
  });

  it("compares tokens of any length without throwing", () => {
    expect(tokensEqual(TOKEN, TOKEN)).toBe(true);
    expect(tokensEqual("", TOKEN)).toBe(false);
    expect(tokensEqual(`${TOKEN}${TOKEN}`, TOKEN)).toBe(false);
    expect(tokensEqual(TOKEN.replace(/.$/, "g"), TOKEN)).toBe(false);
  });
});

describe("the proxy in front of the handlers", () => {
  const through = (url: string, method: string, authorization?: string) =>
    proxy(new NextRequest(`${BASE}${url}`, { method, headers: authorization ? { authorization } : {} }));

  it("adds WWW-Authenticate: Bearer to every write the handlers refuse", () => {
    for (const [url, method] of [
      ["/api/runs", "POST"],
      [`/api/runs/${runId}`, "PATCH"],
      [`/api/runs/${runId}`, "DELETE"],
      ["/api/comparisons", "POST"],
      [`/api/comparisons/${slug}`, "DELETE"],
    ] as const) {
      expect(through(url, method).headers.get("www-authenticate"), `${method} ${url}`).toBe("Bearer");
      expect(through(url, method, "Bearer wrong-token").headers.get("www-authenticate"), `${method} ${url}`).toBe(
        "Bearer",
      );
      expect(through(url, method, `Bearer ${TOKEN}`).headers.get("www-authenticate"), `${method} ${url}`).toBeNull();
    }
  });

  it("adds no challenge to reads; an upload preview is challenged like the upload", () => {
    expect(through("/api/runs", "GET").headers.get("www-authenticate")).toBeNull();
    expect(through(`/api/comparisons/${slug}`, "GET").headers.get("www-authenticate")).toBeNull();
    expect(through("/api/runs?dry_run=1", "POST").headers.get("www-authenticate")).toBe("Bearer");
    // Only API writes are challenged; a page never asks for the token this way.
    expect(through("/upload", "POST").headers.get("www-authenticate")).toBeNull();
  });

  it("lets the MCP endpoint through without the token (it only reads), and refuses it from another site's page", () => {
    const open = through("/api/mcp", "POST");
    expect(open.status).toBe(200);
    expect(open.headers.get("x-middleware-next")).toBe("1");
    expect(open.headers.get("www-authenticate")).toBeNull();
    const foreign = proxy(
      new NextRequest(`${BASE}/api/mcp`, { method: "POST", headers: { origin: "http://evil.example" } }),
    );
    expect(foreign.status).toBe(403);
    // Every other write keeps its challenge.
    expect(through("/api/mcp/other", "POST").headers.get("www-authenticate")).toBe("Bearer");
  });

  it("sets a Content-Security-Policy with a fresh nonce on the response and on the request Next renders", () => {
    const first = through("/", "GET");
    const second = through("/", "GET");
    const csp = first.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([A-Za-z0-9+/]{22}==)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toBe(
      `default-src 'self'; script-src 'self' 'nonce-${nonce}' 'strict-dynamic'; style-src 'self' 'unsafe-inline'; ` +
        "img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; " +
        "form-action 'self'; frame-ancestors 'none'",
    );
    expect(second.headers.get("content-security-policy")).not.toBe(csp);
    // NextResponse.next({ request: { headers } }) passes the request headers on as x-middleware-request-*.
    expect(first.headers.get("x-middleware-request-content-security-policy")).toBe(csp);
    expect(first.headers.get("x-middleware-request-x-nonce")).toBe(nonce);
  });
});

/**
 * Without SERVEBENCH_WRITE_TOKEN (the default) every write works without a token, and an Authorization header,
 * right or wrong, changes nothing. Its own file: env() is read once per process (see write-token.test.ts).
 */
import { afterAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  delete process.env.SERVEBENCH_WRITE_TOKEN;
});

import { NextRequest } from "next/server";
import { DELETE as deleteComparison } from "@/app/api/comparisons/[slug]/route";
import { POST as postComparison } from "@/app/api/comparisons/route";
import { DELETE as deleteRun, PATCH as patchRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { proxy } from "@/proxy";
import { BASE, counts, fixtureJson, idContext, noContext, SEED_FILES } from "./helpers";

function request(url: string, method: string, json?: unknown, authorization?: string): Request {
  const headers = new Headers();
  if (json !== undefined) headers.set("content-type", "application/json");
  if (authorization) headers.set("authorization", authorization);
  return new Request(`${BASE}${url}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
}

const slugContext = (slug: string) => ({ params: Promise.resolve({ slug }) });

afterAll(async () => {
  await db().comparison.deleteMany({});
  await db().run.deleteMany({});
});

describe("without SERVEBENCH_WRITE_TOKEN", () => {
  it("has no write token configured", () => {
    expect(env().SERVEBENCH_WRITE_TOKEN).toBeUndefined();
  });

  for (const authorization of [undefined, "Bearer any-token-at-all", "Basic dXNlcjpwYXNz"]) {
    it(`creates, edits and deletes runs and comparisons with ${authorization ?? "no Authorization header"}`, async () => {
      const before = { ...(await counts()), comparisons: await db().comparison.count() };
      const name = `open mode, ${authorization ?? "no header"}`;

      const uploaded = await postRun(
        request("/api/runs", "POST", { ...fixtureJson(SEED_FILES.vllm), name }, authorization),
        noContext,
      );
      expect(uploaded.status).toBe(201);
      const { id } = (await uploaded.json()) as { id: string };

      const patched = await patchRun(
        request(`/api/runs/${id}`, "PATCH", { name: `${name}, renamed`, notes: "edited" }, authorization),
        idContext(id),
      );
      expect(patched.status).toBe(200);
      expect(await patched.json()).toMatchObject({ name: `${name}, renamed`, notes: "edited" });

      const saved = await postComparison(
        request("/api/comparisons", "POST", { runs: [id], title: name }, authorization),
        noContext,
      );
      expect(saved.status).toBe(201);
      const { slug } = (await saved.json()) as { slug: string };
      expect(await db().comparison.count()).toBe(before.comparisons + 1);

      expect(
        (
          await deleteComparison(
            request(`/api/comparisons/${slug}`, "DELETE", undefined, authorization),
            slugContext(slug),
          )
        ).status,
      ).toBe(204);
      expect(
        (await deleteRun(request(`/api/runs/${id}`, "DELETE", undefined, authorization), idContext(id))).status,
      ).toBe(204);
      expect({ ...(await counts()), comparisons: await db().comparison.count() }).toEqual(before);
    });
  }

  it("sends no WWW-Authenticate challenge through the proxy", () => {
    for (const method of ["POST", "PATCH", "DELETE"]) {
      const response = proxy(new NextRequest(`${BASE}/api/runs/abc`, { method }));
      expect(response.headers.get("www-authenticate")).toBeNull();
      expect(response.headers.get("content-security-policy")).toMatch(/^default-src 'self'; script-src 'self' 'nonce-/);
    }
  });
});

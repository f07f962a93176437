/** Calling the real route handlers the way Next.js does, against the real SQLite file of setup.ts. */
import fs from "node:fs";
import path from "node:path";
import { db } from "@/lib/db/client";

export const BASE = "http://localhost";

export const FIXTURES = path.join(__dirname, "..", "fixtures");

export function fixtureText(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), "utf8");
}

export function fixtureJson(name: string): Record<string, unknown> {
  return JSON.parse(fixtureText(name)) as Record<string, unknown>;
}

export const SEED_FILES = {
  vllm: "servebench/vllm-tp8-baseline.json",
  sglangNoGraphs: "servebench/sglang-tp8-cuda-graph-disabled.json",
  sglangGraphs: "servebench/sglang-tp8-cuda-graphs-on.json",
} as const;

export function jsonRequest(url: string, method: string, body: unknown, contentType = "application/json"): Request {
  return new Request(`${BASE}${url}`, {
    method,
    headers: { "content-type": contentType },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export function multipartRequest(url: string, fields: Record<string, string | Blob>): Request {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  return new Request(`${BASE}${url}`, { method: "POST", body: form });
}

export function idContext(id: string) {
  return { params: Promise.resolve({ id }) };
}

export const noContext = { params: Promise.resolve({}) };

export async function counts(): Promise<{ runs: number; points: number; tags: number }> {
  const [runs, points, tags] = await Promise.all([db().run.count(), db().resultPoint.count(), db().runTag.count()]);
  return { runs, points, tags };
}

export async function clearDatabase(): Promise<void> {
  await db().run.deleteMany({});
}

/** Calling the real route handlers the way Next.js does, against the real database of setup.ts (SQLite or PostgreSQL). */
import fs from "node:fs";
import path from "node:path";
import { db, provider } from "@/lib/db/client";

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

/** The columns of a table as the migrated database has them, on either database. */
export async function tableColumns(table: string): Promise<string[]> {
  if (provider() === "sqlite") {
    const rows = await db().$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM pragma_table_info('${table}')`);
    return rows.map((row) => row.name);
  }
  const rows = await db().$queryRaw<{ column_name: string }[]>`
    SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`;
  return rows.map((row) => row.column_name);
}

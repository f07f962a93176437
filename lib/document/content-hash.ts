/**
 * The identity of a run's content: SHA-256 over its canonical document with keys sorted. Two uploads of the
 * same file with the same context normalize to the same document and so to the same hash.
 */
import { createHash } from "node:crypto";
import type { RunDocument } from "./normalize";

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, canonical(v)]),
  );
}

export function contentHash(document: RunDocument): string {
  return createHash("sha256")
    .update(JSON.stringify(canonical(document)))
    .digest("hex");
}

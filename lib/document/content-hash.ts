/**
 * The identity of a run's content: SHA-256 over its canonical document with keys sorted. Two uploads of the
 * same file with the same context normalize to the same document and so to the same hash.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "@/lib/canonical-json";
import type { RunDocument } from "./normalize";

export function contentHash(document: RunDocument): string {
  return createHash("sha256").update(canonicalJson(document)).digest("hex");
}

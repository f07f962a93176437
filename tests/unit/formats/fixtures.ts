/** Loading fixture files the way an upload arrives: bytes decoded by lib/formats/decode.ts. */
import fs from "node:fs";
import path from "node:path";
import { decodeFile } from "@/lib/formats/decode";
import type { SourceFile } from "@/lib/formats/types";

export const FIXTURES_DIR = path.join(__dirname, "..", "..", "fixtures");

/** `loadFixture("vllm/bench_serve_v0.25.1.json")`: the decoded file, named by its path under tests/fixtures. */
export function loadFixture(relativePath: string): SourceFile {
  return decodeFile(relativePath, fs.readFileSync(path.join(FIXTURES_DIR, relativePath)));
}

/** The raw JSON of a fixture, to compare parsed figures with the numbers the file states. */
export function readFixtureJson(relativePath: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, relativePath), "utf8")) as unknown;
}

/** Every file under a fixture folder, as paths relative to tests/fixtures, sorted. */
export function fixtureFiles(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(FIXTURES_DIR, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else out.push(relative);
    }
  };
  walk(folder);
  return out.sort();
}

/**
 * The history's text search, held to its definition on both databases (this file runs on SQLite and on
 * PostgreSQL): a run matches when its lower-cased text (name, engine, model, command, notes) contains the
 * lower-cased query, whatever the query holds (LIKE's `%`, `_` and `\`, quotes, FTS5's own syntax, text beyond
 * ASCII), listed in the page's order with the same totals as any other filter. Each list is compared with the
 * same question answered here in JavaScript over every stored run.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as listRunsRoute } from "@/app/api/runs/route";
import { db, provider } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { searchPairsOf, searchTriplesOf } from "@/lib/document/search-pairs";
import { databaseTarget } from "@/lib/env";
import { updateRunOrThrow } from "@/lib/runs/edit";
import { createRun } from "@/lib/runs/store";
import { BASE, clearDatabase, noContext } from "./helpers";

interface ListBody {
  runs: { id: string; name: string }[];
  total: number;
  total_exact: boolean;
}

async function list(params: Record<string, string>): Promise<ListBody> {
  const query = new URLSearchParams(params).toString();
  const response = await listRunsRoute(new Request(`${BASE}/api/runs?${query}`), noContext);
  expect(response.status).toBe(200);
  return (await response.json()) as ListBody;
}

interface StoredText {
  id: string;
  searchText: string;
  sortAt: Date;
  singleStreamTokS: number | null;
}

async function storedTexts(): Promise<StoredText[]> {
  return db().run.findMany({ select: { id: true, searchText: true, sortAt: true, singleStreamTokS: true } });
}

/** Newest first, ties by id descending: the history's default order. */
function byDate(a: StoredText, b: StoredText): number {
  const time = b.sortAt.getTime() - a.sortAt.getTime();
  if (time !== 0) return time;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** What the search must answer: every run whose text contains the query, both lower-cased, newest first. */
function expectedIds(texts: readonly StoredText[], q: string): string[] {
  const needle = q.trim().toLowerCase();
  return texts
    .filter((text) => text.searchText.includes(needle))
    .sort(byDate)
    .map((text) => text.id);
}

/** The total a filtered list reports: exact when the list ends within a page past the page, else "more than". */
function expectedTotal(matches: number, page: number, perPage: number): { total: number; total_exact: boolean } {
  const take = perPage * 2 + 1;
  const offset = (page - 1) * perPage;
  const window = Math.max(0, Math.min(matches - offset, take));
  if (window === take) return { total: offset + take - 1, total_exact: false };
  return { total: window > 0 || offset === 0 ? offset + window : Math.min(matches, offset), total_exact: true };
}

/** Every page of a search, and each page's total, against the answer computed here. */
async function expectSearch(texts: readonly StoredText[], q: string, perPage = 100): Promise<string[]> {
  const expected = expectedIds(texts, q);
  const pages = Math.max(1, Math.ceil(expected.length / perPage));
  const found: string[] = [];
  for (let page = 1; page <= pages + 1; page += 1) {
    const body = await list({ q, per_page: String(perPage), page: String(page) });
    expect({ q, page, total: body.total, total_exact: body.total_exact }).toEqual({
      q,
      page,
      ...expectedTotal(expected.length, page, perPage),
    });
    found.push(...body.runs.map((run) => run.id));
  }
  expect({ q, ids: found }).toEqual({ q, ids: expected });
  return expected;
}

/** A small deterministic generator, so a failure names a query that can be tried again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const ENGINES = ["vllm", "sglang", "tensorrt-llm"];
const VERSIONS = ["0.11.0", "0.5.4", "1.0.0"];
const MODELS = ["Qwen/Qwen3-30B-A3B", "meta-llama/Llama-3.1-8B-Instruct", "openai/gpt-oss-120b"];
const GPUS = ["H100 80GB HBM3", "A100-SXM4-80GB", "MI300X"];
const TAGS = ["kv-095", "kv-fp8", "no-cuda-graphs"];

/** Names made of the same few parts, so every part's trigrams are common and only the whole name is rare. */
function gridRuns(): { name: string; engine: string; model: string; command: string; minutesAgo: number }[] {
  const runs = [];
  let minutesAgo = 0;
  for (const [index, engine] of ENGINES.entries()) {
    for (const model of MODELS) {
      for (const gpu of GPUS) {
        for (const [tp, tag] of [
          [1, TAGS[0]],
          [2, TAGS[1]],
          [16, TAGS[2]],
        ] as const) {
          // Some parts skipped, so the generated names are not all alike in shape.
          if ((minutesAgo * 7) % 5 === 0 && tp === 16) continue;
          const short = model.split("/").pop() ?? model;
          runs.push({
            name: `${engine} ${VERSIONS[index]} · ${short} · ${gpu} ×${tp} · ${tag}`,
            engine,
            model,
            command: `serve ${model} --tensor-parallel-size ${tp} --${tag}`,
            minutesAgo: minutesAgo++,
          });
        }
      }
    }
  }
  return runs;
}

/** Texts whose parts read as LIKE patterns, FTS5 queries or SQL, and text beyond ASCII. */
const HOSTILE_NAMES = [
  "100%_done a\\b",
  "100%xdone aXb",
  "100%_donE a\\\\b",
  `say "hello" 'world'`,
  `say ""hello"" world`,
  "NEAR(alpha beta) AND NOT gamma OR delta*",
  "col:value ^start -minus +plus (paren) {brace}",
  'it\'s; DROP TABLE "Run"; --',
  "Größe ÉCOLE straße",
  "GRÖSSE école strasse",
  "日本語モデルの比較テスト",
  "モデルの比較 日本語",
  "🚀 launch 🚀🚀 rocket",
  "ΟΔΟΣ αβγ",
];

let texts: StoredText[] = [];

beforeAll(async () => {
  await clearDatabase();
  const base = Date.parse("2026-11-01T00:00:00Z");
  const at = (minutesAgo: number) => new Date(base - minutesAgo * 60_000).toISOString();
  for (const run of gridRuns()) {
    await createRun(
      normalizeRunDocument({
        format: "servebench/v1",
        name: run.name,
        engine: run.engine,
        model: run.model,
        command: run.command,
        measured_at: at(run.minutesAgo),
        results: [{ concurrency: 1, output_throughput: 20 + run.minutesAgo }],
      }),
    );
  }
  for (const [index, name] of HOSTILE_NAMES.entries()) {
    await createRun(
      normalizeRunDocument({
        format: "servebench/v1",
        name,
        engine: "vllm",
        model: "Qwen/Qwen3-32B",
        // Notes may hold tabs, names may not.
        notes: index === 0 ? "tab\tseparated\tnote" : `note ${index}: ${name}`,
        // Two runs measured at the same moment: their order is by id, on both databases.
        measured_at: at(500 + Math.floor(index / 2)),
        results: [{ concurrency: 8, output_throughput: 300 }],
      }),
    );
  }
  texts = await storedTexts();
  expect(texts.length).toBeGreaterThan(80);
});

describe("the text search", () => {
  it("finds a whole run name made of common parts, and only the runs containing it", async () => {
    const grid = gridRuns();
    const picked = [grid[0], grid[Math.floor(grid.length / 2)], grid[grid.length - 1]];
    for (const run of picked) {
      expect(await expectSearch(texts, run?.name ?? "")).toHaveLength(1);
    }
    // "×1" is also the start of "×16": a substring, not a word.
    const prefix = await expectSearch(texts, "sglang 0.5.4 · Llama-3.1-8B-Instruct · A100-SXM4-80GB ×1");
    expect(prefix.length).toBeGreaterThanOrEqual(1);
  });

  it("finds nothing when every trigram of the text appears but never together", async () => {
    // Each part is in many runs, and each trigram of the whole is too, but no run has these parts in this order.
    for (const q of [
      "vllm 1.0.0 · Qwen3-30B-A3B",
      "tensorrt-llm 0.11.0 · MI300X",
      "kv-095 · H100 80GB HBM3",
      "Qwen3-30B-A3B · gpt-oss-120b",
      "×2 · kv-095",
      "llama-3.1-8b-instruct --tensor-parallel-size 16 --kv-095",
    ]) {
      expect(await expectSearch(texts, q)).toEqual([]);
    }
    // One run holding all three trigrams of "abcde" but not "abcde" itself.
    const base = Date.parse("2026-10-01T00:00:00Z");
    await createRun(
      normalizeRunDocument({
        format: "servebench/v1",
        name: "abcd bcde",
        engine: "vllm",
        model: "m",
        measured_at: new Date(base).toISOString(),
        results: [{ concurrency: 1, output_throughput: 1 }],
      }),
    );
    const withIt = await storedTexts();
    expect(await expectSearch(withIt, "abcde")).toEqual([]);
    expect(await expectSearch(withIt, "abcd bcd")).toHaveLength(1);
  });

  it("takes LIKE's wildcards and escape, quotes and FTS5's syntax literally", async () => {
    for (const q of [
      "100%_done",
      "100%_done a\\b",
      "a\\b",
      "a\\\\b",
      "0%_",
      "%%%",
      "___",
      "\\\\\\",
      `"hello"`,
      `""hello""`,
      `say "hello" 'world'`,
      "'world'",
      "NEAR(alpha beta) AND NOT",
      "AND NOT gamma OR delta*",
      "delta*",
      "col:value ^start -minus",
      "(paren) {brace}",
      `; DROP TABLE "Run"; --`,
      "it's",
    ]) {
      await expectSearch(texts, q);
    }
    expect(await expectSearch(texts, "100%_done")).toHaveLength(2);
    expect(await expectSearch(texts, "0%x")).toHaveLength(1);
    expect(await expectSearch(texts, "%%%")).toEqual([]);
  });

  it("matches text beyond ASCII by its lower case, on both databases", async () => {
    for (const q of [
      "GRÖSSE",
      "größe école",
      "ÉCOLE STRASSE",
      "日本語モデル",
      "モデルの比較",
      "の比較テスト",
      "🚀 launch 🚀",
      "🚀🚀",
      "🚀🚀 rocket",
      "οδος αβγ",
      "ΟΔΟΣ ΑΒΓ",
      "separated\tnote",
    ]) {
      await expectSearch(texts, q);
    }
    expect(await expectSearch(texts, "GRÖSSE")).toHaveLength(1);
    expect(await expectSearch(texts, "日本語モデルの比較テスト")).toHaveLength(1);
    expect(await expectSearch(texts, "🚀 launch 🚀")).toHaveLength(1);
  });

  it("agrees with the definition for substrings of every stored text, of every length", async () => {
    const rand = random(20261201);
    const queries = new Set<string>();
    for (const text of texts) {
      const chars = [...text.searchText];
      for (let draw = 0; draw < 3; draw += 1) {
        const length = 3 + Math.floor(rand() * 45);
        const start = Math.floor(rand() * Math.max(1, chars.length - length));
        const q = chars
          .slice(start, start + length)
          .join("")
          .trim();
        // A query is one line as typed; the stored text's fields are joined with newlines.
        if ([...q].length >= 3 && !q.includes("\n")) queries.add(q);
      }
    }
    expect(queries.size).toBeGreaterThan(120);
    for (const q of queries) await expectSearch(texts, q);
  });

  it("keeps the sort, the filters and the totals of a search", async () => {
    const q = "· H100 80GB HBM3 ×";
    const matching = expectedIds(texts, q);
    expect(matching.length).toBeGreaterThan(10);
    const first = await list({ q, per_page: "4" });
    expect(first.runs.map((run) => run.id)).toEqual(matching.slice(0, 4));
    expect({ total: first.total, exact: first.total_exact }).toEqual({ total: 8, exact: false });
    const bySpeed = texts
      .filter((text) => matching.includes(text.id))
      .sort((a, b) => (b.singleStreamTokS ?? 0) - (a.singleStreamTokS ?? 0) || byDate(a, b))
      .map((text) => text.id);
    const sorted = await list({ q, sort: "single_stream", per_page: "100" });
    expect(sorted.runs.map((run) => run.id)).toEqual(bySpeed);
    const engine = await list({ q, engine: "SGLang", per_page: "100" });
    const sglang = texts
      .filter((text) => matching.includes(text.id) && text.searchText.split("\n")[1] === "sglang")
      .sort(byDate)
      .map((text) => text.id);
    expect(sglang.length).toBeGreaterThan(0);
    expect(engine.runs.map((run) => run.id)).toEqual(sglang);
  });

  // 2,400 runs written three times and searched in three states: seconds of work under a full suite's load.
  it("answers the same with thousands of runs, for a common text, a rare one and one that is absent", async () => {
    // Enough runs that the search judges how common a text is from a full sample of the newest runs.
    const now = Date.parse("2026-06-01T00:00:00Z");
    const rows = Array.from({ length: 2_400 }, (_, index) => {
      const engine = ENGINES[index % 3] ?? "vllm";
      const gpu = GPUS[Math.floor(index / 3) % 3] ?? "";
      const tag = TAGS[Math.floor(index / 9) % 3] ?? "";
      // One run in 400 has a rare word; the word "common" is in every run.
      const rare = index % 400 === 7 ? " rareword" : "";
      const name = `bulk ${engine} · ${gpu} · ${tag} · common${rare} ${index % 50}`;
      const sortAt = new Date(now - (index % 997) * 60_000);
      return {
        id: `bulk${String(index).padStart(6, "0")}`,
        name,
        engine,
        model: "m",
        flagsJson: "{}",
        envJson: "{}",
        metadataJson: "{}",
        sourceFormat: "servebench/v1",
        createdAt: sortAt,
        updatedAt: sortAt,
        sortAt,
        searchText: `${name}\n${engine}\nm\n\n`.toLowerCase(),
        singleStreamDerived: false,
        pointCount: 0,
      };
    });
    // Written as an older version of servebench did: without word pairs.
    await db().run.createMany({ data: rows });
    const all = await storedTexts();
    expect(all.length).toBeGreaterThan(2_400);
    const searches = async () => {
      expect((await expectSearch(all, "common", 25)).length).toBe(2_400);
      expect((await expectSearch(all, "bulk sglang · a100-sxm4-80gb · kv-fp8 · common", 100)).length).toBeGreaterThan(
        50,
      );
      expect(await expectSearch(all, "rareword")).toHaveLength(6);
      expect(await expectSearch(all, "common rareword 7")).toHaveLength(6);
      expect(await expectSearch(all, "bulk vllm · mi300x · kv-095 · common rareword")).toEqual([]);
      expect(await expectSearch(all, "bulk tensorrt-llm · h100 80gb hbm3 · kv-095 · common 41")).toHaveLength(2);
      expect(await expectSearch(all, "· mi300x · kv-095 · common rareword")).toHaveLength(1);
      // Every pair of this one is in the history, never all three together with these words between.
      expect(await expectSearch(all, "x sglang · mi300x · kv-095 · common 7")).toEqual([]);
    };
    // Some runs lack pairs and triples: the search must not ask those indexes, and still finds them.
    await searches();
    // As a version with pairs and without triples would have left them: the pair index alone may answer.
    await db().run.deleteMany({ where: { id: { startsWith: "bulk" } } });
    await db().run.createMany({ data: rows.map((row) => ({ ...row, searchPairs: searchPairsOf(row.searchText) })) });
    await searches();
    // The migrate every start runs fills in the triples, from the stored text; then every index answers.
    const migrated = await migrate(databaseTarget());
    expect([migrated.searchPairsFilled, migrated.searchTriplesFilled]).toEqual([undefined, 2_400]);
    const stored = await db().run.findMany({ select: { searchText: true, searchPairs: true, searchTriples: true } });
    expect(stored.every((run) => run.searchPairs === searchPairsOf(run.searchText))).toBe(true);
    expect(stored.every((run) => run.searchTriples === searchTriplesOf(run.searchText))).toBe(true);
    await searches();
    expect((await migrate(databaseTarget())).searchTriplesFilled).toBeUndefined();
  });

  it("finds a run by its new name after a rename, and no longer by its old one", async () => {
    const all = await storedTexts();
    const [target] = all.filter((text) => text.searchText.startsWith("bulk vllm · h100 80gb hbm3 · kv-095 · common 0"));
    expect(target).toBeDefined();
    await updateRunOrThrow(target?.id ?? "", { name: "renamed quietly · brand-new words · here 1" });
    const after = await storedTexts();
    expect(await expectSearch(after, "renamed quietly · brand-new words · here 1")).toEqual([target?.id]);
    expect(await expectSearch(after, "quietly · brand-new words · here")).toEqual([target?.id]);
    const before = await expectSearch(after, "x vllm · h100 80gb hbm3 · kv-095 · common 0");
    expect(before).not.toContain(target?.id);
  });

  it("keeps the search indexes whole through pairs filled in, renames and deletes", async () => {
    const some = await db().run.findMany({ select: { id: true }, take: 40, orderBy: { id: "asc" } });
    await db().run.deleteMany({ where: { id: { in: some.map((run) => run.id) } } });
    if (provider() === "sqlite") {
      // FTS5 compares its index with the Run rows it was built from (rank 1: external content too), and throws
      // "database disk image is malformed" on any difference.
      for (const table of ["RunSearch", "RunPairs", "RunTriples"]) {
        await db().$executeRawUnsafe(`INSERT INTO "${table}" ("${table}", rank) VALUES ('integrity-check', 1)`);
      }
    }
    const left = await storedTexts();
    expect(left.length).toBeGreaterThan(2_000);
    expect(await expectSearch(left, "· mi300x · kv-095 · common rareword")).toHaveLength(1);
  });
});

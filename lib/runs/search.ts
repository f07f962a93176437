/**
 * The history's text search answered by the indexes: "searchText contains q" narrowed down by a few of q's
 * trigrams, word pairs and triples (planSearch, lib/runs/search-plan.ts), the whole text then checked on the runs
 * they return.
 */

import { db, provider } from "@/lib/db/client";
import { pairsOfQuery, wordsToken } from "@/lib/document/search-pairs";
import { Prisma } from "@/lib/generated/prisma/client";
import {
  buildSearchSample,
  planSearch,
  SEARCH_SAMPLE_CHARS,
  SEARCH_SAMPLE_ROWS,
  type SearchSample,
} from "./search-plan";
import { countRuns } from "./summaries";

type Sql = Prisma.Sql;

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
}

/** An FTS5 phrase for a substring (three characters or more: a trigram or several in a row), quotes doubled. */
function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

interface CachedSample {
  sample: SearchSample;
  /** The run total when it was read, and when. */
  total: number;
  readAt: number;
}
/** Each database client's sample of the newest runs' texts, for planSearch (lib/runs/search-plan.ts). */
const searchSamples = new WeakMap<object, { cached: CachedSample | null; reading: Promise<CachedSample> | null }>();
/** A sample older than this is read again in the background; searches meanwhile use the one they have. */
const SAMPLE_MAX_AGE_MS = 300_000;

async function readSearchSample(total: number): Promise<CachedSample> {
  const rows = await db().$queryRaw<{ t: string }[]>`
    SELECT substr(r."searchText", 1, ${SEARCH_SAMPLE_CHARS}) AS t
    FROM "Run" r ORDER BY r."sortAt" DESC, r."id" DESC LIMIT ${SEARCH_SAMPLE_ROWS}`;
  const whole = rows.length < SEARCH_SAMPLE_ROWS;
  return {
    sample: buildSearchSample(
      rows.map((row) => row.t),
      whole,
    ),
    total,
    readAt: Date.now(),
  };
}

/**
 * The sample the search plans with. It steers only the cost of a search, never its answer, so it is kept for five
 * minutes rather than read per search (2,000 texts, 20–100 ms): read again in the background when older, and before
 * answering when the history's size moved by more than a tenth since (a first search, an import, a restore).
 */
async function searchSample(total: number): Promise<SearchSample> {
  const client = db();
  let slot = searchSamples.get(client);
  if (!slot) {
    slot = { cached: null, reading: null };
    searchSamples.set(client, slot);
  }
  const holder = slot;
  const read = () => {
    holder.reading ??= readSearchSample(total).then(
      (fresh) => {
        holder.cached = fresh;
        holder.reading = null;
        return fresh;
      },
      (error: unknown) => {
        holder.reading = null;
        throw error;
      },
    );
    return holder.reading;
  };
  const cached = holder.cached;
  if (!cached || Math.abs(total - cached.total) > cached.total / 10) return (await read()).sample;
  if (Date.now() - cached.readAt > SAMPLE_MAX_AGE_MS) read().catch(() => {});
  return cached.sample;
}

/**
 * SQLite's list entry against a run tested, measured at a million runs: ~18 ns an entry of an FTS5 `AND`
 * (60,000 entries of two pair lists in 1.1 ms) against ~0.2 µs a candidate joined and tested with instr (837 in
 * 0.18 ms), the rows being small and mostly cached.
 */
const SQLITE_LIST_ENTRY_COST = 1 / 10;

/** PostgreSQL's pg_trgm keeps trigrams of letters and digits only: LIKE '%abc%' asks its index for "abc" alone. */
const PG_TRGM_ALONE = /^[a-z0-9]{3}$/;

/**
 * Whether every run's word pairs (triples) are stored, so that index may be asked: runs written before they
 * existed (or by an older instance during an upgrade) have none until `npm run db:migrate` fills them in. One
 * probe of a partial index each, in one query, so that a run without them is never missed.
 */
async function wordIndexesComplete(): Promise<{ pairs: boolean; triples: boolean }> {
  const [row] = await db().$queryRaw<{ pairs: number | bigint | null; triples: number | bigint | null }[]>`
    SELECT (SELECT 1 FROM "Run" r WHERE r."searchPairs" IS NULL LIMIT 1) AS pairs,
      (SELECT 1 FROM "Run" r WHERE r."searchTriples" IS NULL LIMIT 1) AS triples`;
  return { pairs: row?.pairs === null, triples: row?.triples === null };
}

export interface SearchFilter {
  /**
   * The condition on `r`; null when no index narrows the text down (fewer than three characters, a common text, one
   * the indexes gave too many candidates for): the runs' text is then read run by run, within a budget (walkSearch).
   */
  condition: Sql | null;
  /**
   * Every run matching, newest first as the history orders by date (sortAt, then id), when the indexes found them
   * all: the page of a search alone is then a slice of it, with no second visit to the rows.
   */
  newestFirst?: string[];
}

/**
 * The condition on `r` for "r.searchText contains text" (text lower-cased), as each database answers it best.
 * From three characters on, planSearch (lib/runs/search-plan.ts) chooses between walking the page's order and
 * asking the indexes for a few of the text's trigrams, word pairs and triples, the whole text then checked on the
 * runs they return.
 */
export async function searchCondition(text: string, take: number): Promise<SearchFilter> {
  const indexed = [...text].length >= 3;
  const postgresql = provider() === "postgresql";
  if (!indexed) return { condition: null };
  const total = Math.max(1, await countRuns());
  const sample = await searchSample(total);
  // A text without a whole pair of words has no triple either: no probe, and neither index to ask.
  const words = pairsOfQuery(text).length > 0 ? await wordIndexesComplete() : { pairs: false, triples: false };
  if (postgresql) {
    const plan = planSearch(sample, text, { total, take, ...words, usable: (trigram) => PG_TRGM_ALONE.test(trigram) });
    // A common text: its matches come soon in the page's order, read run by run within the search's budget.
    if (plan.kind === "walk") return { condition: null };
    // A rare one: only the chosen trigrams (LIKE), pairs and triples (@>, the GIN indexes of their tokens) reach
    // the indexes; the whole text is checked by strpos, which no index serves, on the candidates.
    const parts = plan.trigrams.map((trigram) => Prisma.sql`r."searchText" LIKE ${likePattern(trigram)}`);
    for (const [sequences, column] of [
      [plan.pairs, Prisma.raw(`r."searchPairs"`)],
      [plan.triples, Prisma.raw(`r."searchTriples"`)],
    ] as const) {
      if (sequences.length === 0) continue;
      const tokens = Prisma.join(sequences.map((sequence) => Prisma.sql`${wordsToken(sequence)}`));
      parts.push(Prisma.sql`string_to_array(${column}, ' ') @> ARRAY[${tokens}]::text[]`);
    }
    return { condition: Prisma.sql`${Prisma.join(parts, " AND ")} AND strpos(r."searchText", ${text}) > 0` };
  }
  const plan = planSearch(sample, text, { total, take, ...words, listEntryCost: SQLITE_LIST_ENTRY_COST });
  if (plan.kind === "walk") return { condition: null };
  // The matches, read from the indexes and checked, while there are at most √(take × total) of them: past that a
  // walk of the order's index finds a page's worth sooner than sorting them all.
  const sparseLimit = Math.max(200, Math.round(Math.sqrt(take * total)));
  // The rarest kind's index drives (triples', then pairs', then trigrams': their lists are the shorter); the
  // others' matches are read once each, as sets the driving rows are looked up in.
  const asked = [
    { table: "RunTriples", keys: plan.triples.map(wordsToken) },
    { table: "RunPairs", keys: plan.pairs.map(wordsToken) },
    { table: "RunSearch", keys: plan.trigrams },
  ]
    .filter((index) => index.keys.length > 0)
    .map((index) => ({ table: Prisma.raw(`"${index.table}"`), match: index.keys.map(ftsPhrase).join(" AND ") }));
  const [driving, ...others] = asked;
  if (!driving) return { condition: null };
  const alsoIn = others.map(
    (index) =>
      Prisma.sql`AND d.rowid IN (SELECT o.rowid FROM ${index.table} o WHERE o.${index.table} MATCH ${index.match})`,
  );
  const candidates = Prisma.sql`SELECT d.rowid AS id FROM ${driving.table} d WHERE d.${driving.table} MATCH ${driving.match}
    ${alsoIn.length === 0 ? Prisma.empty : Prisma.join(alsoIn, " ")}`;
  // The matches come back as JSON arrays and go into the page's query as one parameter: hundreds of rows and
  // as many bound parameters through the client cost more than finding them (0.7 and 0.5 ms for 431). They come
  // in the history's date order, read from the rows the text was checked on: the page of a search sorted by date
  // needs no second visit to them (0.9 ms for 431 at a million runs, the rows no longer in the CPU's caches).
  const [found] = await db().$queryRaw<{ n: number | bigint; rowids: string | null; ids: string | null }[]>`
    SELECT count(*) AS n,
      json_group_array(m.rowid) AS rowids,
      json_group_array(m.id ORDER BY m.sortAt DESC, m.id DESC) AS ids
    FROM (
      SELECT c.id AS rowid, r."id" AS id, r."sortAt" AS sortAt FROM (${candidates}) AS c
      JOIN "Run" r ON r.rowid = c.id
      WHERE instr(r."searchText", ${text}) > 0 LIMIT ${sparseLimit + 1}
    ) AS m`;
  const matches = Number(found?.n ?? 0);
  if (matches === 0) return { condition: Prisma.sql`1 = 0`, newestFirst: [] };
  if (matches <= sparseLimit) {
    return {
      condition: Prisma.sql`r.rowid IN (SELECT j.value FROM json_each(${found?.rowids ?? "[]"}) AS j)`,
      newestFirst: JSON.parse(found?.ids ?? "[]") as string[],
    };
  }
  return { condition: null };
}

/**
 * The history's list: the runs meeting its filters and search, in its order, a page at a time.
 */

import { db, provider } from "@/lib/db/client";
import { forbiddenCharacter } from "@/lib/document/schema";
import { Prisma } from "@/lib/generated/prisma/client";
import { yieldToEventLoop } from "./event-loop";
import { searchCondition } from "./search";
import { countRuns, type RunSummary, summariesInOrder } from "./summaries";

export const SORT_KEYS = ["date", "name", "engine", "model", "single_stream", "peak"] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface RunListQuery {
  engine?: string | undefined;
  model?: string | undefined;
  gpu?: string | undefined;
  tag?: string | undefined;
  q?: string | undefined;
  page: number;
  per_page: number;
  sort: SortKey;
  dir: "asc" | "desc";
}

/**
 * The history's list, written to stay fast at a million runs on both databases (docs/benchmarks.md):
 *
 * - One SQL query picks the page's run ids with the filters, the order and LIMIT/OFFSET, served by an index for
 *   every sort; Prisma then loads those runs with their tags. The SQL is the subset SQLite and PostgreSQL share
 *   (double-quoted names; nulls placed by splitting, not by NULLS LAST); only the text search differs.
 * - Sorting by a figure lists the runs that have it (by the figure, then newest first) and then those that do not
 *   (newest first), as two index scans rather than one sort of every row.
 * - The same query reads a page past the one asked for (`PAGES_AHEAD`), which is the total of a filtered list
 *   when it ends there; when it does not, the answer is "more than N" (`total_exact: false`): an exact count would
 *   read every matching run, which at a million runs costs more than the page. The unfiltered total is exact,
 *   from the RunTotal row the database's triggers keep.
 * - The text search is "searchText contains q" (both lower-cased). With three characters or more it is answered
 *   by a trigram index (SQLite's FTS5 trigram table, PostgreSQL's pg_trgm GIN index) asked for the few trigrams of
 *   q that narrow it most, or by a walk of the order's index when q is common (searchCondition); shorter queries
 *   read rows.
 */
const PAGES_AHEAD = 1;

const FIGURE_COLUMNS = { single_stream: "singleStreamTokS", peak: "peakTokS" } as const;
const TEXT_SORT_COLUMNS = { name: "name", engine: "engine", model: "model" } as const;

type Sql = Prisma.Sql;

interface ListConditions {
  conditions: Sql[];
  /** The search's matches newest first, when it found them all (SearchFilter). */
  searchNewestFirst?: string[] | undefined;
  /** The text (lower-cased) to read the runs meeting `conditions` for, run by run (walkSearch). */
  walkText?: string | undefined;
}

async function conditionsOf(query: RunListQuery, take: number): Promise<ListConditions> {
  // A filter holding a character no stored text can (a NUL, say) matches no run, and would break FTS5's query parser
  // and PostgreSQL's text parameters: answered without asking the database.
  const filters = [query.q, query.engine, query.model, query.gpu, query.tag];
  if (filters.some((value) => value !== undefined && forbiddenCharacter(value, true) !== null)) {
    return { conditions: [Prisma.sql`1 = 0`], searchNewestFirst: [] };
  }
  const conditions: Sql[] = [];
  if (query.engine) conditions.push(Prisma.sql`r."engine" = ${query.engine.toLowerCase()}`);
  if (query.model) conditions.push(Prisma.sql`r."model" = ${query.model}`);
  if (query.gpu) conditions.push(Prisma.sql`r."gpu" = ${query.gpu}`);
  if (query.tag) {
    conditions.push(
      Prisma.sql`EXISTS (SELECT 1 FROM "RunTag" t WHERE t."runId" = r."id" AND t."tag" = ${query.tag.toLowerCase()})`,
    );
  }
  if (!query.q) return { conditions };
  const text = query.q.toLowerCase();
  const search = await searchCondition(text, take);
  if (search.condition === null) return { conditions, walkText: text };
  conditions.push(search.condition);
  return { conditions, searchNewestFirst: search.newestFirst };
}

/**
 * What a search may read when no index narrows its text down, in characters of the runs' text, each run read
 * counting SEARCH_ROW_COST more: ~160 ms of one core (measured on 2 cores: ~2 ns a character, ~5 µs a run read a
 * statement at a time). A history of runs with short texts (~300 characters) is searched whole up to ~28,000 runs;
 * of runs with 10,000 characters of notes, ~6,500; of runs carrying the largest notes and commands (40,000
 * characters), ~1,900. Past it the answer says how far it read (`search_complete: false`, `runs_searched`) rather
 * than holding the server: a text no run holds read 23,000 runs of ~25,000 characters for 0.8 s, and 20 such
 * searches held /api/health 5 s.
 */
export const SEARCH_BUDGET = 80_000_000;
/** What reading one run costs beyond its text, in characters: its row found, its text fetched and tested. */
export const SEARCH_ROW_COST = 2_500;
/**
 * What one statement of the walk reads, in the same units: its runs are read a statement at a time, so the other
 * requests of the process (on SQLite the one connection, which holds the event loop while it runs a statement)
 * wait ~2 ms for one of them, never for the whole walk. Searches in parallel take turns statement by statement,
 * and a request arriving meanwhile waits for one turn of each: at 5,000,000 (~7 ms, 10–50 ms on a busy machine)
 * 20 searches at once held /api/health up to 2 s.
 */
const WALK_CHUNK_COST = 1_250_000;

interface WalkPhase {
  /** The phase's own condition (a figure sort reads the runs with the figure, then those without it). */
  where: Sql | null;
  /** The column ordered by before the date (a sort by name, engine, model or figure); null: by date alone. */
  lead: { column: string; dir: "ASC" | "DESC" } | null;
  /** The direction of (sortAt, id): the page's for a sort by date, newest first after a leading column. */
  dateDir: "ASC" | "DESC";
}

/** The page's order as phases read one after the other, each in the order pageIds and listRunIds use. */
function walkPhases(query: RunListQuery): WalkPhase[] {
  const dir = query.dir === "asc" ? "ASC" : "DESC";
  if (query.sort === "date") return [{ where: null, lead: null, dateDir: dir }];
  if (query.sort === "single_stream" || query.sort === "peak") {
    const column = FIGURE_COLUMNS[query.sort];
    return [
      { where: Prisma.raw(`r."${column}" IS NOT NULL`), lead: { column, dir }, dateDir: "DESC" },
      { where: Prisma.raw(`r."${column}" IS NULL`), lead: null, dateDir: "DESC" },
    ];
  }
  return [{ where: null, lead: { column: TEXT_SORT_COLUMNS[query.sort], dir }, dateDir: "DESC" }];
}

interface WalkChunk {
  hits: string[];
  rows: number;
  chars: number;
  lastId: string | null;
}

/**
 * One statement of the walk: up to `limit` runs meeting `where` in `order`, and of them only the ids of those whose
 * text holds `text`, the count and text length of all, and the last one's id (where the next statement starts).
 */
async function walkChunk(text: string, where: readonly Sql[], order: Sql, outer: Sql, limit: number, lead: Sql) {
  const test =
    provider() === "postgresql"
      ? Prisma.sql`strpos(r."searchText", ${text}) > 0`
      : Prisma.sql`instr(r."searchText", ${text}) > 0`;
  const rows = await db().$queryRaw<
    { id: string; hit: number | bigint; n: number | bigint; chars: number | bigint | string | null }[]
  >`
    SELECT w."id", w."hit", w."n", w."chars" FROM (
      SELECT s."id", s."hit", count(*) OVER () AS "n", sum(s."chars") OVER () AS "chars",
        row_number() OVER (ORDER BY ${outer}) AS "rn"
      FROM (
        SELECT r."id" AS "id", r."sortAt" AS "sortAt", ${lead} AS "lead",
          CASE WHEN ${test} THEN 1 ELSE 0 END AS "hit", length(r."searchText") AS "chars"
        FROM "Run" r ${whereSql(where)} ORDER BY ${order} LIMIT ${limit}
      ) AS s
    ) AS w
    WHERE w."hit" = 1 OR w."rn" = w."n"
    ORDER BY w."rn"`;
  const last = rows.at(-1);
  return {
    hits: rows.filter((row) => Number(row.hit) === 1).map((row) => row.id),
    rows: last ? Number(last.n) : 0,
    chars: last ? Number(last.chars ?? 0) : 0,
    lastId: last?.id ?? null,
  } satisfies WalkChunk;
}

export interface SearchWalk {
  /** The matches in the page's order, at most `needed` of them. */
  ids: string[];
  /** Every run meeting the filters was read (the matches are all of them, or `needed` were found). */
  complete: boolean;
  /** How many runs' text was read. */
  runsSearched: number;
}

/**
 * "Which runs meeting `conditions` hold `text`", in the page's order, read a statement at a time from the start of
 * that order until `needed` matches are found, the runs end, or the budget is spent. Each statement starts after the
 * last run of the one before (its order values read from that run's row, so no value makes a round trip through
 * JavaScript), so the walk reads each run once however far it goes.
 */
async function walkSearch(
  query: RunListQuery,
  conditions: readonly Sql[],
  text: string,
  needed: number,
  { budget, statementRows }: { budget: number; statementRows: number | null },
): Promise<SearchWalk> {
  const ids: string[] = [];
  let spent = 0;
  let runsSearched = 0;
  // The first statement reads a few runs; later ones as many as WALK_CHUNK_COST buys at the text length seen so far.
  let limit = statementRows ?? 200;
  for (const phase of walkPhases(query)) {
    const base = phase.where ? [...conditions, phase.where] : [...conditions];
    // The order inside a statement (on `r`) and again over what it read (on `s`), to find its last run.
    const lead = phase.lead ? Prisma.raw(`r."${phase.lead.column}"`) : Prisma.raw("NULL");
    const order = Prisma.raw(
      phase.lead
        ? `r."${phase.lead.column}" ${phase.lead.dir}, r."sortAt" DESC, r."id" DESC`
        : `r."sortAt" ${phase.dateDir}, r."id" ${phase.dateDir}`,
    );
    const outer = Prisma.raw(
      phase.lead
        ? `s."lead" ${phase.lead.dir}, s."sortAt" DESC, s."id" DESC`
        : `s."sortAt" ${phase.dateDir}, s."id" ${phase.dateDir}`,
    );
    let lastId: string | null = null;
    for (;;) {
      if (ids.length >= needed) return { ids: ids.slice(0, needed), complete: true, runsSearched };
      if (spent >= budget) return { ids, complete: false, runsSearched };
      // A turn for the event loop between statements: awaiting one statement after another is a chain of promises
      // that never lets the loop accept a new connection, so 20 searches held /api/health until all had ended.
      if (runsSearched > 0) await yieldToEventLoop();
      const chunks: WalkChunk[] = [];
      const of = (column: string) =>
        Prisma.sql`(SELECT c.${Prisma.raw(`"${column}"`)} FROM "Run" c WHERE c."id" = ${lastId})`;
      const after = Prisma.raw(phase.dateDir === "DESC" ? "<" : ">");
      if (lastId === null) {
        chunks.push(await walkChunk(text, base, order, outer, limit, lead));
      } else if (!phase.lead) {
        const cursor = Prisma.sql`(r."sortAt", r."id") ${after} (SELECT c."sortAt", c."id" FROM "Run" c WHERE c."id" = ${lastId})`;
        chunks.push(await walkChunk(text, [...base, cursor], order, outer, limit, lead));
      } else {
        // After a run in (lead, sortAt DESC, id DESC) order: the rest of its lead value's runs, then the next values.
        const column = Prisma.raw(`r."${phase.lead.column}"`);
        const ties = Prisma.sql`${column} = ${of(phase.lead.column)} AND (r."sortAt", r."id") < (SELECT c."sortAt", c."id" FROM "Run" c WHERE c."id" = ${lastId})`;
        const tieOrder = Prisma.raw(`r."sortAt" DESC, r."id" DESC`);
        const tieOuter = Prisma.raw(`s."sortAt" DESC, s."id" DESC`);
        const first = await walkChunk(text, [...base, ties], tieOrder, tieOuter, limit, lead);
        chunks.push(first);
        if (first.rows < limit) {
          const beyond = Prisma.sql`${column} ${Prisma.raw(phase.lead.dir === "ASC" ? ">" : "<")} ${of(phase.lead.column)}`;
          chunks.push(await walkChunk(text, [...base, beyond], order, outer, limit - first.rows, lead));
        }
      }
      let rows = 0;
      for (const chunk of chunks) {
        ids.push(...chunk.hits);
        rows += chunk.rows;
        spent += chunk.chars + SEARCH_ROW_COST * chunk.rows;
        runsSearched += chunk.rows;
        if (chunk.lastId !== null) lastId = chunk.lastId;
      }
      if (rows < limit) {
        // The phase ended, or the run the walk stood on was deleted meanwhile (then where it stood is unknown).
        if (
          lastId !== null &&
          rows === 0 &&
          !(await db().run.findUnique({ where: { id: lastId }, select: { id: true } }))
        )
          return { ids, complete: false, runsSearched };
        break;
      }
      const perRow = spent / Math.max(1, runsSearched);
      limit = statementRows ?? Math.max(50, Math.min(5_000, Math.floor(WALK_CHUNK_COST / perRow)));
    }
  }
  return { ids: ids.slice(0, needed), complete: true, runsSearched };
}

function whereSql(conditions: readonly Sql[]): Sql {
  return conditions.length === 0 ? Prisma.empty : Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`;
}

async function pageIds(conditions: readonly Sql[], order: Sql, limit: number, offset: number): Promise<string[]> {
  if (limit <= 0) return [];
  const rows = await db().$queryRaw<{ id: string }[]>`
    SELECT r."id" AS id FROM "Run" r ${whereSql(conditions)} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`;
  return rows.map((row) => row.id);
}

async function countUpTo(conditions: readonly Sql[], limit: number): Promise<number> {
  const [row] = await db().$queryRaw<{ n: number | bigint }[]>`
    SELECT count(*) AS n FROM (SELECT 1 FROM "Run" r ${whereSql(conditions)} LIMIT ${limit}) AS m`;
  return Number(row?.n ?? 0);
}

/** Up to `take` run ids from `offset` on, in the query's order. */
async function listRunIds(query: RunListQuery, conditions: readonly Sql[], take: number): Promise<string[]> {
  const offset = (query.page - 1) * query.per_page;
  const dir = Prisma.raw(query.dir === "asc" ? "ASC" : "DESC");
  if (query.sort === "date") return pageIds(conditions, Prisma.sql`r."sortAt" ${dir}, r."id" ${dir}`, take, offset);
  if (query.sort === "single_stream" || query.sort === "peak") {
    const column = Prisma.raw(`r."${FIGURE_COLUMNS[query.sort]}"`);
    const withFigure = [...conditions, Prisma.sql`${column} IS NOT NULL`];
    const first = await pageIds(withFigure, Prisma.sql`${column} ${dir}, r."sortAt" DESC, r."id" DESC`, take, offset);
    if (first.length === take) return first;
    // The window runs past the runs with the figure: fewer than offset + take of them, so counting is cheap.
    const figured = first.length > 0 ? offset + first.length : await countUpTo(withFigure, offset + 1);
    const rest = await pageIds(
      [...conditions, Prisma.sql`${column} IS NULL`],
      Prisma.sql`r."sortAt" DESC, r."id" DESC`,
      take - first.length,
      Math.max(0, offset - figured),
    );
    return [...first, ...rest];
  }
  const column = Prisma.raw(`r."${TEXT_SORT_COLUMNS[query.sort]}"`);
  return pageIds(conditions, Prisma.sql`${column} ${dir}, r."sortAt" DESC, r."id" DESC`, take, offset);
}

export interface RunList {
  runs: RunSummary[];
  /** Exact when `total_exact`; otherwise there are more than this many. */
  total: number;
  total_exact: boolean;
  /**
   * Set (false) only when the search read its budget's worth of runs (SEARCH_BUDGET) and stopped: the runs listed
   * are matches, but runs after `runs_searched` in the page's order were not searched.
   */
  search_complete?: false;
  /** With `search_complete`: how many runs' text the search read. */
  runs_searched?: number;
}

export interface ListRunsOptions {
  /** What a search read run by run may read (SEARCH_BUDGET). */
  searchBudget?: number;
  /** Runs per statement of such a search, fixed (tests: a few, so a page crosses many statements). */
  searchStatementRows?: number;
}

export async function listRuns(query: RunListQuery, options: ListRunsOptions = {}): Promise<RunList> {
  const offset = (query.page - 1) * query.per_page;
  const take = query.per_page * (1 + PAGES_AHEAD) + 1;
  const { conditions, searchNewestFirst, walkText } = await conditionsOf(query, take);
  if (walkText !== undefined) {
    const walk = await walkSearch(query, conditions, walkText, offset + take, {
      budget: options.searchBudget ?? SEARCH_BUDGET,
      statementRows: options.searchStatementRows ?? null,
    });
    const window = walk.ids.slice(offset, offset + take);
    const runs = await summariesInOrder(window.slice(0, query.per_page));
    if (!walk.complete) {
      return {
        runs,
        total: walk.ids.length,
        total_exact: false,
        search_complete: false,
        runs_searched: walk.runsSearched,
      };
    }
    // All matches read (fewer than a window past the page), or a window's worth: "more than" as any filtered list.
    if (window.length === take) return { runs, total: offset + take - 1, total_exact: false };
    return { runs, total: walk.ids.length, total_exact: true };
  }
  // A search alone, by date: its matches came in that order (searchCondition), the window is a slice of them.
  const matchesInOrder =
    conditions.length === 1 && query.sort === "date" && searchNewestFirst !== undefined
      ? query.dir === "asc"
        ? [...searchNewestFirst].reverse()
        : searchNewestFirst
      : null;
  const [window, totalAll] = await Promise.all([
    matchesInOrder ? matchesInOrder.slice(offset, offset + take) : listRunIds(query, conditions, take),
    conditions.length === 0 ? countRuns() : Promise.resolve(null),
  ]);
  const runs = await summariesInOrder(window.slice(0, query.per_page));
  if (totalAll !== null) return { runs, total: totalAll, total_exact: true };
  if (window.length === take) return { runs, total: offset + take - 1, total_exact: false };
  // A page past the end: how many there are is below the offset, counted up to it.
  const total =
    window.length > 0 || offset === 0
      ? offset + window.length
      : matchesInOrder
        ? Math.min(matchesInOrder.length, offset)
        : await countUpTo(conditions, offset);
  return { runs, total, total_exact: true };
}

/**
 * Every database access for saved comparisons. Pages and route handlers call these functions; nothing else
 * touches the Comparison table.
 */
import { COMPARE_STATS, type CompareStat } from "@/lib/analysis/lines";
import { CDF_METRICS, type CdfMetric, DEFAULT_CDF_METRIC, isLevelKey } from "@/lib/analysis/request-cdf";
import { DEFAULT_SLO_STAT } from "@/lib/analysis/slo";
import { db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { notFoundError } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { randomId } from "@/lib/random-id";
import { capacityParams, parseCapacityView, storedCapacityParams } from "./capacity-view";
import type { StoredComparisonView } from "./schema";

/** Short, URL-safe and unguessable: 8 base64url characters (~47.9 random bits), the first a letter or digit. */
export function newSlug(): string {
  return randomId(8);
}

export function comparisonUrl(slug: string): string {
  return `/c/${slug}`;
}

/** What a save stores: the view and its title. */
export interface NewComparison extends StoredComparisonView {
  title: string;
}

/** A saved comparison as the API answers it. */
export interface SavedComparison extends NewComparison {
  slug: string;
  url: string;
  created_at: string;
}

/** The list's entries: what the /comparisons page and GET /api/comparisons show of each. */
export type SavedComparisonSummary = Pick<SavedComparison, "slug" | "url" | "title" | "notes" | "runs" | "created_at">;

type ComparisonRow = Prisma.ComparisonGetPayload<object>;

/** The view a comparison row stores beside its runs and baseline. */
function viewJsonOf(view: Omit<StoredComparisonView, "notes" | "runs" | "baseline">): string {
  return JSON.stringify({
    noisePct: view.noise,
    hidden: view.hide,
    stat: view.stat,
    logY: view.log_y,
    slo: view.slo,
    price: view.price,
    atUser: view.at_user,
    cdfLevel: view.cdf_level,
    cdfMetric: view.cdf_metric,
    capacity: view.capacity,
  });
}

interface StoredView {
  noisePct?: unknown;
  hidden?: unknown;
  stat?: unknown;
  logY?: unknown;
  slo?: { ttft_ms?: unknown; tpot_ms?: unknown; stat?: unknown };
  price?: unknown;
  atUser?: unknown;
  cdfLevel?: unknown;
  cdfMetric?: unknown;
  capacity?: unknown;
}

const numberOrNull = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null);
const statOr = (value: unknown, fallback: CompareStat) =>
  COMPARE_STATS.includes(value as CompareStat) ? (value as CompareStat) : fallback;

function parseRunIds(text: string): string[] {
  const value = JSON.parse(text) as unknown;
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : [];
}

function rowToComparison(row: ComparisonRow): SavedComparison {
  const view = JSON.parse(row.viewJson) as StoredView;
  const noise = numberOrNull(view.noisePct);
  return {
    slug: row.slug,
    url: comparisonUrl(row.slug),
    title: row.title,
    notes: row.notes,
    runs: parseRunIds(row.runIdsJson),
    baseline: row.baselineId,
    noise,
    hide: Array.isArray(view.hidden) ? view.hidden.filter((id): id is string => typeof id === "string") : [],
    stat: statOr(view.stat, "mean"),
    log_y: view.logY === true,
    slo: {
      ttft_ms: numberOrNull(view.slo?.ttft_ms),
      tpot_ms: numberOrNull(view.slo?.tpot_ms),
      stat: statOr(view.slo?.stat, DEFAULT_SLO_STAT),
    },
    price: typeof view.price === "string" ? view.price : "",
    at_user: numberOrNull(view.atUser),
    cdf_level: typeof view.cdfLevel === "string" && isLevelKey(view.cdfLevel) ? view.cdfLevel : null,
    cdf_metric: CDF_METRICS.includes(view.cdfMetric as CdfMetric) ? (view.cdfMetric as CdfMetric) : DEFAULT_CDF_METRIC,
    capacity: capacityParams(parseCapacityView(storedCapacityParams(view.capacity))),
    created_at: row.createdAt.toISOString(),
  };
}

export interface CreateComparisonOptions {
  /** For tests: a fixed creation time. */
  createdAt?: Date;
}

/** Store a comparison under a new slug; the primary key guards against the (unlikely) reuse of a slug. */
export async function createComparison(
  input: NewComparison,
  options: CreateComparisonOptions = {},
): Promise<SavedComparison> {
  const data = {
    title: input.title,
    notes: input.notes,
    runIdsJson: JSON.stringify(input.runs),
    baselineId: input.baseline,
    viewJson: viewJsonOf(input),
    createdAt: options.createdAt ?? new Date(),
  };
  for (let attempt = 1; ; attempt += 1) {
    try {
      return rowToComparison(await db().comparison.create({ data: { slug: newSlug(), ...data } }));
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 5) throw error;
    }
  }
}

export async function getComparisonOrThrow(slug: string): Promise<SavedComparison> {
  const row = await db().comparison.findUnique({ where: { slug } });
  if (!row) throw notFoundError(`Saved comparison "${slug}"`);
  return rowToComparison(row);
}

/** Newest first. */
export async function listComparisons(query: {
  page: number;
  per_page: number;
}): Promise<{ comparisons: SavedComparisonSummary[]; total: number }> {
  const [rows, total] = await Promise.all([
    db().comparison.findMany({
      orderBy: [{ createdAt: "desc" }, { slug: "asc" }],
      skip: (query.page - 1) * query.per_page,
      take: query.per_page,
    }),
    db().comparison.count(),
  ]);
  return {
    comparisons: rows.map((row) => {
      const { slug, url, title, notes, runs, created_at } = rowToComparison(row);
      return { slug, url, title, notes, runs, created_at };
    }),
    total,
  };
}

export async function deleteComparisonOrThrow(slug: string): Promise<void> {
  const result = await db().comparison.deleteMany({ where: { slug } });
  if (result.count === 0) throw notFoundError(`Saved comparison "${slug}"`);
}

export interface ComparisonToRestore {
  line: number;
  comparison: Omit<SavedComparison, "url">;
}

export interface RestoredComparison {
  line: number;
  slug: string;
  status: "stored" | "already_present" | "refused";
  error?: { code: string; message: string };
}

function sameComparison(a: Omit<SavedComparison, "url">, b: Omit<SavedComparison, "url">): boolean {
  const { created_at: _a, ...left } = a;
  const { created_at: _b, ...right } = b;
  return JSON.stringify(left, Object.keys(left).sort()) === JSON.stringify(right, Object.keys(right).sort());
}

/**
 * Store an export's saved comparisons under their slugs, so every /c/<slug> link works again. A slug already
 * here is left alone: reported present when it holds the same comparison, refused when it holds another.
 * Runs a comparison names need not exist (a run deleted after it was saved stays listed, as on the page).
 */
export async function restoreComparisons(entries: readonly ComparisonToRestore[]): Promise<RestoredComparison[]> {
  const results: RestoredComparison[] = [];
  for (const { line, comparison } of entries) {
    const existing = await db().comparison.findUnique({ where: { slug: comparison.slug } });
    if (existing) {
      const { url: _url, ...stored } = rowToComparison(existing);
      results.push(
        sameComparison(stored, comparison)
          ? { line, slug: comparison.slug, status: "already_present" }
          : {
              line,
              slug: comparison.slug,
              status: "refused",
              error: {
                code: "slug_taken",
                message: `Another saved comparison already has the link /c/${comparison.slug} here; it was left as it is.`,
              },
            },
      );
      continue;
    }
    try {
      await db().comparison.create({
        data: {
          slug: comparison.slug,
          title: comparison.title,
          notes: comparison.notes,
          runIdsJson: JSON.stringify(comparison.runs),
          baselineId: comparison.baseline,
          // The whole view: a restore keeps the log axis, SLO, prices, interactivity and capacity it was saved with.
          viewJson: viewJsonOf(comparison),
          createdAt: new Date(comparison.created_at),
        },
      });
      results.push({ line, slug: comparison.slug, status: "stored" });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      results.push({
        line,
        slug: comparison.slug,
        status: "refused",
        error: { code: "slug_taken", message: `Another saved comparison took /c/${comparison.slug} while restoring.` },
      });
    }
  }
  return results;
}

/** Every saved comparison, oldest first, a page at a time. */
export async function* allComparisons(pageSize = 200): AsyncGenerator<SavedComparison> {
  let cursor: { createdAt: Date; slug: string } | null = null;
  for (;;) {
    const rows: ComparisonRow[] = await db().comparison.findMany({
      where: cursor
        ? { OR: [{ createdAt: { gt: cursor.createdAt } }, { createdAt: cursor.createdAt, slug: { gt: cursor.slug } }] }
        : {},
      orderBy: [{ createdAt: "asc" }, { slug: "asc" }],
      take: pageSize,
    });
    for (const row of rows) yield rowToComparison(row);
    const last = rows[rows.length - 1];
    if (!last || rows.length < pageSize) return;
    cursor = { createdAt: last.createdAt, slug: last.slug };
  }
}

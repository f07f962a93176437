/**
 * `servebench db copy --from <DATABASE_URL> --to <DATABASE_URL>`: move a whole history from one database to
 * another (SQLite → PostgreSQL, or back, or between two of a kind). The destination is created or upgraded by the
 * real migrations and must hold no runs or comparisons. Every row of every table is copied as it is, a page at a
 * time: ids, slugs, upload and edit times, point ids. Then both sides are verified by the row count and a SHA-256
 * of each table's rows read back in key order; any difference is an error. The run total and the search index of
 * the destination are kept by its own triggers.
 */
import { createHash } from "node:crypto";
import { openDatabase } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { databaseTarget, describeDatabase, redactedDatabaseUrl } from "@/lib/env";
import { Prisma, type PrismaClient } from "@/lib/generated/prisma/client";
import { DB_USAGE } from "./db-usage";

type Row = Record<string, unknown>;

interface TableCopy {
  model: Prisma.ModelName;
  /** Orders a page and continues after its last row: the table's primary key. */
  key: string[];
  read(client: PrismaClient, after: Row | null, take: number): Promise<Row[]>;
  write(client: PrismaClient, rows: Row[]): Promise<unknown>;
  count(client: PrismaClient): Promise<number>;
}

function afterKey(key: string[], last: Row | null): Row {
  if (!last) return {};
  if (key.length === 1) return { [key[0]!]: { gt: last[key[0]!] } };
  const [first, second] = key as [string, string];
  return { OR: [{ [first]: { gt: last[first] } }, { [first]: last[first], [second]: { gt: last[second] } }] };
}

const orderOf = (key: string[]) => key.map((field) => ({ [field]: "asc" as const }));

/** Parents before children. A model missing here (or in NOT_COPIED) stops the copy: nothing is left behind. */
export const TABLES: TableCopy[] = [
  {
    model: "Series",
    key: ["id"],
    read: (c, after, take) => c.series.findMany({ where: afterKey(["id"], after), orderBy: orderOf(["id"]), take }),
    write: (c, rows) => c.series.createMany({ data: rows as Prisma.SeriesCreateManyInput[] }),
    count: (c) => c.series.count(),
  },
  {
    model: "Run",
    key: ["id"],
    read: (c, after, take) => c.run.findMany({ where: afterKey(["id"], after), orderBy: orderOf(["id"]), take }),
    write: (c, rows) => c.run.createMany({ data: rows as Prisma.RunCreateManyInput[] }),
    count: (c) => c.run.count(),
  },
  {
    model: "ResultPoint",
    key: ["id"],
    read: (c, after, take) =>
      c.resultPoint.findMany({ where: afterKey(["id"], after), orderBy: orderOf(["id"]), take }),
    write: (c, rows) => c.resultPoint.createMany({ data: rows as Prisma.ResultPointCreateManyInput[] }),
    count: (c) => c.resultPoint.count(),
  },
  {
    model: "RunTag",
    key: ["runId", "tag"],
    read: (c, after, take) =>
      c.runTag.findMany({ where: afterKey(["runId", "tag"], after), orderBy: orderOf(["runId", "tag"]), take }),
    write: (c, rows) => c.runTag.createMany({ data: rows as Prisma.RunTagCreateManyInput[] }),
    count: (c) => c.runTag.count(),
  },
  {
    model: "Comparison",
    key: ["slug"],
    read: (c, after, take) =>
      c.comparison.findMany({ where: afterKey(["slug"], after), orderBy: orderOf(["slug"]), take }),
    write: (c, rows) => c.comparison.createMany({ data: rows as Prisma.ComparisonCreateManyInput[] }),
    count: (c) => c.comparison.count(),
  },
  {
    model: "SeriesChange",
    key: ["id"],
    read: (c, after, take) =>
      c.seriesChange.findMany({ where: afterKey(["id"], after), orderBy: orderOf(["id"]), take }),
    write: (c, rows) => c.seriesChange.createMany({ data: rows as Prisma.SeriesChangeCreateManyInput[] }),
    count: (c) => c.seriesChange.count(),
  },
  {
    model: "SeriesChangeRun",
    key: ["changeId", "runId"],
    read: (c, after, take) =>
      c.seriesChangeRun.findMany({
        where: afterKey(["changeId", "runId"], after),
        orderBy: orderOf(["changeId", "runId"]),
        take,
      }),
    write: (c, rows) => c.seriesChangeRun.createMany({ data: rows as Prisma.SeriesChangeRunCreateManyInput[] }),
    count: (c) => c.seriesChangeRun.count(),
  },
  {
    model: "SeriesAnnotation",
    key: ["id"],
    read: (c, after, take) =>
      c.seriesAnnotation.findMany({ where: afterKey(["id"], after), orderBy: orderOf(["id"]), take }),
    write: (c, rows) => c.seriesAnnotation.createMany({ data: rows as Prisma.SeriesAnnotationCreateManyInput[] }),
    count: (c) => c.seriesAnnotation.count(),
  },
  {
    model: "WebhookDelivery",
    key: ["id"],
    read: (c, after, take) =>
      c.webhookDelivery.findMany({ where: afterKey(["id"], after), orderBy: orderOf(["id"]), take }),
    write: (c, rows) => c.webhookDelivery.createMany({ data: rows as Prisma.WebhookDeliveryCreateManyInput[] }),
    count: (c) => c.webhookDelivery.count(),
  },
  {
    model: "WebhookAttempt",
    key: ["id"],
    read: (c, after, take) =>
      c.webhookAttempt.findMany({ where: afterKey(["id"], after), orderBy: orderOf(["id"]), take }),
    write: (c, rows) => c.webhookAttempt.createMany({ data: rows as Prisma.WebhookAttemptCreateManyInput[] }),
    count: (c) => c.webhookAttempt.count(),
  },
];

/** Tables whose ids PostgreSQL numbers from a sequence, which explicit ids do not move. */
const SERIAL_TABLES = ["ResultPoint", "WebhookDelivery", "WebhookAttempt"] as const;

/**
 * Not copied: RunTotal is kept by the destination's own triggers; restore jobs are work in flight on the source
 * (their parts are the export being restored there), and what they stored is copied with the runs. A restore
 * still running is posted again to the destination.
 */
export const NOT_COPIED: Prisma.ModelName[] = ["RunTotal", "RestoreJob", "RestoreJobPart"];

/** Models that db copy would leave behind: must be empty (tests/unit holds the list to the models). */
export function uncoveredModels(): string[] {
  const covered = new Set<string>([...TABLES.map((table) => table.model), ...NOT_COPIED]);
  return Object.values(Prisma.ModelName).filter((model) => !covered.has(model));
}

const PAGE = 1_000;

/** A row as text that reads the same from either database: keys sorted, dates as ISO, numbers as JSON. */
function canonicalRow(row: Row): string {
  return JSON.stringify(
    Object.keys(row)
      .sort()
      .map((key) => {
        const value = row[key];
        return [key, value instanceof Date ? value.toISOString() : value];
      }),
  );
}

async function checksum(client: PrismaClient, table: TableCopy): Promise<{ rows: number; sha256: string }> {
  const hash = createHash("sha256");
  let rows = 0;
  let last: Row | null = null;
  for (;;) {
    const page = await table.read(client, last, PAGE);
    for (const row of page) hash.update(`${canonicalRow(row)}\n`);
    rows += page.length;
    if (page.length < PAGE) break;
    last = page[page.length - 1]!;
  }
  return { rows, sha256: hash.digest("hex") };
}

export interface CopyReport {
  tables: { model: string; rows: number; sha256: string }[];
}

export async function copyDatabase(
  fromUrl: string,
  toUrl: string,
  progress: (line: string) => void = () => {},
): Promise<CopyReport> {
  const from = databaseTarget(fromUrl);
  const to = databaseTarget(toUrl);
  if (from.url === to.url || (from.provider === "sqlite" && to.provider === "sqlite" && from.file === to.file)) {
    throw new Error("--from and --to name the same database");
  }
  const missing = uncoveredModels();
  if (missing.length > 0) throw new Error(`db copy does not know the table(s) ${missing.join(", ")} yet`);
  // The source must be at least migrated as far as the code: read it as the app would.
  const sourceMigration = await migrate(from);
  if (sourceMigration.applied.length > 0)
    progress(`upgraded the source: applied ${sourceMigration.applied.join(", ")}`);
  const destinationMigration = await migrate(to);
  if (destinationMigration.applied.length > 0) {
    progress(`created the destination's tables: applied ${destinationMigration.applied.join(", ")}`);
  }
  const source = openDatabase(from);
  const destination = openDatabase(to);
  try {
    for (const table of TABLES) {
      const existing = await table.count(destination);
      if (existing > 0) {
        throw new Error(
          `The destination ${describeDatabase(to)} already holds ${existing} ${table.model} row(s): db copy fills an empty database only`,
        );
      }
    }
    for (const table of TABLES) {
      let copied = 0;
      let last: Row | null = null;
      for (;;) {
        const page = await table.read(source, last, PAGE);
        if (page.length > 0) await table.write(destination, page);
        copied += page.length;
        if (page.length < PAGE) break;
        last = page[page.length - 1]!;
        if (copied % 50_000 === 0) progress(`${table.model}: ${copied} rows…`);
      }
      progress(`${table.model}: copied ${copied} rows`);
    }
    if (to.provider === "postgresql") {
      // Explicit ids do not move PostgreSQL's sequences: the next row stored would collide without this.
      for (const serial of SERIAL_TABLES) {
        await destination.$executeRawUnsafe(
          `SELECT setval(pg_get_serial_sequence('"${serial}"', 'id'), COALESCE((SELECT max("id") FROM "${serial}"), 0) + 1, false)`,
        );
      }
    }
    const report: CopyReport = { tables: [] };
    for (const table of TABLES) {
      const [a, b] = await Promise.all([checksum(source, table), checksum(destination, table)]);
      if (a.rows !== b.rows || a.sha256 !== b.sha256) {
        throw new Error(
          `Verification failed for ${table.model}: the source has ${a.rows} rows (sha256 ${a.sha256}), the destination ${b.rows} (sha256 ${b.sha256})`,
        );
      }
      report.tables.push({ model: table.model, ...a });
    }
    const [sourceTotal, destinationTotal] = await Promise.all(
      [source, destination].map(async (client) => (await client.runTotal.findUnique({ where: { id: 1 } }))?.runs ?? 0),
    );
    if (sourceTotal !== destinationTotal) {
      throw new Error(
        `Verification failed: the run total reads ${sourceTotal} at the source, ${destinationTotal} at the destination`,
      );
    }
    return report;
  } finally {
    await Promise.all([source.$disconnect(), destination.$disconnect()]);
  }
}

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  if (index >= 0) return args[index + 1];
  const inline = args.find((arg) => arg.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

export async function runDb(args: string[]): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand !== "copy" || rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`${DB_USAGE}\n`);
    return subcommand === "copy" ? 0 : 2;
  }
  const fromUrl = option(rest, "--from");
  const toUrl = option(rest, "--to");
  if (!fromUrl || !toUrl) {
    process.stderr.write(`servebench db copy: --from and --to are both needed\n\n${DB_USAGE}\n`);
    return 2;
  }
  const started = performance.now();
  process.stdout.write(`Copying ${redactedDatabaseUrl(fromUrl)} → ${redactedDatabaseUrl(toUrl)}\n`);
  const report = await copyDatabase(fromUrl, toUrl, (line) => process.stdout.write(`  ${line}\n`));
  for (const table of report.tables) {
    process.stdout.write(
      `  verified ${table.model}: ${table.rows} rows, sha256 ${table.sha256.slice(0, 16)}… on both\n`,
    );
  }
  process.stdout.write(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s: counts and checksums match.\n`);
  return 0;
}

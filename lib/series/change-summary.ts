/** A stored change of a series as the API and the pages show it. */
import type { Prisma } from "@/lib/generated/prisma/client";
import { parseMetricKey } from "./metrics";

export interface ChangeSummary {
  id: string;
  url: string;
  metric: string;
  label: string;
  unit: string;
  kind: string;
  status: string;
  direction: string;
  before: number;
  after: number;
  change_pct: number;
  violations: number;
  active: boolean;
  /** The first bad run. */
  start_run_id: string;
  /** The last good run before it; null when the change starts the series. */
  last_good_run_id: string | null;
  detected_at: string;
}

/** The series of a run and the changes it is part of, for its page (changesOfRun, alerts.ts). */
export interface RunChanges {
  series: { id: string; name: string; url: string } | null;
  changes: ChangeSummary[];
}

export type ChangeRow = Prisma.SeriesChangeGetPayload<object>;

export function changeSummary(row: ChangeRow, seriesId: string): ChangeSummary {
  const metric = parseMetricKey(row.metric);
  return {
    id: row.id,
    url: `/series/${seriesId}#change-${row.id}`,
    metric: row.metric,
    label: metric?.label ?? row.metric,
    unit: metric?.unit ?? "",
    kind: row.kind,
    status: row.status,
    direction: row.direction,
    before: row.before,
    after: row.after,
    change_pct: row.changePct,
    violations: row.violations,
    active: row.active,
    start_run_id: row.startRunId,
    last_good_run_id: row.lastGoodRunId,
    detected_at: row.detectedAt.toISOString(),
  };
}

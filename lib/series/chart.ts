/**
 * The series page's chart, prepared: one row per point (a repeat group, or with x by engine version one row
 * per version), the band of its repeats, its status, and marks for changes and expected-change annotations.
 * Pure, so the drawing component only draws.
 */
import type { SeriesView } from "./queries";

export type SeriesAxis = "date" | "version";

export interface SeriesChartRow {
  x: number;
  /** The run the point links to (the newest of its group). */
  run_id: string;
  label: string;
  value: number;
  /** Lowest and highest repeat; null for a point of one run. */
  band: [number, number] | null;
  status: string;
  runs: number;
  what_changed: string[];
  engine_version: string | null;
  git_commit: string | null;
}

export interface SeriesChartMark {
  x: number;
  kind: "suspicious" | "regression" | "improvement" | "expected";
  label: string;
}

export interface SeriesChart {
  axis: SeriesAxis;
  rows: SeriesChartRow[];
  marks: SeriesChartMark[];
  /** With x by version: the tick labels, by x. */
  versions: string[];
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

export function seriesChart(view: SeriesView, metricKey: string, axis: SeriesAxis): SeriesChart {
  const judgements = view.judgements[metricKey];
  const byGroup = new Map<string, SeriesView["points"]>();
  for (const point of view.points) {
    if (point.values[metricKey] == null) continue;
    const members = byGroup.get(point.group) ?? [];
    members.push(point);
    byGroup.set(point.group, members);
  }
  const statusOf = new Map((judgements ?? []).map((judgement) => [judgement.group, judgement.status]));
  const groups = [...byGroup.entries()].map(([group, members]) => {
    const values = members.map((member) => member.values[metricKey]!);
    const last = members[members.length - 1]!;
    return {
      group,
      first: members[0]!,
      last,
      values,
      status: statusOf.get(group) ?? "unjudged",
      what_changed: members[0]!.what_changed,
    };
  });

  const runX = new Map<string, number>();
  let rows: SeriesChartRow[];
  const versions: string[] = [];
  if (axis === "date") {
    rows = groups.map((group) => {
      const x = new Date(group.first.at).getTime();
      for (const member of byGroup.get(group.group)!) runX.set(member.run_id, x);
      return {
        x,
        run_id: group.last.run_id,
        label: group.first.name,
        value: mean(group.values),
        band: group.values.length > 1 ? [Math.min(...group.values), Math.max(...group.values)] : null,
        status: group.status,
        runs: group.values.length,
        what_changed: group.what_changed,
        engine_version: group.first.engine_version,
        git_commit: group.first.git_commit,
      };
    });
  } else {
    const byVersion = new Map<string, typeof groups>();
    for (const group of groups) {
      const version = group.first.engine_version ?? "unknown version";
      if (!byVersion.has(version)) versions.push(version);
      byVersion.set(version, [...(byVersion.get(version) ?? []), group]);
    }
    rows = versions.map((version, x) => {
      const members = byVersion.get(version)!;
      const values = members.flatMap((member) => member.values);
      for (const member of members) for (const point of byGroup.get(member.group)!) runX.set(point.run_id, x);
      const statuses = members.map((member) => member.status);
      return {
        x,
        run_id: members[members.length - 1]!.last.run_id,
        label: version,
        value: mean(values),
        band: values.length > 1 ? [Math.min(...values), Math.max(...values)] : null,
        status: statuses.includes("worse")
          ? "worse"
          : statuses.includes("better")
            ? "better"
            : (statuses.at(-1) ?? "unjudged"),
        runs: values.length,
        what_changed: members[0]!.what_changed,
        engine_version: version,
        git_commit: null,
      };
    });
  }

  const marks: SeriesChartMark[] = [];
  for (const change of view.changes) {
    if (change.metric !== metricKey) continue;
    const x = runX.get(change.start_run_id);
    if (x === undefined) continue;
    const kind = change.status === "expected" ? "expected" : (change.kind as SeriesChartMark["kind"]);
    const pct = `${change.change_pct > 0 ? "+" : ""}${change.change_pct.toFixed(1)}%`;
    marks.push({ x, kind, label: `${kind} ${pct}` });
  }
  for (const annotation of view.annotations) {
    if (annotation.change_id) continue;
    const x = runX.get(annotation.run_id);
    if (x !== undefined)
      marks.push({ x, kind: "expected", label: annotation.note ? `expected: ${annotation.note}` : "expected" });
  }
  return { axis, rows, marks, versions };
}

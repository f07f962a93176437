/**
 * Who broke it: a change's last good and first bad run, what changed between them (configuration, versions, the
 * engine commit range), where to bisect, and the link that compares the two. The same range whatever night the
 * change is looked at from: on its third bad night "what changed" still reads last good → first bad, not the
 * difference between two bad nights.
 */
import type { CulpritRange, CulpritRun } from "@/lib/webhooks/payload";
import type { SeriesRun } from "./load";
import { whatChanged } from "./what-changed";

function culpritRun(run: SeriesRun, base: string): CulpritRun {
  return { id: run.id, url: `${base}/runs/${run.id}`, name: run.name, git_commit: run.git_commit };
}

const shortCommit = (commit: string) => commit.slice(0, 12);

/**
 * Where to bisect. Runs between the two (a night that lacked the figure, a suspicious one) at other commits narrow
 * the range: the one halfway between is the first to measure again. Without them, the commits of the two runs are
 * the range to bisect in the engine's history. Null when the runs carry no commits.
 */
export function bisectAdvice(
  lastGood: SeriesRun | null,
  firstBad: SeriesRun,
  between: readonly SeriesRun[],
): string | null {
  if (!lastGood?.git_commit || !firstBad.git_commit) return null;
  if (lastGood.git_commit === firstBad.git_commit)
    return `last good and first bad ran the same commit ${shortCommit(firstBad.git_commit)}: the change is not in the code`;
  const commits = [
    ...new Set(
      between
        .map((run) => run.git_commit)
        .filter(
          (commit): commit is string =>
            commit !== null && commit !== lastGood.git_commit && commit !== firstBad.git_commit,
        ),
    ),
  ];
  if (commits.length > 0) {
    const midpoint = commits[Math.floor((commits.length - 1) / 2)]!;
    const run = between.find((candidate) => candidate.git_commit === midpoint)!;
    return `bisect midpoint: ${run.name} at commit ${shortCommit(midpoint)} (halfway between ${shortCommit(lastGood.git_commit)} and ${shortCommit(firstBad.git_commit)})`;
  }
  return `bisect between commits ${shortCommit(lastGood.git_commit)} and ${shortCommit(firstBad.git_commit)}`;
}

/** The culprit range of a change, from the series' runs in time order; null when its first bad run is not among them. */
export function culpritRange(
  runs: readonly SeriesRun[],
  lastGoodRunId: string | null,
  firstBadRunId: string,
  base = "",
): CulpritRange | null {
  const badIndex = runs.findIndex((run) => run.id === firstBadRunId);
  if (badIndex < 0) return null;
  const firstBad = runs[badIndex]!;
  const goodIndex = lastGoodRunId === null ? -1 : runs.findIndex((run) => run.id === lastGoodRunId);
  const lastGood = goodIndex >= 0 && goodIndex < badIndex ? runs[goodIndex]! : null;
  const between = lastGood ? runs.slice(goodIndex + 1, badIndex) : [];
  return {
    last_good: lastGood ? culpritRun(lastGood, base) : null,
    first_bad: culpritRun(firstBad, base),
    what_changed: lastGood ? whatChanged(lastGood.row, firstBad.row) : [],
    bisect: bisectAdvice(lastGood, firstBad, between),
    compare_url: lastGood
      ? `${base}/compare?runs=${encodeURIComponent(lastGood.id)},${encodeURIComponent(firstBad.id)}`
      : null,
  };
}

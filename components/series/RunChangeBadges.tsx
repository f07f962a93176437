/** In the history: a run that is part of a regression (or another detected change) says so, linking to it. */
import Link from "next/link";
import { ownValue } from "@/lib/own-value";

export interface ChangeBadge {
  kind: string;
  status: string;
  url: string;
}

const STYLE: Record<string, string> = {
  regression: "bg-red-100 text-red-800 dark:bg-red-900/40 dark:text-red-300",
  suspicious: "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-300",
  improvement: "bg-green-100 text-green-800 dark:bg-green-900/40 dark:text-green-300",
};

export function RunChangeBadges({ badges, seriesId }: { badges: ChangeBadge[] | undefined; seriesId: string | null }) {
  if (!badges || badges.length === 0) return null;
  // One badge per kind: a step seen in three figures is still one thing to look at.
  const shown = [...new Map(badges.filter((badge) => badge.status !== "expected").map((b) => [b.kind, b])).values()];
  return (
    <>
      {shown.map((badge) => (
        <Link
          key={badge.kind}
          href={badge.url}
          className={`ml-2 inline-block rounded-full px-2 py-0.5 text-xs font-medium ${ownValue(STYLE, badge.kind) ?? ""}`}
          data-testid="run-change-badge"
          title={seriesId ? "Open the series" : undefined}
        >
          {badge.kind}
        </Link>
      ))}
    </>
  );
}

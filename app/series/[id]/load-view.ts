/** What the series page and its embed both read from their URL: the series at a load level, for one figure. */
import { notFound } from "next/navigation";
import { AppError } from "@/lib/errors";
import { getSeriesViewOrThrow, type SeriesView } from "@/lib/series/queries";

export function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The series' view (a 404 page when it does not exist); a malformed level falls back to the series' own. */
export async function loadView(id: string, level: string | undefined, metric: string | undefined): Promise<SeriesView> {
  try {
    return await getSeriesViewOrThrow(id, {
      level: level && /^(c:\d+|r:(inf|[\d.]+))$/.test(level) ? level : undefined,
      // The page draws one figure: only its judgement is needed (the first figure when none is asked for).
      onlyMetric: metric ?? "",
    });
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  }
}

"use client";

/**
 * The bar the upload page shows while a preview or a save is on its way: how much of the files is sent, then an
 * indeterminate bar while the server reads or stores them, and how many files of what size they are.
 */
import { useEffect, useState } from "react";
import { describeFiles, percentSent, progressAnnouncement, progressLabel, type UploadProgress } from "./progress";

/** Requests answered sooner than this show no bar. */
const SHOW_AFTER_MS = 300;

/**
 * Is the bar of this request to be shown yet? Only once the request has taken SHOW_AFTER_MS, so a quick re-check
 * after an edit does not flash it.
 */
export function useProgressShown(progress: UploadProgress | null): boolean {
  const request = progress?.request ?? null;
  const [shownFor, setShownFor] = useState<number | null>(null);
  useEffect(() => {
    if (request === null) return;
    const timer = setTimeout(() => setShownFor(request), SHOW_AFTER_MS);
    return () => clearTimeout(timer);
  }, [request]);
  return request !== null && shownFor === request;
}

/** What a live region says while the bar shows (a stage at a time; the running figures are not read out). */
export function progressStatus(progress: UploadProgress | null, shown: boolean): string {
  return progress && shown ? progressAnnouncement(progress) : "";
}

export function UploadProgressBar({ progress, className = "" }: { progress: UploadProgress; className?: string }) {
  const { stage } = progress;
  const percent = stage.phase === "sending" ? percentSent(stage.fraction ?? 0) : stage.phase === "opening" ? 100 : null;
  const label = progressLabel(progress);
  const labelId = `upload-progress-label-${progress.mode}`;
  return (
    <div
      className={`w-full rounded-md border border-zinc-200 bg-zinc-50 p-3 text-left text-sm dark:border-zinc-800 dark:bg-zinc-900 ${className}`}
      data-testid="upload-progress"
      data-phase={stage.phase}
      data-mode={progress.mode}
    >
      <span
        id={labelId}
        className="block font-medium text-zinc-900 tabular-nums dark:text-zinc-100"
        data-testid="upload-progress-label"
      >
        {label}
      </span>
      <div
        role="progressbar"
        aria-labelledby={labelId}
        aria-valuemin={0}
        aria-valuemax={100}
        // Indeterminate (no value) while the server works: how long it takes is not known.
        aria-valuenow={percent ?? undefined}
        aria-valuetext={label}
        className="mt-2 h-2 w-full overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-700"
        data-testid="upload-progress-bar"
      >
        {percent === null ? (
          <div className="nav-progress h-full w-1/3 rounded-full bg-blue-600 dark:bg-blue-400" />
        ) : (
          <div
            className="h-full rounded-full bg-blue-600 transition-[width] duration-200 dark:bg-blue-400"
            style={{ width: `${percent}%` }}
          />
        )}
      </div>
      {/* Under the bar, on a line of its own: the box keeps its height from one stage to the next at any width. */}
      <span
        className="mt-1.5 block text-xs text-zinc-600 tabular-nums dark:text-zinc-400"
        data-testid="upload-progress-files"
      >
        {describeFiles(progress.files, progress.bytes)}
      </span>
    </div>
  );
}

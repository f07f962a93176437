/**
 * What the upload page says while a preview or a save is on its way: the bytes going up, then the server reading
 * (a preview) or storing (a save), then, after a save, the page it opens.
 */

export type UploadStage =
  /** The request body is going up: `fraction` of it is sent (null until the browser says). */
  | { phase: "sending"; fraction: number | null }
  /** All sent: the server is reading the files, or storing the runs. */
  | { phase: "server" }
  /** Saved: the page of the new run (or the comparison of the new runs) is being opened. */
  | { phase: "opening"; runs: number };

export interface UploadProgress {
  /** The request this is the progress of (the form's `latest` counter). */
  request: number;
  mode: "preview" | "save";
  /**
   * Where the page shows it: where the person's eyes are. Under the drop zone for the preview of files just chosen,
   * above the preview for a re-check after an edit (so the fields being typed in do not move), by Save for a save.
   */
  place: "chosen" | "preview" | "save";
  files: number;
  /** The files' bytes, together. */
  bytes: number;
  /** Runs the save will store, as the preview said (1 when it said nothing). */
  runs: number;
  stage: UploadStage;
}

const UNITS = [
  { unit: "GB", size: 1e9 },
  { unit: "MB", size: 1e6 },
  { unit: "kB", size: 1e3 },
] as const;

function unitOf(bytes: number): { unit: string; size: number } {
  return UNITS.find((candidate) => bytes >= candidate.size) ?? { unit: "bytes", size: 1 };
}

const ONE_DECIMAL = new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const WHOLE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

function inUnit(bytes: number, size: number): string {
  return size === 1 ? WHOLE.format(bytes) : ONE_DECIMAL.format(bytes / size);
}

/** A size in decimal units, one decimal: 812 bytes · 104.5 kB · 45.6 MB · 1.2 GB. */
export function formatBytes(bytes: number): string {
  const { unit, size } = unitOf(bytes);
  return `${inUnit(bytes, size)} ${unit}`;
}

/** Part of a size in the unit of the whole, so the two read together: "12.3 of 45.6 MB". */
export function formatBytesOf(part: number, whole: number): string {
  const { unit, size } = unitOf(whole);
  return `${inUnit(Math.min(part, whole), size)} of ${inUnit(whole, size)} ${unit}`;
}

/** "100 files, 45.6 MB". */
export function describeFiles(files: number, bytes: number): string {
  return `${WHOLE.format(files)} ${files === 1 ? "file" : "files"}, ${formatBytes(bytes)}`;
}

/** Whole percent sent, never 100 before all of it is. */
export function percentSent(fraction: number): number {
  return Math.min(100, Math.max(0, Math.floor(fraction * 100)));
}

/** The line beside the bar. */
export function progressLabel(progress: UploadProgress): string {
  const { stage } = progress;
  if (stage.phase === "sending") {
    const fraction = stage.fraction ?? 0;
    return `Sending ${formatBytesOf(fraction * progress.bytes, progress.bytes)} (${percentSent(fraction)}%)`;
  }
  if (stage.phase === "server") {
    if (progress.mode === "preview")
      return `Reading ${WHOLE.format(progress.files)} ${progress.files === 1 ? "file" : "files"}…`;
    return progress.runs > 1 ? `Storing ${WHOLE.format(progress.runs)} runs…` : "Storing the run…";
  }
  return stage.runs > 1 ? "Saved. Opening the comparison…" : "Saved. Opening the run…";
}

/** What a screen reader is told, once per stage (the running figures would be read out at every step). */
export function progressAnnouncement(progress: UploadProgress): string {
  if (progress.stage.phase === "sending")
    return `Sending ${describeFiles(progress.files, progress.bytes)}${progress.mode === "save" ? " to save" : ""}.`;
  return progressLabel(progress);
}

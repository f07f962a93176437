/**
 * Next.js calls register() once when the server starts: restore jobs a stopped server left are resumed then,
 * not only when someone next asks after them (lib/backup/restore-jobs.ts).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startRestoreJobSweeps } = await import("./lib/backup/restore-jobs");
  startRestoreJobSweeps();
}

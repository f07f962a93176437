import { inject } from "vitest";

/**
 * The address of this worker's own `next start` (tests/e2e/global-setup.ts). Vitest numbers the workers running at
 * once 1…maxWorkers (`VITEST_POOL_ID`), so two files running side by side never get the same server.
 */
export function workerServerUrl(): string {
  const urls = inject("baseUrls");
  const poolId = Number(process.env.VITEST_POOL_ID ?? "1");
  const url = urls[poolId - 1];
  if (!url) throw new Error(`no e2e server for worker ${poolId} (of ${urls.length})`);
  return url;
}

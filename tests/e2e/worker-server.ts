import { afterAll, inject } from "vitest";
import { leaseServer } from "../support/server-lease";

/** How long a file waits for a server while every one is held: the e2e guard, as long as a file's test may take. */
const LEASE_GUARD_MS = 600_000;

/**
 * The address of a `next start` this test file has to itself (tests/e2e/global-setup.ts starts one per e2e
 * worker): taken by a lease when the file loads, given back after its last hook. Two files running side by side
 * never share a server, so one may delete every run of its server while the other runs.
 */
export function workerServerUrl(): string {
  const urls = inject("baseUrls");
  const lease = leaseServer(inject("serverLeaseDir"), urls.length, LEASE_GUARD_MS);
  // Registered before the file's own hooks: after-all hooks run in reverse order, so this one runs last.
  afterAll(() => lease.release());
  process.once("exit", () => lease.release());
  return urls[lease.index]!;
}

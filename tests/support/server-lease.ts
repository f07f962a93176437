/**
 * Leases on the e2e servers: a test file takes one server for itself by creating its lease file exclusively (the
 * file holds the process id), and gives it back by removing it. Vitest's `VITEST_POOL_ID` cannot pick the server:
 * in a run of several projects, the files of a later project running side by side all get pool id 1 (vitest 4.1,
 * seen with two e2e files at once on one server, one deleting the runs the other was waiting for).
 */
import fs from "node:fs";
import path from "node:path";
import { processAlive } from "../../scripts/build-state";

export interface Lease {
  /** Index of the server taken. */
  index: number;
  release: () => void;
}

function leaseFile(dir: string, index: number): string {
  return path.join(dir, `server-${index + 1}.lease`);
}

/** Take a free server among `count` now, or null when every one is held by a live process. */
export function tryLease(dir: string, count: number, pid = process.pid): Lease | null {
  for (let index = 0; index < count; index += 1) {
    const file = leaseFile(dir, index);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        fs.writeFileSync(file, String(pid), { flag: "wx" });
        let released = false;
        return {
          index,
          release: () => {
            if (released) return;
            released = true;
            fs.rmSync(file, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      // Held. A lease whose process is gone (a worker killed mid-file) is stale: removed, and taken on the retry.
      let holder = Number.NaN;
      try {
        holder = Number(fs.readFileSync(file, "utf8"));
      } catch {
        continue; // released meanwhile
      }
      // An empty file is a lease being written this instant: held.
      if (!Number.isInteger(holder) || holder <= 0 || processAlive(holder)) break;
      fs.rmSync(file, { force: true });
    }
  }
  return null;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Take a free server, waiting while all are held (a file ending gives its server back). Synchronous, so a test
 * file can take its server at its top level. Throws after `guardMs`: a guard against leases never given back.
 */
export function leaseServer(dir: string, count: number, guardMs: number): Lease {
  const deadline = Date.now() + guardMs;
  for (;;) {
    const lease = tryLease(dir, count);
    if (lease) return lease;
    if (Date.now() > deadline) {
      const holders = Array.from({ length: count }, (_, index) => {
        const file = leaseFile(dir, index);
        return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "free";
      });
      throw new Error(`no e2e server free after ${guardMs / 1000} s: held by ${holders.join(", ")}`);
    }
    Atomics.wait(pause, 0, 0, 100);
  }
}

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { leaseServer, tryLease } from "../support/server-lease";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-lease-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A process id that is no longer running: a child that has exited and been waited for. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  expect(child.status).toBe(0);
  return child.pid;
}

describe("e2e server leases", () => {
  it("two files at once take two different servers; a third waits until one is given back", () => {
    const first = tryLease(dir, 2);
    const second = tryLease(dir, 2);
    expect(first?.index).toBe(0);
    expect(second?.index).toBe(1);
    expect(tryLease(dir, 2)).toBeNull();
    expect(fs.readFileSync(path.join(dir, "server-1.lease"), "utf8")).toBe(String(process.pid));
    second!.release();
    expect(tryLease(dir, 2)?.index).toBe(1);
    first!.release();
    first!.release(); // twice: the second does nothing (it must not remove a lease taken since)
    const again = tryLease(dir, 2);
    expect(again?.index).toBe(0);
    first!.release();
    expect(fs.existsSync(path.join(dir, "server-1.lease"))).toBe(true);
  });

  it("a lease whose process is gone is taken over; one held by a live process is not", () => {
    fs.writeFileSync(path.join(dir, "server-1.lease"), String(process.ppid));
    fs.writeFileSync(path.join(dir, "server-2.lease"), String(deadPid()));
    const lease = tryLease(dir, 2);
    expect(lease?.index).toBe(1);
    expect(fs.readFileSync(path.join(dir, "server-2.lease"), "utf8")).toBe(String(process.pid));
  });

  it("a lease file still empty (being written) counts as held", () => {
    fs.writeFileSync(path.join(dir, "server-1.lease"), "");
    expect(tryLease(dir, 1)).toBeNull();
  });

  it("waiting for a server ends with an error naming the holders when none is given back", () => {
    fs.writeFileSync(path.join(dir, "server-1.lease"), String(process.ppid));
    expect(() => leaseServer(dir, 1, 200)).toThrow(`no e2e server free after 0.2 s: held by ${process.ppid}`);
    expect(leaseServer(path.join(dir), 2, 200).index).toBe(1);
  });
});

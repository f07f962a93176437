/**
 * Two servers started together on a stale build must not both run next build (next refuses the second): the build
 * lock makes the second wait for the first, and a lock left by a process that died is taken over.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withBuildLock } from "../../scripts/build-state";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-build-lock-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("the build lock", () => {
  it("runs one holder at a time, and the one that waited says so", async () => {
    const lock = path.join(dir, "build.lock");
    const events: string[] = [];
    const lines: string[] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const first = withBuildLock(
      lock,
      () => {},
      async () => {
        events.push("first start");
        await firstHeld;
        events.push("first end");
      },
    );
    const second = withBuildLock(
      lock,
      (line) => lines.push(line),
      async () => {
        events.push("second start");
        // The lock file is the holder's pid while it works.
        expect(fs.readFileSync(lock, "utf8")).toBe(String(process.pid));
      },
    );
    await expect.poll(() => lines.length).toBe(1);
    expect(events).toEqual(["first start"]);
    releaseFirst();
    await Promise.all([first, second]);
    expect(events).toEqual(["first start", "first end", "second start"]);
    expect(lines[0]).toBe(`servebench: another start (process ${process.pid}) is building the app; waiting for it`);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it("takes over a lock whose process is gone, and releases it when the work fails", async () => {
    const lock = path.join(dir, "build.lock");
    // The pid of a process that has exited.
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    fs.writeFileSync(lock, gone.stdout);
    const lines: string[] = [];
    await expect(
      withBuildLock(
        lock,
        (line) => lines.push(line),
        async () => {
          throw new Error("next build failed with exit code 1");
        },
      ),
    ).rejects.toThrow("next build failed with exit code 1");
    expect(lines).toEqual([]);
    expect(fs.existsSync(lock)).toBe(false);
  });
});

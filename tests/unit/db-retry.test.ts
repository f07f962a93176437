/**
 * retryWhileBusy: a transaction the database refused as busy runs again, with a back-off, until the lock
 * timeout has passed; any other failure, and a busy one past the timeout, goes straight to the caller.
 */
import { afterEach, describe, expect, it } from "vitest";
import { databaseErrorOf, isDatabaseBusy } from "@/lib/db/database-errors";
import { retryWhileBusy } from "@/lib/db/errors";
import { reloadEnv } from "@/lib/env";

// Prisma's "transaction failed because of a write conflict": what SQLite's refused lock upgrade arrives as.
const busy = () => Object.assign(new Error("write conflict"), { code: "P2034" });

afterEach(() => {
  delete process.env.SERVEBENCH_LOCK_TIMEOUT_MS;
  reloadEnv();
});

describe("retryWhileBusy", () => {
  it("runs a transaction refused as busy again until it goes through", async () => {
    let attempts = 0;
    const result = await retryWhileBusy(async () => {
      attempts += 1;
      if (attempts < 4) throw busy();
      return "stored";
    });
    expect(result).toBe("stored");
    expect(attempts).toBe(4);
  });

  it("passes any other failure on at once", async () => {
    let attempts = 0;
    const unique = Object.assign(new Error("unique"), { code: "P2002" });
    await expect(
      retryWhileBusy(async () => {
        attempts += 1;
        throw unique;
      }),
    ).rejects.toBe(unique);
    expect(attempts).toBe(1);
  });

  it("gives up with the busy error once the lock timeout has passed", async () => {
    process.env.SERVEBENCH_LOCK_TIMEOUT_MS = "60";
    reloadEnv();
    let attempts = 0;
    const started = Date.now();
    await expect(
      retryWhileBusy(async () => {
        attempts += 1;
        throw busy();
      }),
    ).rejects.toMatchObject({ code: "P2034" });
    expect(attempts).toBeGreaterThan(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
  });
});

describe("a transaction that could not start or finish in its time", () => {
  // What Prisma throws when every connection is taken by other writers on a loaded machine (P2028).
  const expired = () =>
    Object.assign(new Error("Transaction API error: Unable to start a transaction in the given time."), {
      code: "P2028",
    });

  it("is the database being busy: a 503 database_busy worth retrying, never a 500", () => {
    expect(isDatabaseBusy(expired())).toBe(true);
    expect(databaseErrorOf(expired())).toMatchObject({ code: "database_busy" });
  });

  it("is retried like any busy write", async () => {
    let attempts = 0;
    const result = await retryWhileBusy(async () => {
      attempts += 1;
      if (attempts < 3) throw expired();
      return "stored";
    });
    expect(result).toBe("stored");
    expect(attempts).toBe(3);
  });
});

import { describe, expect, it } from "vitest";
import { newSlug } from "@/lib/comparisons/queries";
import { randomId } from "@/lib/random-id";
import { newRunId } from "@/lib/runs/store";
import { newSeriesId } from "@/lib/series/key";

describe("new ids", () => {
  it.each([
    ["run", newRunId, 12],
    ["comparison slug", newSlug, 8],
    ["series", newSeriesId, 10],
  ] as const)("%s ids have %i base64url characters and begin with a letter or digit", (_kind, make, length) => {
    // Without the rule, 1 id in 32 begins with "-" or "_": 4,000 draws miss that with odds of about 1e-55.
    const ids = Array.from({ length: 4000 }, make);
    for (const id of ids) expect(id).toMatch(new RegExp(`^[A-Za-z0-9][A-Za-z0-9_-]{${length - 1}}$`));
    expect(new Set(ids).size).toBe(ids.length);
    // The other characters still use the whole alphabet, "-" and "_" included.
    const rest = new Set(ids.flatMap((id) => [...id.slice(1)]));
    expect(rest.has("-") && rest.has("_")).toBe(true);
    expect(rest.size).toBe(64);
  });

  it("never hands out the same random bytes twice, across the pool's refills", () => {
    // 9 bytes a run id: 20,000 ids draw 180,000 bytes, the 4 KiB pool refilled ~44 times.
    const ids = Array.from({ length: 20_000 }, newRunId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("makes ids of any length", () => {
    // 5,500 characters take more bytes than the pool holds at once.
    for (const length of [1, 2, 3, 5, 16, 33, 5500]) expect(randomId(length)).toHaveLength(length);
  });
});

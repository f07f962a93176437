/**
 * Query parameters read as data everywhere: the series and alerts API take the history's rules (own keys only,
 * decimal digits only), and a text parameter holding a character no stored text can is a 400 naming it on the API
 * while a page keeps it (and finds no run holding it).
 */
import { describe, expect, it, test } from "vitest";
import { parseQuery } from "@/lib/http/request";
import { parseListQuery, parseListQueryLenient } from "@/lib/runs/list-query";
import { AlertListQuerySchema, SeriesListQuerySchema } from "@/lib/series/schema";
import { refusal } from "@/tests/support/refusal";

describe("the series and alerts queries", () => {
  test.each(["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"])(
    "?%s=x is unknown like any other parameter",
    (key) => {
      const params = Object.assign(Object.create(null) as Record<string, string>, { [key]: "x" });
      expect(parseQuery(SeriesListQuerySchema, params)).toEqual({ page: 1, per_page: 50 });
      expect(parseQuery(AlertListQuerySchema, params)).toEqual({ status: "open", page: 1, per_page: 50 });
    },
  );

  test.each([
    ["per_page", "0x10"],
    ["page", "1e3"],
    ["per_page", "16.0"],
    ["page", " 2"],
    ["page", "+2"],
    ["per_page", "101"],
  ])("%s=%s is a 400 naming it", (key, value) => {
    for (const schema of [SeriesListQuerySchema, AlertListQuerySchema]) {
      const error = refusal(() => parseQuery(schema, { [key]: value }));
      expect(error.code).toBe("bad_request");
      expect(error.issues?.[0]?.path).toBe(key);
    }
  });

  it("says what a number must look like, in the words of GET /api/runs", () => {
    const error = refusal(() => parseQuery(AlertListQuerySchema, { per_page: "0x10" }));
    expect(error.message).toBe("Invalid query parameter per_page: must be a whole number written in decimal digits");
    expect(parseQuery(AlertListQuerySchema, { page: "3", per_page: "16", status: "all" })).toEqual({
      status: "all",
      page: 3,
      per_page: 16,
    });
  });
});

describe("text parameters of the history", () => {
  test.each([
    ["q", "ab\u0000cd", "must not contain a control character (U+0000 at character 3)"],
    ["q", "ab\u001bcd", "must not contain a control character (U+001B at character 3)"],
    ["q", "\u202Eevil", "must not contain a bidirectional override (U+202E at character 1)"],
    ["engine", "vllm\u202E", "must not contain a bidirectional override (U+202E at character 5)"],
    ["model", "m\u200Fx", "must not contain a bidirectional mark (U+200F at character 2)"],
    ["tag", "t\u0007", "must not contain a control character (U+0007 at character 2)"],
    ["gpu", "H100\u2028x", "must not contain a line or paragraph separator (U+2028 at character 5)"],
  ])("the API refuses %s=%j, naming it", (key, value, message) => {
    const parsed = parseListQuery({ [key]: value });
    expect(parsed.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([[key, message]]);
  });

  it("a search may hold what notes hold: a tab, a line break, a right-to-left mark", () => {
    for (const q of ["separated\tnote", "line\nbreak", "שלום\u200F."]) expect(parseListQuery({ q }).data?.q).toBe(q);
  });

  it("a page keeps the search as typed (it then lists no run)", () => {
    expect(parseListQueryLenient({ q: "ab\u0000cd" }).q).toBe("ab\u0000cd");
    expect(parseListQuery({ q: "tp8 graphs" }).data?.q).toBe("tp8 graphs");
  });
});

/**
 * The character rules every write applies (lib/document/schema.ts), reused by alert and annotation notes, series names
 * and comparison titles: bidi marks and line separators refused in one-line text, something visible in every name,
 * unpaired surrogates refused everywhere; right-to-left text itself passes.
 */
import { describe, expect, it, test } from "vitest";
import { SaveComparisonSchema } from "@/lib/comparisons/schema";
import {
  forbiddenCharacter,
  freeText,
  hasVisibleCharacter,
  lineText,
  RunPatchSchema,
  TagsSchema,
} from "@/lib/document/schema";
import { exportedSeriesOf } from "@/lib/series/export-schema";
import { AlertPatchSchema, AnnotationCreateSchema, NoteSchema } from "@/lib/series/schema";

function issuesOf(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  return (result.error?.issues ?? []).map((issue) => [issue.path.map(String).join("."), issue.message]);
}

describe("bidi marks and line separators", () => {
  test.each([
    ["U+200F right-to-left mark", "run\u200Fname", "a bidirectional mark (U+200F at character 4)"],
    ["U+200E left-to-right mark", "run\u200Ename", "a bidirectional mark (U+200E at character 4)"],
    ["U+061C Arabic letter mark", "\u061Crun", "a bidirectional mark (U+061C at character 1)"],
    ["U+2028 line separator", "run\u2028name", "a line or paragraph separator (U+2028 at character 4)"],
    ["U+2029 paragraph separator", "run\u2029name", "a line or paragraph separator (U+2029 at character 4)"],
  ])("a one-line text refuses a %s", (_label, text, kind) => {
    expect(forbiddenCharacter(text, false)).toBe(`must not contain ${kind}`);
    expect(issuesOf(lineText(200).safeParse(text))).toEqual([["", `must not contain ${kind}`]]);
    expect(issuesOf(TagsSchema.safeParse([text]))).toEqual([["0", `must not contain ${kind}`]]);
    expect(issuesOf(RunPatchSchema.safeParse({ name: text }))).toEqual([["name", `must not contain ${kind}`]]);
  });

  it("free text keeps them: right-to-left prose places its punctuation with marks, and separators break lines", () => {
    const prose = "שלום\u200F. مرحبا\u061C!\u2028next line\u2029next paragraph\u200E";
    expect(forbiddenCharacter(prose, true)).toBeNull();
    expect(freeText(2_000).safeParse(prose)).toMatchObject({ success: true, data: prose });
  });

  it("still refuses the overrides and isolates in free text too", () => {
    expect(forbiddenCharacter("a\u202Eb", true)).toBe(
      "must not contain a bidirectional override (U+202E at character 2)",
    );
    expect(forbiddenCharacter("a\u2067b", false)).toBe(
      "must not contain a bidirectional override (U+2067 at character 2)",
    );
  });

  test.each([
    ["Hebrew", "הרצה בסיסית"],
    ["Arabic", "تشغيل أساسي"],
    ["Persian with a zero-width non-joiner", "می\u200Cخواهم"],
    ["mixed scripts", "vLLM 0.11 · تشغيل · הרצה"],
  ])("%s text passes as a name, a tag and a comparison title", (_label, text) => {
    expect(lineText(200).safeParse(text)).toMatchObject({ success: true, data: text });
    expect(TagsSchema.safeParse([text]).success).toBe(true);
    expect(SaveComparisonSchema.safeParse({ runs: ["abc"], title: text })).toMatchObject({
      success: true,
      data: { title: text },
    });
  });
});

describe("names show something", () => {
  test.each([
    ["two zero-width spaces", "\u200B\u200B"],
    ["a word joiner", "\u2060"],
    ["a zero-width non-joiner between spaces", " \u200C "],
    ["a soft hyphen", "\u00AD"],
    ["a Hangul filler", "\u3164"],
    ["a variation selector", "\uFE0F"],
    ["a byte order mark inside", "\u200B\uFEFF\u200B"],
  ])("%s is no title, no run name and no tag", (_label, text) => {
    expect(hasVisibleCharacter(text)).toBe(false);
    const nothing = "must contain a visible character (it holds only spaces or invisible characters)";
    expect(issuesOf(SaveComparisonSchema.safeParse({ runs: ["abc"], title: text }))).toEqual([["title", nothing]]);
    expect(issuesOf(RunPatchSchema.safeParse({ name: text }))).toEqual([["name", nothing]]);
    expect(issuesOf(TagsSchema.safeParse(["ok", text]))).toEqual([["1", nothing]]);
  });

  test.each(["a", "\u200Ba", "😀", "é", "\u05D0"])("%j has a visible character", (text) => {
    expect(hasVisibleCharacter(text)).toBe(true);
    expect(lineText(200).safeParse(text).success).toBe(true);
  });

  it("says 'must not be empty' once for an empty or blank name, not also 'visible'", () => {
    expect(issuesOf(RunPatchSchema.safeParse({ name: "   " }))).toEqual([["name", "must not be empty"]]);
  });
});

describe("unpaired surrogates in every note and name", () => {
  const lone = ["a\uD800b", "a\uDC00", "\uDBFF"];

  test.each(lone)("alert and annotation notes refuse %j, naming note", (text) => {
    expect(issuesOf(NoteSchema.safeParse(text))[0]?.[1]).toMatch(/^must not contain an unpaired surrogate \(U\+D/);
    expect(issuesOf(AlertPatchSchema.safeParse({ note: text }))[0]?.[0]).toBe("note");
    expect(issuesOf(AnnotationCreateSchema.safeParse({ run_id: "abc", note: text }))[0]?.[0]).toBe("note");
  });

  test.each(lone)("run names, notes, tags and comparison titles refuse %j", (text) => {
    expect(issuesOf(RunPatchSchema.safeParse({ name: text }))[0]?.[0]).toBe("name");
    expect(issuesOf(RunPatchSchema.safeParse({ notes: text }))[0]?.[0]).toBe("notes");
    expect(issuesOf(RunPatchSchema.safeParse({ tags: [text] }))[0]?.[0]).toBe("tags.0");
    expect(issuesOf(SaveComparisonSchema.safeParse({ runs: ["abc"], title: text }))[0]?.[0]).toBe("title");
    expect(issuesOf(SaveComparisonSchema.safeParse({ runs: ["abc"], notes: text }))[0]?.[0]).toBe("notes");
  });

  it("keeps a paired surrogate (an emoji) in a note", () => {
    expect(NoteSchema.safeParse("regression 📉 after the driver update")).toMatchObject({ success: true });
  });

  it("a restored series' name, key and notes follow the same rules", () => {
    const line = {
      format: "servebench/series-v1",
      id: "IaakUFYStZ",
      key: "name:nightly",
      name: "nightly",
      explicit: true,
      created_at: "2026-11-01T02:00:00.000Z",
      settings: {},
      annotations: [],
      changes: [],
    };
    expect(exportedSeriesOf(line).name).toBe("nightly");
    expect(() => exportedSeriesOf({ ...line, name: "night\uD800ly" })).toThrow(
      /^The series is invalid\. name: must not contain an unpaired surrogate \(U\+D800 at character 6\)$/,
    );
    expect(() => exportedSeriesOf({ ...line, name: "\u200B" })).toThrow(/name: must contain a visible character/);
    expect(() => exportedSeriesOf({ ...line, key: "name:night\u202Ely" })).toThrow(
      /key: must not contain a bidirectional override \(U\+202E at character 6\)/,
    );
    const annotation = {
      id: "Qm1",
      run_id: "yw4d_mYpmGUx",
      note: "x\uDC00",
      change_id: null,
      created_at: line.created_at,
    };
    expect(() => exportedSeriesOf({ ...line, annotations: [annotation] })).toThrow(
      /annotations\.0\.note: must not contain an unpaired surrogate/,
    );
  });
});

/**
 * Names that come from outside read as data. Ids a document carries follow one rule, prototype names included;
 * series figures are a closed list (a Set, never `name in object`); a command's `VAR=value` prefix keeps every name
 * it sets, and the three a document cannot hold are refused naming `command`; keys named after Object's methods are
 * ordinary keys all the way through normalization.
 */
import { describe, expect, it, test } from "vitest";
import { SaveComparisonSchema, SLUG_PATTERN } from "@/lib/comparisons/schema";
import { parseCommand } from "@/lib/document/flags";
import { normalizeRunDocument } from "@/lib/document/normalize";
import { RunDocumentSchema } from "@/lib/document/schema";
import { ID_PATTERN, ID_RULE, isId } from "@/lib/ids";
import { exportedSeriesOf } from "@/lib/series/export-schema";
import { isFigure, parseMetricKey } from "@/lib/series/metrics";
import { resolveSettings, SeriesSettingsPatchSchema } from "@/lib/series/settings";
import { refusal } from "@/tests/support/refusal";

const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "valueOf", "hasOwnProperty", "__defineGetter__"];

describe("the one id rule", () => {
  test.each(["a", "hwaNHidBsoTH", "-starts-with-dash", "_x", "constructor", "__proto__", "A".repeat(64)])(
    "%s is an id",
    (id) => {
      expect(isId(id)).toBe(true);
      expect(SLUG_PATTERN).toBe(ID_PATTERN);
    },
  );

  test.each(["", "A".repeat(65), "has space", "a/b", "a.b", "ä", "id\u0000", "x\n"])("%j is not", (id) => {
    expect(isId(id)).toBe(false);
  });

  it("a run document's id follows it, naming id", () => {
    const doc = { format: "servebench/v1", engine: "vllm", model: "m", results: [{ concurrency: 1 }] };
    expect(RunDocumentSchema.safeParse({ ...doc, id: "constructor" }).success).toBe(true);
    const error = refusal(() => normalizeRunDocument({ ...doc, id: "../etc/passwd" }));
    expect(error.issues).toEqual([{ path: "id", message: ID_RULE }]);
    expect(ID_RULE).toBe('must be 1–64 letters, digits, "-" or "_"');
  });

  it("a saved comparison's run ids follow it", () => {
    const parsed = SaveComparisonSchema.safeParse({ runs: ["ok", "not ok"] });
    expect(parsed.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([["runs.1", ID_RULE]]);
    expect(SaveComparisonSchema.safeParse({ runs: ["constructor", "__proto__"] }).success).toBe(true);
  });

  it("a restored series' ids, its alerts' and annotations' and their runs' follow it", () => {
    const line = {
      format: "servebench/series-v1",
      id: "s",
      key: "name:nightly",
      name: "nightly",
      explicit: true,
      created_at: "2026-11-01T02:00:00.000Z",
      settings: {},
      annotations: [
        { id: "constructor", run_id: "r1", note: null, change_id: null, created_at: "2026-11-02T00:00:00Z" },
      ],
      changes: [],
    };
    expect(exportedSeriesOf(line).annotations[0]?.id).toBe("constructor");
    expect(() => exportedSeriesOf({ ...line, id: "a b" })).toThrow(`The series is invalid. id: ${ID_RULE}`);
    const badAnnotation = { ...line.annotations[0]!, id: "x".repeat(65) };
    expect(() => exportedSeriesOf({ ...line, annotations: [badAnnotation] })).toThrow(
      `The series is invalid. annotations.0.id: ${ID_RULE}`,
    );
    const badRun = { ...line.annotations[0]!, run_id: "run/1" };
    expect(() => exportedSeriesOf({ ...line, annotations: [badRun] })).toThrow(`annotations.0.run_id: ${ID_RULE}`);
  });
});

describe("series figures are a closed list", () => {
  test.each(PROTOTYPE_NAMES)("%s is no figure, and no setting may name it", (name) => {
    expect(isFigure(name)).toBe(false);
    expect(parseMetricKey(`${name}@c:64`)).toBeNull();
    expect(parseMetricKey(name)).toBeNull();
    const parsed = SeriesSettingsPatchSchema.safeParse({ figures: ["single_stream_tok_s", name] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual(["figures.1"]);
    expect(parsed.error?.issues[0]?.message).toMatch(
      /^must be one of single_stream_tok_s, peak_tok_s, output_throughput/,
    );
  });

  it("takes the real figures, and reads stored settings naming another as no settings at all", () => {
    expect(SeriesSettingsPatchSchema.parse({ figures: ["peak_tok_s", "mean_tpot_ms"] })).toEqual({
      figures: ["peak_tok_s", "mean_tpot_ms"],
    });
    expect(resolveSettings(JSON.stringify({ figures: ["peak_tok_s"], window: 10 })).figures).toEqual(["peak_tok_s"]);
    const damaged = resolveSettings(JSON.stringify({ figures: ["constructor"], window: 10 }));
    expect(damaged.figures).toBeNull();
    expect(damaged.window).toBe(30);
  });

  it("a restored change must name a metric", () => {
    const change = {
      id: "c1",
      metric: "constructor@c:64",
      start_group: "run:r1",
      start_run_id: "r1",
      last_run_id: "r1",
      kind: "regression",
      direction: "worse",
      status: "open",
      note: null,
      before: 1,
      after: 2,
      change_pct: 100,
      z_score: null,
      p_value: null,
      violations: 2,
      active: true,
      detected_at: "2026-11-02T00:00:00Z",
      confirmed_at: null,
      updated_at: "2026-11-02T00:00:00Z",
      runs: ["r1"],
    };
    const line = {
      format: "servebench/series-v1",
      id: "s1",
      key: "name:nightly",
      name: "nightly",
      explicit: true,
      created_at: "2026-11-01T02:00:00.000Z",
      settings: {},
      annotations: [],
      changes: [change],
    };
    expect(() => exportedSeriesOf(line)).toThrow(/changes\.0\.metric: must be a series metric key/);
    expect(exportedSeriesOf({ ...line, changes: [{ ...change, metric: "mean_tpot_ms@c:64" }] }).changes).toHaveLength(
      1,
    );
  });
});

describe("a command's environment prefix", () => {
  it("keeps every variable it sets as data, __proto__ included", () => {
    const parsed = parseCommand("__proto__=1 constructor=2 toString=3 VLLM_USE_V1=1 vllm serve model");
    expect(Object.keys(parsed.env)).toEqual(["__proto__", "constructor", "toString", "VLLM_USE_V1"]);
    expect(Object.getPrototypeOf(parsed.env)).toBeNull();
    expect(Object.entries(parsed.env)).toEqual([
      ["__proto__", "1"],
      ["constructor", "2"],
      ["toString", "3"],
      ["VLLM_USE_V1", "1"],
    ]);
  });

  test.each(["__proto__", "constructor", "prototype"])(
    "%s=1 in a command is refused naming command: a stored run must restore, and restores refuse that key",
    (name) => {
      const error = refusal(() =>
        normalizeRunDocument({
          format: "servebench/v1",
          engine: "vllm",
          model: "m",
          command: `${name}=1 VLLM_USE_V1=1 vllm serve model`,
          results: [{ concurrency: 1 }],
        }),
      );
      expect(error.code).toBe("validation_failed");
      expect(error.issues).toEqual([
        {
          path: "command",
          message: `sets the environment variable "${name}", a name servebench cannot store (every JavaScript object has a property of that name): rename the variable or leave it out of the command`,
        },
      ]);
    },
  );

  it("keeps variables named after Object's methods, from the command and from env", () => {
    const doc = normalizeRunDocument({
      format: "servebench/v1",
      engine: "vllm",
      model: "m",
      command: "toString=1 hasOwnProperty=2 vllm serve model",
      env: { valueOf: "3", __defineGetter__: "4" },
      results: [{ concurrency: 1 }],
    });
    expect(doc.env).toEqual({ toString: "1", hasOwnProperty: "2", valueOf: "3", __defineGetter__: "4" });
    expect(normalizeRunDocument(JSON.parse(JSON.stringify(doc)))).toEqual(doc);
  });
});

describe("keys named after Object's methods are ordinary keys", () => {
  it("in metadata, flags and as extra top-level fields, checked and counted like any other", () => {
    const doc = normalizeRunDocument({
      format: "servebench/v1",
      engine: "vllm",
      model: "m",
      metadata: { hasOwnProperty: 1, toString: "x" },
      flags: { valueOf: "2", "--toString": true },
      toString: "top",
      valueOf: 7,
      results: [{ concurrency: 1 }],
    });
    expect(doc.metadata).toEqual({ hasOwnProperty: 1, toString: "top", valueOf: 7 });
    expect(doc.flags).toEqual({ "--valueOf": "2", "--toString": true });
    expect(normalizeRunDocument(JSON.parse(JSON.stringify(doc)))).toEqual(doc);
  });

  it("an extra top-level field named toString or valueOf counts toward the metadata limit like any other", () => {
    const metadata = Object.fromEntries(Array.from({ length: 199 }, (_, index) => [`k${index}`, index]));
    const error = refusal(() =>
      normalizeRunDocument({
        format: "servebench/v1",
        engine: "vllm",
        model: "m",
        metadata,
        toString: "x",
        valueOf: "y",
        results: [{ concurrency: 1 }],
      }),
    );
    // Counted as the upload is read, not only once the keys have moved into metadata.
    expect(error.issues).toEqual([{ path: "metadata", message: "at most 200 metadata keys" }]);
  });
});

import { describe, expect, it } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import type { IndexedFragment, ParsedUpload } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import type { RunContext } from "@/lib/formats/types";

function fragment(
  index: number,
  file: string,
  points: ResultPoint[],
  context: RunContext = {},
  warnings: string[] = [],
): IndexedFragment {
  return {
    index,
    file,
    part: "",
    format: "vllm-bench-serve",
    formatLabel: "vLLM bench serve",
    context: { model: "facebook/opt-125m", ...context },
    points,
    warnings,
  };
}

function parsed(...fragments: IndexedFragment[]): ParsedUpload {
  return { documents: [], fragments, skipped: [], duplicates: [], accuracy: [], ignored: [] };
}

describe("planRuns", () => {
  it("joins the load levels of fragments that share a configuration into one run", () => {
    const plan = planRuns(
      parsed(
        fragment(0, "c8.json", [{ concurrency: 8, output_throughput: 400 }], {
          workload: { input_len: 128, num_prompts: 80 },
          measured_at: "2026-03-02T10:00:00Z",
        }),
        fragment(1, "c1.json", [{ concurrency: 1, output_throughput: 60 }], {
          workload: { input_len: 128, num_prompts: 10 },
          measured_at: "2026-03-02T09:00:00Z",
        }),
      ),
      { split: false },
    );
    expect(plan.conflicts).toEqual([]);
    expect(plan.runs).toHaveLength(1);
    const run = plan.runs[0]!;
    expect(run.fragments).toEqual([0, 1]);
    expect(run.document.results).toEqual([
      { concurrency: 1, output_throughput: 60 },
      { concurrency: 8, output_throughput: 400 },
    ]);
    // num_prompts usually grows with concurrency: it does not split a sweep, and is dropped when it differs.
    expect(run.document.workload).toEqual({ input_len: 128 });
    expect(run.document.measured_at).toBe("2026-03-02T09:00:00Z");
    expect(run.document.model).toBe("facebook/opt-125m");
    expect(run.document.source_format).toBe("vllm-bench-serve");
    // Named later, once the person's context says which engine it was (lib/ingest/ingest.ts).
    expect(run.document.name).toBeUndefined();
    expect(run.nameSuffix).toBe("");
    expect(run.document.metadata).toEqual({ source_files: "c8.json, c1.json" });
    expect(run.document.engine).toBeUndefined();
  });

  it("reports repeated load levels and splits them into repeats when asked", () => {
    const fragments = parsed(
      fragment(0, "run=0.json", [{ concurrency: 2, output_throughput: 93.7 }], {
        engine: "vllm",
        flags: { "--max-num-seqs": "4" },
      }),
      fragment(1, "run=1.json", [{ concurrency: 2, output_throughput: 82.9 }], {
        engine: "vllm",
        flags: { "--max-num-seqs": "4" },
      }),
    );
    const refused = planRuns(fragments, { split: false });
    expect(refused.conflicts).toEqual(["Load levels repeat: 2 points at C=2 (run=0.json, run=1.json)."]);
    const split = planRuns(fragments, { split: true });
    expect(split.runs.map((run) => run.nameSuffix)).toEqual(["repeat 1", "repeat 2"]);
    expect(split.runs.map((run) => run.document.results)).toEqual([
      [{ concurrency: 2, output_throughput: 93.7 }],
      [{ concurrency: 2, output_throughput: 82.9 }],
    ]);
  });

  it("names what differs between configurations", () => {
    const fragments = parsed(
      fragment(0, "a.json", [{ concurrency: 1, output_throughput: 60 }], {
        engine: "vllm",
        flags: { "--max-num-seqs": "4" },
      }),
      fragment(1, "b.json", [{ concurrency: 1, output_throughput: 70 }], {
        engine: "vllm",
        flags: { "--max-num-seqs": "8" },
      }),
      fragment(2, "c.json", [{ concurrency: 1, output_throughput: 50 }], {
        engine: "vllm",
        model: "Llama-3.1-8B",
        flags: { "--max-num-seqs": "8" },
      }),
    );
    const plan = planRuns(fragments, { split: false });
    expect(plan.conflicts).toEqual([
      "The files hold 3 different configurations: opt-125m, --max-num-seqs 4 [a.json]; opt-125m, --max-num-seqs 8 [b.json]; Llama-3.1-8B, --max-num-seqs 8 [c.json].",
    ]);
    const split = planRuns(fragments, { split: true });
    expect(split.runs.map((run) => run.nameSuffix)).toEqual([
      "--max-num-seqs 4",
      "--max-num-seqs 8",
      "--max-num-seqs 8",
    ]);
    expect(split.runs.map((run) => run.document.model)).toEqual([
      "facebook/opt-125m",
      "facebook/opt-125m",
      "Llama-3.1-8B",
    ]);
  });

  it("uses a name the files agree on, with the suffix that tells split runs apart", () => {
    const fragments = parsed(
      fragment(0, "a.json", [{ concurrency: 1, output_throughput: 60 }], { name: "nightly", flags: { "--tp": "1" } }),
      fragment(1, "b.json", [{ concurrency: 1, output_throughput: 90 }], { name: "nightly", flags: { "--tp": "2" } }),
    );
    expect(planRuns(fragments, { split: true }).runs.map((run) => run.document.name)).toEqual([
      "nightly (--tp 1)",
      "nightly (--tp 2)",
    ]);
  });

  it("keeps only the picked fragments", () => {
    const fragments = parsed(
      fragment(0, "run=0.json", [{ concurrency: 2, output_throughput: 93.7 }]),
      fragment(1, "run=1.json", [{ concurrency: 2, output_throughput: 82.9 }]),
    );
    const plan = planRuns(fragments, { split: false, pick: [1] });
    expect(plan.conflicts).toEqual([]);
    expect(plan.runs).toHaveLength(1);
    expect(plan.runs[0]!.document.results).toEqual([{ concurrency: 2, output_throughput: 82.9 }]);
    expect(plan.runs[0]!.document.metadata).toEqual({ source_files: "run=1.json" });
  });

  it("carries every fragment's warnings once and the metadata they agree on", () => {
    const plan = planRuns(
      parsed(
        fragment(
          0,
          "a.json",
          [{ concurrency: 1, output_throughput: 60 }],
          { metadata: { backend: "openai", label: "x" } },
          ["a.json: p99_ttft_ms is NaN; stored as no data."],
        ),
        fragment(
          1,
          "b.json",
          [{ concurrency: 4, completed: 0, failed: 8 }],
          { metadata: { backend: "openai", label: "y" } },
          ["b.json: no request completed (8 failed); its figures are stored as no data."],
        ),
      ),
      { split: false },
    );
    const document = plan.runs[0]!.document;
    expect(document.warnings).toEqual([
      "a.json: p99_ttft_ms is NaN; stored as no data.",
      "b.json: no request completed (8 failed); its figures are stored as no data.",
    ]);
    expect(document.metadata).toEqual({ backend: "openai", source_files: "a.json, b.json" });
  });

  it("passes servebench/v1 documents through as runs of their own", () => {
    const raw = { format: "servebench/v1", engine: "vllm", model: "m", results: [{ concurrency: 1 }] };
    const plan = planRuns(
      { documents: [{ file: "run.json", raw }], fragments: [], skipped: [], duplicates: [], accuracy: [], ignored: [] },
      { split: false },
    );
    expect(plan.conflicts).toEqual([]);
    expect(plan.runs).toEqual([{ fragments: [], nameSuffix: "", document: raw }]);
  });
});

// Planning used to compare each fragment with every earlier one: a JSON-lines file of 8,000 lines took 22 s and
// 100,000 lines more than 25 minutes, with the whole server blocked. These shapes finish well inside the test's
// default time limit now; the figures are in docs/benchmarks.md.
describe("planRuns on uploads of many fragments", () => {
  const LINES = 100_000;

  it("files 100,000 fragments of distinct load levels into one run", () => {
    const fragments = Array.from({ length: LINES }, (_, index) =>
      fragment(index, "big.jsonl", [{ request_rate: index + 1, output_throughput: 10 }]),
    );
    const plan = planRuns(parsed(...fragments), { split: false });
    expect(plan.conflicts).toEqual([]);
    expect(plan.runs).toHaveLength(1);
    expect(plan.runs[0]!.fragments).toHaveLength(LINES);
    expect(plan.runs[0]!.document.results[LINES - 1]).toEqual({ request_rate: LINES, output_throughput: 10 });
  });

  it("splits 20,000 repeats of one load level into 20,000 runs, in order", () => {
    const repeats = 20_000;
    const fragments = Array.from({ length: repeats }, (_, index) =>
      fragment(index, "same.jsonl", [{ concurrency: 4, output_throughput: index }]),
    );
    const plan = planRuns(parsed(...fragments), { split: true });
    expect(plan.runs).toHaveLength(repeats);
    expect(plan.runs.map((run) => run.fragments[0])).toEqual(fragments.map((item) => item.index));
    expect(plan.runs[repeats - 1]!.nameSuffix).toBe(`repeat ${repeats}`);
  });

  it("fills the first slot free of a fragment's levels, as before", () => {
    // {1} and {2} share run 1; {1, 3} collides there and opens run 2; {3} then fits run 1, not run 2.
    const plan = planRuns(
      parsed(
        fragment(0, "a.json", [{ concurrency: 1 }]),
        fragment(1, "b.json", [{ concurrency: 2 }]),
        fragment(2, "c.json", [{ concurrency: 1 }, { concurrency: 3 }]),
        fragment(3, "d.json", [{ concurrency: 3 }]),
      ),
      { split: true },
    );
    expect(plan.runs.map((run) => run.fragments)).toEqual([[0, 1, 3], [2]]);
  });

  it("never puts two points of one level in a run, even when a crafted order defeats the slot search", () => {
    // Level 1 in every odd run, level 2 in every even one: a fragment of both levels finds no free slot nearby.
    const fragments: IndexedFragment[] = [];
    const add = (points: ResultPoint[]) => fragments.push(fragment(fragments.length, "x.jsonl", points));
    for (let index = 0; index < 200; index += 1) {
      add([{ concurrency: 1 }, { concurrency: 1000 + index }]);
      add([{ concurrency: 2 }, { concurrency: 5000 + index }]);
    }
    for (let index = 0; index < 2000; index += 1) add([{ concurrency: 1 }, { concurrency: 2 }]);
    const plan = planRuns(parsed(...fragments), { split: true });
    for (const run of plan.runs) {
      const levels = run.document.results.map((point) => point.concurrency);
      expect(new Set(levels).size).toBe(levels.length);
    }
    expect(plan.runs.flatMap((run) => run.fragments).sort((a, b) => a - b)).toEqual(fragments.map((f) => f.index));
  });

  it("tells 20,000 configurations apart by at most a few differences each", () => {
    const count = 20_000;
    const fragments = Array.from({ length: count }, (_, index) =>
      fragment(index, "configs.jsonl", [{ concurrency: 1 }], { flags: { [`--flag-${index}`]: "1" } }),
    );
    const plan = planRuns(parsed(...fragments), { split: true });
    expect(plan.runs).toHaveLength(count);
    // Each configuration lacks 19,999 flags the others have: the description shows the first few, then "…".
    expect(plan.runs[0]!.nameSuffix).toBe(
      "--flag-0 1, no --flag-1, no --flag-10, no --flag-100, no --flag-1000, no --flag-10000, no --flag-10001, no --flag-10002, …",
    );
    expect(plan.conflicts[0]).toMatch(/^The files hold 20000 different configurations: /);
  });
});

import { describe, expect, it, test } from "vitest";
import { exportFileName, fileDate, fileSlug } from "@/lib/comparisons/file-name";

describe("export file names", () => {
  test.each([
    [
      "SGLang TP8, CUDA graphs on vs SGLang TP8, --disable-cuda-graph",
      "sglang-tp8-cuda-graphs-on-vs-sglang-tp8-disable-cuda-graph",
    ],
    ["vLLM · opt-125m (--max-num-seqs 4) · mean of 2 repeats", "vllm-opt-125m-max-num-seqs-4-mean-of-2-repeats"],
    ["Café Überlänge → 8×H100", "cafe-uberlange-8-h100"],
    ["<script>alert(1)</script>", "script-alert-1-script"],
    ["日本語", "comparison"],
    ["", "comparison"],
  ])("%s → %s", (title, slug) => {
    expect(fileSlug(title)).toBe(slug);
  });

  it("cuts a long title at a word boundary, at most 60 characters", () => {
    const slug = fileSlug("4 runs vs vLLM · meta-llama/Llama-3.3-70B-Instruct on 8× NVIDIA H100 80GB HBM3 at C=128");
    expect(slug).toBe("4-runs-vs-vllm-meta-llama-llama-3-3-70b-instruct-on-8-nvidia");
    expect(slug.length).toBeLessThanOrEqual(60);
  });

  it("dates by the day in the time zone asked for", () => {
    const lateEvening = new Date("2026-12-01T23:30:00Z");
    expect(fileDate(lateEvening, "UTC")).toBe("2026-12-01");
    expect(fileDate(lateEvening, "Asia/Tokyo")).toBe("2026-12-02");
  });

  it("puts the parts together", () => {
    expect(exportFileName("CUDA graphs on vs off", new Date(), "png", "throughput")).toMatch(
      /^servebench-cuda-graphs-on-vs-off-\d{4}-\d{2}-\d{2}-throughput\.png$/,
    );
    expect(exportFileName("a", new Date("2026-01-02T12:00:00Z"), "csv")).toMatch(/^servebench-a-2026-01-0[12]\.csv$/);
  });
});

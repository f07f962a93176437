/** Detection across all formats: every fixture is claimed by exactly one parser, of its own tool. */

import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import { AppError } from "@/lib/errors";
import { decodeAsText } from "@/lib/formats/decode";
import { readUploads } from "@/lib/formats/import";
import { FORMAT_NAMES } from "@/lib/formats/names";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import type { FormatId, SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles, loadFixture } from "./fixtures";

/** The file as the pipeline reads it: decoded by content, or as text when it is a printed report. */
function claimable(file: string): SourceFile {
  let source: SourceFile | null = null;
  try {
    source = loadFixture(file);
  } catch {
    source = null;
  }
  if (source && FORMAT_PARSERS.some((parser) => parser.detect(source as SourceFile))) return source;
  return decodeAsText(file, fs.readFileSync(path.join(FIXTURES_DIR, file))) ?? (source as SourceFile);
}

const TOOL_OF_FOLDER: Record<string, FormatId[]> = {
  vllm: ["vllm-bench-serve", "vllm-sweep"],
  sglang: ["sglang-bench-serving", "sglang-bench-one-batch-server", "sglang-bench-one-batch"],
  guidellm: ["guidellm"],
  aiperf: ["aiperf"],
  llmperf: ["llmperf"],
  "inference-perf": ["inference-perf"],
  trtllm: ["trtllm-bench"],
  "llama-bench": ["llama-bench"],
  "llm-d-benchmark-report": ["llm-d-benchmark-report"],
  "vllm-suite": ["vllm-benchmark-suite"],
  "vllm-bench-rs": ["vllm-bench-rs"],
  "genai-bench": ["genai-bench"],
  evalscope: ["evalscope"],
  mlperf: ["mlperf-inference"],
  "llm-load-test": ["llm-load-test"],
};

// The benchmark suite's own report is markdown (benchmark_results.md): only READMEs are documentation.
const isDocumentation = (file: string) => file.endsWith("README.md") || file.endsWith("SOURCE.txt");
const isJsonSchema = (file: string) => file.endsWith("_json_schema.json");
const resultFiles = Object.keys(TOOL_OF_FOLDER)
  .flatMap((folder) => fixtureFiles(folder))
  .filter((file) => !isDocumentation(file) && !isJsonSchema(file));

describe("format detection", () => {
  it("has fixtures of every tool", () => {
    for (const folder of Object.keys(TOOL_OF_FOLDER)) {
      expect(resultFiles.filter((file) => file.startsWith(`${folder}/`)).length).toBeGreaterThan(0);
    }
  });

  test.each(resultFiles)("%s is claimed by exactly one parser, of its own tool", (file) => {
    const source = claimable(file);
    const claimed = FORMAT_PARSERS.filter((parser) => parser.detect(source)).map((parser) => parser.id);
    expect(claimed).toHaveLength(1);
    expect(TOOL_OF_FOLDER[file.split("/")[0]!]).toContain(claimed[0]);
  });

  test.each(fixtureFiles("llm-d-benchmark-report").filter(isJsonSchema))(
    "%s (a JSON Schema, not a report) is claimed by none",
    (file) => {
      const source = loadFixture(file);
      expect(FORMAT_PARSERS.filter((parser) => parser.detect(source)).map((parser) => parser.id)).toEqual([]);
    },
  );

  test.each(resultFiles)("%s goes through the upload pipeline", (file) => {
    const upload = () =>
      readUploads([{ name: file, bytes: fs.readFileSync(path.join(FIXTURES_DIR, file)) }], FORMAT_PARSERS);
    if (/broken/.test(file)) {
      expect(upload).toThrow(AppError);
      try {
        upload();
      } catch (error) {
        expect((error as AppError).code).toBe("validation_failed");
        expect((error as AppError).issues?.[0]?.message).toContain(file);
      }
      return;
    }
    const parsed = upload();
    expect(parsed.fragments.length + parsed.skipped.length).toBeGreaterThan(0);
    for (const fragment of parsed.fragments) {
      expect(fragment.points.length).toBeGreaterThan(0);
      for (const point of fragment.points) expect(point.concurrency ?? point.request_rate).toBeDefined();
    }
  });

  it("has a display name for every parser's format", () => {
    for (const parser of FORMAT_PARSERS) expect(FORMAT_NAMES[parser.id]).toMatch(/\w/);
  });

  it("refuses a file no parser knows, listing what is supported", () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ hello: "world" }));
    expect(() => readUploads([{ name: "notes.json", bytes }], FORMAT_PARSERS)).toThrow(
      /"notes\.json" is not a results file servebench recognizes\. Supported: servebench\/v1 JSON; .*vLLM/,
    );
  });
});

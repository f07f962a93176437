/**
 * Every tool format servebench imports, in the order detection tries them. Each detector looks for keys
 * only its tool writes; tests/unit/formats/registry.test.ts checks that every fixture is claimed by
 * exactly one parser. servebench/v1 documents are recognized before these (lib/formats/import.ts).
 */
import { aiperfParsers } from "./aiperf";
import { evalscopeParsers } from "./evalscope";
import { genaiBenchParsers } from "./genai-bench";
import { guidellmParser } from "./guidellm";
import { inferencePerfParsers } from "./inference-perf";
import { llamaBenchParser } from "./llama-bench";
import { llmdReportParser } from "./llm-d";
import { llmLoadTestParser } from "./llm-load-test";
import { llmperfIndividualParser, llmperfSummaryParser } from "./llmperf";
import { mlperfSummaryParser } from "./mlperf";
import { sglangParsers } from "./sglang";
import { trtllmBenchParser } from "./trtllm";
import { trtllmPrintedReportParser } from "./trtllm-report";
import type { FormatParser } from "./types";
import { vllmParsers } from "./vllm";
import { vllmBenchRsMultiTurnParser } from "./vllm-bench-rs";
import { vllmSuiteParsers } from "./vllm-suite";

export const FORMAT_PARSERS: readonly FormatParser[] = [
  ...sglangParsers,
  ...vllmParsers,
  vllmBenchRsMultiTurnParser,
  guidellmParser,
  ...aiperfParsers,
  llmperfSummaryParser,
  llmperfIndividualParser,
  ...inferencePerfParsers,
  trtllmBenchParser,
  trtllmPrintedReportParser,
  llamaBenchParser,
  llmdReportParser,
  ...vllmSuiteParsers,
  ...genaiBenchParsers,
  ...evalscopeParsers,
  mlperfSummaryParser,
  llmLoadTestParser,
];

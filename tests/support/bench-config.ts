/**
 * The bench configuration the integration tests start from: against `baseUrl` (the test server), one level of
 * concurrency 1, 3 requests, the built-in prompts, no warm-up, no server metrics; a test overrides what it
 * measures.
 */
import { builtinPrompts } from "@/lib/bench/prompts";
import type { BenchConfig } from "@/lib/bench/runner";

export function testBenchConfig(baseUrl: string, overrides: Partial<BenchConfig> = {}): BenchConfig {
  return {
    baseUrl: new URL(baseUrl),
    concurrency: [1],
    requests: 3,
    maxTokens: 256,
    temperature: 0,
    ignoreEos: false,
    endpoint: "chat",
    prompts: builtinPrompts(),
    timeoutMs: 10_000,
    warmup: 0,
    explicit: { model: "test-model" },
    metrics: null,
    ...overrides,
  };
}

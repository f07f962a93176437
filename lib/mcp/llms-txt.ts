/**
 * /llms.txt (llmstxt.org): what an agent reading this servebench needs to use it, in markdown with absolute links.
 * Written from the same names the API and the MCP server answer with, so it stays true to them.
 */
import { RUN_FORMAT } from "@/lib/document/schema";
import { linkTo } from "./answers";
import { MCP_TOOL_NAMES } from "./server";

export function llmsTxt(baseUrl: string, version: string): string {
  const at = (path: string) => linkTo(baseUrl, path);
  return `# servebench

> A team's record of LLM inference-server benchmark runs (vLLM, SGLang, TensorRT-LLM, llama.cpp…): each run is an
> engine, version, launch flags, environment, model and GPUs, with output tok/s, TTFT and TPOT (ms) per load level
> (concurrency or request rate). Runs are compared against a baseline, followed over time in series with
> regression alerts that name the last good and first bad run. Version ${version}. Reading is open; writing needs a
> token when the instance sets one.

## For agents

- [MCP server](${at("/api/mcp")}): read-only, streamable HTTP (stateless, JSON). Tools: ${MCP_TOOL_NAMES.map((name) => `\`${name}\``).join(", ")}. Every answer carries ids and links to cite. Over stdio: \`npx servebench mcp --url ${baseUrl}\`.
- [OpenAPI 3.1 document](${at("/api/openapi.json")}): every HTTP route, its parameters and answers.

## Reading

- [Runs](${at("/api/runs")}): \`GET /api/runs?q=&engine=&model=&gpu=&tag=&sort=&page=\`; one run: \`GET /api/runs/{id}\`.
- [Series](${at("/api/series")}) and [alerts](${at("/api/alerts")}): nightly series, their detected changes and open regressions.
- [Saved comparisons](${at("/api/comparisons")}); a comparison's figures as CSV: \`GET /api/compare/csv?runs=a,b\`.
- Pages a person can open: \`/runs/{id}\`, \`/compare?runs=a,b\`, \`/c/{slug}\`, \`/series/{id}\`, \`/alerts\`.
- Embeds to frame in a document: \`/embed/compare?runs=a,b&chart=throughput,tpot&theme=dark\`, \`/embed/c/{slug}\`, \`/embed/series/{id}\`.

## The run format

- [${RUN_FORMAT} JSON Schema](${at("/api/schema")}): one run, its configuration and one point per load level. Uploads
  (\`POST /api/runs\`) also take the result files of vLLM \`bench serve\` and its benchmark suite, SGLang and
  genai-bench, GuideLLM, AIPerf / GenAI-Perf, LLMPerf, inference-perf, trtllm-bench, llama-bench, MLPerf LoadGen,
  llm-load-test, EvalScope perf and llm-d benchmark reports. A run is also written as llm-d benchmark reports:
  \`GET /api/runs/{id}?format=llm-d\`.
- Units are in the field names: \`output_throughput\` (tok/s), \`mean_ttft_ms\`, \`p99_tpot_ms\`; TPOT excludes the first token.
`;
}

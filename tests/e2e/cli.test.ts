/** The command-line uploader from a shell, against the running server of the browser tests. */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const ROOT = path.join(__dirname, "..", "..");
const FIXTURES = path.join(ROOT, "tests", "fixtures");

function servebench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, "bin", "servebench.mjs"), ...args],
      { cwd: ROOT, timeout: 600_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe("npx servebench upload", () => {
  it("uploads a file with its context and prints the run's link", async () => {
    const result = await servebench([
      "upload",
      path.join(FIXTURES, "vllm", "bench_serve_v0.25.1.json"),
      "--url",
      baseUrl,
      "--engine",
      "vLLM",
      "--engine-version",
      "0.25.1",
      "--gpu",
      "NVIDIA L4",
      "--gpu-count",
      "1",
      "--command",
      "vllm serve facebook/opt-125m --max-num-seqs 4",
      "--tag",
      "cli",
      "--tag",
      "nightly",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const match = new RegExp(`^${baseUrl}/runs/([A-Za-z0-9_-]{12})\\n$`).exec(result.stdout);
    expect(match).not.toBeNull();
    const run = (await (await fetch(`${baseUrl}/api/runs/${match![1]}`)).json()) as Record<string, unknown>;
    expect(run).toMatchObject({
      engine: "vllm",
      engine_version: "0.25.1",
      model: "facebook/opt-125m",
      hardware: { gpu: "NVIDIA L4", gpu_count: 1 },
      flags: { "--max-num-seqs": "4" },
      tags: ["cli", "nightly"],
      source_format: "vllm-bench-serve",
    });
  });

  it("uploads a sweep folder split into runs and prints a link to compare them", async () => {
    const result = await servebench([
      "upload",
      path.join(FIXTURES, "vllm", "vllm_sweep_v0.25.1"),
      "--url",
      baseUrl,
      "--split",
    ]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(
      new RegExp(`^${baseUrl}/runs/[A-Za-z0-9_-]{12}  vLLM · opt-125m \\(--max-num-seqs 4, repeat 1\\)$`),
    );
    expect(lines[4]).toMatch(
      new RegExp(`^compare: ${baseUrl}/compare\\?runs=([A-Za-z0-9_-]{12},){3}[A-Za-z0-9_-]{12}$`),
    );
  });

  it("stores a file that states no engine with the engine unknown, and says so on stderr naming --engine", async () => {
    const result = await servebench([
      "upload",
      path.join(FIXTURES, "vllm", "bench_serve_v0.25.1.json"),
      "--url",
      baseUrl,
      "--tag",
      "engine-unknown",
    ]);
    expect(result.code).toBe(0);
    const match = new RegExp(`^${baseUrl}/runs/([A-Za-z0-9_-]{12})\\n$`).exec(result.stdout);
    expect(match).not.toBeNull();
    expect(result.stderr).toBe(
      'servebench upload: note: no file or launch command says which engine served the run; stored as engine "unknown" (pass --engine NAME, or --command with the server\'s launch command)\n',
    );
    const run = (await (await fetch(`${baseUrl}/api/runs/${match![1]}`)).json()) as Record<string, unknown>;
    expect(run.engine).toBe("unknown");
  });

  it("takes the engine from the --command program", async () => {
    const result = await servebench([
      "upload",
      path.join(FIXTURES, "vllm", "bench_serve_v0.25.1.json"),
      "--url",
      baseUrl,
      "--command",
      "uv run vllm serve facebook/opt-125m --max-num-seqs 8",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const id = new RegExp(`^${baseUrl}/runs/([A-Za-z0-9_-]{12})\\n$`).exec(result.stdout)?.[1];
    const run = (await (await fetch(`${baseUrl}/api/runs/${id}`)).json()) as Record<string, unknown>;
    expect(run).toMatchObject({ engine: "vllm", flags: { "--max-num-seqs": "8" } });
  });

  const contradicted = [
    "upload",
    path.join(FIXTURES, "sglang", "llama_3_3_70b_online_output.jsonl"),
    "--url",
    baseUrl,
    "--fragments",
    "0,1,2,3,4",
    "--model",
    "meta-llama/Llama-3.3-70B-Instruct",
    "--command",
    "vllm serve meta-llama/Llama-3.3-70B-Instruct",
  ];
  const contradiction =
    "the launch command starts vLLM (vllm serve) but the file says SGLang; fill in the engine that served the benchmark";

  it("exits 1 with the server's message when the upload is rejected, and the summary says why", async () => {
    const summaryFile = path.join(os.tmpdir(), `servebench-cli-summary-${process.pid}.md`);
    const result = await servebench([...contradicted, "--summary", summaryFile]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `servebench upload: rejected (422 validation_failed): The run document is invalid. engine: ${contradiction}\n`,
    );
    // Markdown: what the server said, escaped so it cannot break the page it lands on.
    const escaped = contradiction.replace("(vllm serve)", "\\(vllm serve\\)");
    expect(fs.readFileSync(summaryFile, "utf8")).toBe(
      `## servebench: upload rejected\n\nRejected by ${baseUrl} \\(422 validation\\_failed\\): The run document is invalid. engine: ${escaped}\n\n- engine: ${escaped}\n`,
    );
    fs.rmSync(summaryFile);
  });

  it("exits 1 on a dry run the server would reject, naming the field, as the upload would", async () => {
    const result = await servebench([...contradicted, "--dry-run"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("would reject the upload");
    expect(result.stderr).toBe(`servebench upload: the upload would be rejected:\n  engine: ${contradiction}\n`);
    // With the engine named it would be stored: exit 0.
    const settled = await servebench([...contradicted, "--engine", "vllm", "--dry-run"]);
    expect(settled.stderr).toBe("");
    expect(settled.code).toBe(0);
  });

  it("exits 1 when the server cannot be reached", async () => {
    const result = await servebench([
      "upload",
      path.join(FIXTURES, "vllm", "bench_serve_v0.25.1.json"),
      "--url",
      "http://127.0.0.1:9",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^servebench upload: cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  it("exits 2 on bad usage", async () => {
    expect((await servebench(["upload", "--url", baseUrl])).code).toBe(2);
    expect((await servebench(["upload", "no-such-file.json"])).stderr).toBe(
      "servebench upload: no such file or folder: no-such-file.json\n",
    );
    expect((await servebench(["upload", "x.json", "--bogus"])).code).toBe(2);
    expect((await servebench(["frobnicate"])).code).toBe(2);
  });
});

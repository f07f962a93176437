/**
 * Accuracy gated like throughput, from CI: a nightly series uploaded with `servebench upload NIGHT.json --eval
 * results.json --series … --fail-on-regression`, whose gsm8k score falls 6 points (stderr 1.2, noise band ±3.3)
 * from night 7 on while its speed holds. Night 7 is suspicious (exit 0), night 8 confirms it: exit 3, and the
 * summary names the score.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nightlyDocuments } from "../support/nightly-documents";
import { deleteAllRuns } from "./browser";
import { workerServerUrl } from "./worker-server";

const baseUrl = workerServerUrl();
const ROOT = path.join(__dirname, "..", "..");
const LM_EVAL = path.join(
  ROOT,
  "tests",
  "fixtures",
  "accuracy",
  "lm-eval",
  "v0.4.2-dev_gsm8k_Meta-Llama-3-8B-Instruct.json",
);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-cli-accuracy-"));

function servebench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, "bin", "servebench.mjs"), ...args],
      {
        cwd: dir,
        timeout: 600_000,
        env: { PATH: process.env.PATH ?? "", HOME: dir, NODE_ENV: "production" },
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

/** The real lm-eval file with its strict-match gsm8k score moved by `delta` (the flexible-extract one unchanged). */
function evalFile(night: number, delta: number): string {
  const results = JSON.parse(fs.readFileSync(LM_EVAL, "utf8")) as { results: { gsm8k: Record<string, number> } };
  results.results.gsm8k["exact_match,strict-match"]! += delta;
  const file = path.join(dir, `results_night_${night}.json`);
  fs.writeFileSync(file, JSON.stringify(results));
  return file;
}

afterAll(() => {
  if (!process.env.KEEP_CLI_ACCURACY) fs.rmSync(dir, { recursive: true, force: true });
});

describe("servebench upload --eval in a nightly series", () => {
  it("exits 3 on the second night gsm8k stays 6 points down, naming the score", async () => {
    await deleteAllRuns(baseUrl);
    const documents = nightlyDocuments({ series: "nightly-accuracy", seed: 4, nights: 8, flakeAt: null, stepAt: null });
    const codes: number[] = [];
    let lastSummary = "";
    for (const [index, document] of documents.entries()) {
      const night = index + 1;
      const file = path.join(dir, `night_${night}.json`);
      fs.writeFileSync(file, JSON.stringify(document));
      const summary = path.join(dir, `summary_${night}.md`);
      const result = await servebench([
        "upload",
        file,
        "--eval",
        evalFile(night, night >= 7 ? -0.06 : 0),
        "--url",
        baseUrl,
        "--fail-on-regression",
        "--summary",
        summary,
      ]);
      codes.push(result.code);
      lastSummary = fs.readFileSync(summary, "utf8");
      if (night < 8) expect(result.code, `night ${night}\n${result.stdout}\n${result.stderr}`).toBe(0);
    }
    expect(codes).toEqual([0, 0, 0, 0, 0, 0, 0, 3]);
    // The summary's row of the score (markdown-escaped), 6 points down, and the one that held.
    expect(lastSummary).toContain(
      "| gsm8k · exact\\_match \\(strict-match\\), lm-eval | 69.6 % | 75.6 ± 1.3 % | -7.9% | **worse**, regression (open) |",
    );
    expect(lastSummary).toContain(
      "| gsm8k · exact\\_match \\(flexible-extract\\), lm-eval | 75.3 % | 75.3 ± 1.3 % | 0.0% | ok |",
    );
    expect(lastSummary).toContain("last good **nightly 6**");
    const alerts = (await (await fetch(`${baseUrl}/api/alerts?status=open`)).json()) as {
      alerts: { figures?: { label: string }[]; metric_label?: string }[];
    };
    expect(JSON.stringify(alerts)).toContain("gsm8k");
  });
});

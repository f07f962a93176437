/**
 * The CLI where CI runs: the file a servebench serves at /cli/servebench.mjs, run from an empty folder with
 * nothing installed, uploading a nightly series night by night to a server with a webhook receiver; and the
 * npm package as `npm pack` makes it.
 */
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CapacityJson } from "../../lib/comparisons/capacity-export";
import { migrateDatabase } from "../../lib/db/migrate";
import { nightlyDocuments } from "../support/nightly-documents";
import { launchBrowser } from "./browser";
import { type RunningServer, startServer, stopServer } from "./server";

const ROOT = path.join(__dirname, "..", "..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-cli-ci-"));
const empty = path.join(dir, "empty");
fs.mkdirSync(empty);

const hooks: Record<string, unknown>[] = [];
const receiver = http.createServer((request, response) => {
  let text = "";
  request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  request.on("end", () => {
    hooks.push(JSON.parse(text) as Record<string, unknown>);
    response.writeHead(200).end("ok");
  });
});
let server: RunningServer;
let firstId: string | undefined;
const firstRunId = () => firstId ?? expect.fail("the first night's run id is read by the test before");

/** Run a command with only PATH and HOME: no NODE_PATH, no node_modules anywhere above the folder. */
function run(
  file: string,
  args: string[],
  cwd: string,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, timeout: 600_000, env: { PATH: process.env.PATH ?? "", HOME: dir, NODE_ENV: "production", ...extraEnv } },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

/** Polls the delivery log until no webhook is still pending: then every delivery that will be sent was sent. */
async function deliveriesSettled(): Promise<void> {
  for (;;) {
    const log = (await (await fetch(`${server.url}/api/alerts/deliveries`)).json()) as {
      deliveries: { status: string }[];
    };
    if (log.deliveries.length > 0 && log.deliveries.every((delivery) => delivery.status !== "pending")) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const file = path.join(dir, "ci.db");
  migrateDatabase(file);
  server = await startServer(file, path.join(dir, "server.log"), {
    SERVEBENCH_WEBHOOK_URLS: hook,
    SERVEBENCH_DEMO: "0",
  });
});

afterAll(async () => {
  await stopServer(server);
  await new Promise((resolve) => receiver.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("curl -fsSO $URL/cli/servebench.mjs && node servebench.mjs upload …", () => {
  it("is served, and runs from an empty folder with nothing installed", async () => {
    const response = await fetch(`${server.url}/cli/servebench.mjs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/javascript/);
    const text = await response.text();
    expect(text.startsWith("#!/usr/bin/env node\n// servebench ")).toBe(true);
    expect(text).not.toMatch(/from ["'](zod|shell-quote|@\/)/);
    fs.writeFileSync(path.join(empty, "servebench.mjs"), text);
    expect(fs.readdirSync(empty)).toEqual(["servebench.mjs"]);
    const help = await run(process.execPath, ["servebench.mjs", "--help"], empty);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("servebench upload FILE_OR_FOLDER...");
    expect(help.stdout).toContain("--fail-on-regression");
  });

  it("uploads 30 nights with a −10% step at night 20: exit 3 from the night it is significant, one webhook and one alert naming nights 19 → 20 and every moved figure", async () => {
    // Night 20 is index 19; the step moves every figure (single stream, peak, output throughput, TTFT, TPOT).
    const docs = nightlyDocuments({ seed: 7, series: "ignored", flakeAt: 10, stepAt: 19, stepEveryFigure: true });
    const codes: number[] = [];
    const summaries: string[] = [];
    const step = path.join(empty, "step-summary.md");
    for (const [index, doc] of docs.entries()) {
      const { series: _ignored, git_commit, ...rest } = doc;
      const file = path.join(empty, `night-${index + 1}.json`);
      fs.writeFileSync(file, JSON.stringify(rest));
      const result = await run(
        process.execPath,
        [
          "servebench.mjs",
          "upload",
          file,
          "--url",
          server.url,
          "--series",
          "nightly-cli",
          "--git-commit",
          String(git_commit),
          "--fail-on-regression",
          "--summary",
          "summary.md",
        ],
        empty,
        {
          GITHUB_STEP_SUMMARY: step,
          GITHUB_SERVER_URL: "https://github.example",
          GITHUB_REPOSITORY: "team/bench",
          GITHUB_RUN_ID: String(100 + index),
          GITHUB_REF_NAME: "main",
        },
      );
      codes.push(result.code);
      summaries.push(fs.readFileSync(path.join(empty, "summary.md"), "utf8"));
      expect(result.stdout).toMatch(new RegExp(`^${server.url}/runs/[A-Za-z0-9_-]{12}\\n$`));
      if (result.code === 3)
        expect(result.stderr).toBe("servebench upload: 1 run judged a regression of nightly-cli\n");
    }
    // Night 20 is suspicious (one bad night); night 21 confirms the step: exit 3 from there, every night after.
    expect(codes).toEqual([...Array(20).fill(0), ...Array(10).fill(3)]);

    expect(summaries[5]).toMatch(/^## servebench · nightly-cli: no change beyond the noise\n/);
    expect(summaries[5]).toContain("| Single stream | ");
    // Judged from the third night, the first ones with a short baseline, said so.
    expect(summaries[2]).toContain("Confidence: low. The baseline is short (2 earlier runs)");
    expect(summaries[10]).toMatch(
      /^## servebench · nightly-cli: suspicious change \(not yet a regression\), nightly 10 → nightly 11\n/,
    );
    expect(summaries[10]).not.toContain("no regression");
    expect(summaries[15]).toContain("- engine version: 0.11.0 → 0.12.0");
    const commit = (night: number) => night.toString(16).padStart(8, "0").repeat(5).slice(0, 12);
    for (const regression of [summaries[20]!, summaries[25]!]) {
      expect(regression).toMatch(/^## servebench · nightly-cli: regression, nightly 19 → nightly 20\n/);
      expect(regression.match(/^#/gm)).toHaveLength(1);
      expect(regression).toContain(
        `Culprit range: last good **nightly 19** (commit \`${commit(19)}\`) → first bad **nightly 20** (commit \`${commit(20)}\`)`,
      );
      expect(regression).toContain(`- commit: ${commit(19)} → ${commit(20)}`);
      expect(regression).toContain(`Bisect between commits ${commit(19)} and ${commit(20)}.`);
      expect(regression).toMatch(
        /\| Single stream \| [\d.]+ tok\/s \| [\d.]+ ± [\d.]+ tok\/s \| -\d+\.\d% \| \*\*worse\*\*, regression \(open\) \|/,
      );
      expect(regression.match(/\[alert: /g)).toHaveLength(1);
      expect(regression).toMatch(
        /\[alert: Single stream, [^\]]+\]\(http:\/\/localhost:\d+\/series\/[A-Za-z0-9_-]{10}#change-/,
      );
    }
    expect(fs.readFileSync(step, "utf8").split("## servebench").length - 1).toBe(30);

    await deliveriesSettled();
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({
      event: "regression",
      series: { name: "nightly-cli" },
      culprit: {
        last_good: { name: "nightly 19", git_commit: (19).toString(16).padStart(8, "0").repeat(5) },
        first_bad: { name: "nightly 20", git_commit: (20).toString(16).padStart(8, "0").repeat(5) },
      },
    });
    expect(((hooks[0]!.figures as { key: string }[]) ?? []).map((figure) => figure.key).sort()).toEqual(
      ["mean_tpot_ms@c:64", "mean_ttft_ms@c:64", "output_throughput@c:64", "peak_tok_s", "single_stream_tok_s"].sort(),
    );
    expect(hooks[0]!.text).toContain(`nightly 19 (${commit(19)}) → nightly 20 (${commit(20)})`);
    const alerts = (await (await fetch(`${server.url}/api/alerts`)).json()) as {
      alerts: { figures: unknown[] }[];
      counts: { open: number };
    };
    expect(alerts.counts.open).toBe(1);
    expect(alerts.alerts[0]!.figures).toHaveLength(5);
    // The alerts page names the culprit range as the summary does: the two runs by name and commit.
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${server.url}/alerts`);
      expect(await page.getByTestId("alert-culprit").textContent()).toBe(
        `last good nightly 19 (${commit(19)}) → first bad nightly 20 (${commit(20)})`,
      );
    } finally {
      await browser.close();
    }

    // A run of another model sent to the series is refused, naming the field; nothing is stored.
    const wrong = path.join(empty, "wrong-model.json");
    const { series: _s, git_commit: _c, ...rest } = docs[29]!;
    fs.writeFileSync(wrong, JSON.stringify({ ...rest, model: "facebook/opt-125m", name: "opt nightly" }));
    const refused = await run(
      process.execPath,
      ["servebench.mjs", "upload", wrong, "--url", server.url, "--series", "nightly-cli", "--fail-on-regression"],
      empty,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('model: "facebook/opt-125m" differs from the model of series "nightly-cli"');

    const list = (await (await fetch(`${server.url}/api/series`)).json()) as {
      series: { name: string; run_count: number; status: string }[];
    };
    expect(list.series).toMatchObject([{ name: "nightly-cli", run_count: 30, status: "regression" }]);
    const runs = (await (await fetch(`${server.url}/api/runs?per_page=1`)).json()) as { runs: { id: string }[] };
    const latest = (await (await fetch(`${server.url}/api/runs/${runs.runs[0]!.id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(latest).toMatchObject({
      series: "nightly-cli",
      git_branch: "main",
      ci_url: "https://github.example/team/bench/actions/runs/129",
    });
    // Thirty uploads, each a fresh node process: on a machine shared with builds that is more than the default minute.
  });

  it("compares two runs as JSON and as markdown", async () => {
    const { runs } = (await (await fetch(`${server.url}/api/runs?per_page=30&sort=date&dir=asc`)).json()) as {
      runs: { id: string }[];
    };
    const [first, last] = [runs[0]!.id, runs[runs.length - 1]!.id];
    firstId = first;
    const json = await run(
      process.execPath,
      ["servebench.mjs", "compare", first, `${server.url}/runs/${last}`, "--url", server.url, "--format", "json"],
      empty,
    );
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as {
      headline: { figure: string; change_pct: number }[];
      what_changed: string[];
    };
    expect(report.headline[0]!.figure).toBe("single stream");
    expect(report.headline[0]!.change_pct).toBeLessThan(-5);
    expect(report.what_changed).toContain("engine version: 0.11.0 → 0.12.0");
    expect(report.what_changed).toContain(
      `commit: ${"00000001".repeat(2).slice(0, 12)} → ${"0000001e".repeat(2).slice(0, 12)}`,
    );
    const md = await run(process.execPath, ["servebench.mjs", "compare", first, last, "--url", server.url], empty);
    expect(md.code).toBe(0);
    // The compare page's verdict first, then the figures, each change judged as the page judges it.
    expect(md.stdout).toMatch(
      /^## nightly 30 vs nightly 1\n\n> vLLM 0\.12\.0 vs vLLM 0\.11\.0: single stream [\d.]+ → [\d.]+ tok\/s \\\(-\d+\.\d%\\\)/,
    );
    expect(md.stdout).toMatch(/\n- \*\*single stream\*\*: [\d.]+ tok\/s → [\d.]+ tok\/s \(-\d+\.\d%\)\n/);
    expect(md.stdout).toContain("| Load | Baseline | Run | Change | Verdict |");
    expect(md.stdout).toMatch(/\| C=1 \| [\d.]+ tok\/s \| [\d.]+ tok\/s \| -\d+\.\d% \| worse \|/);
    const bad = await run(process.execPath, ["servebench.mjs", "compare", first], empty);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`name two runs (given: "${first}")`);
    // The capacity options are the compare page's parameters: a demand sizes both runs at the tier.
    const sized = await run(
      process.execPath,
      ["servebench.mjs", "compare", first, last, "--url", server.url, "--format", "json", "--tiers", "chat"].concat([
        "--demand",
        "users:100",
        "--price",
        "2",
      ]),
      empty,
    );
    expect(sized.code).toBe(0);
    const capacity = (JSON.parse(sized.stdout) as { capacity: CapacityJson }).capacity;
    expect(capacity.tiers.map((tier) => tier.id)).toEqual(["chat"]);
    expect(capacity.planner?.demand).toEqual({ kind: "users", value: 100, unit: "concurrent users" });
    expect(capacity.planner?.ranking).toHaveLength(2);
    const refused = await run(
      process.execPath,
      ["servebench.mjs", "compare", first, last, "--url", server.url, "--tiers", "soon", "--demand", "people:3"],
      empty,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'servebench compare: --tiers: "soon" is neither a preset (interactive, chat, agentic, batch) nor name:ttft=MS:tpot=MS:e2e=MS:p99; --demand: "people:3" is not a demand: users:N, rps:N or tok_s:N',
    );
  });

  it("compares a run whose id begins with a dash (one id in 64 does)", async () => {
    const stored = (await (await fetch(`${server.url}/api/runs/${firstRunId()}`)).json()) as Record<string, unknown>;
    const restored = await fetch(`${server.url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...stored, id: "-dashFirst12", name: "nightly 1, restored" }),
    });
    expect(restored.status).toBe(201);
    const md = await run(
      process.execPath,
      ["servebench.mjs", "compare", firstRunId(), "-dashFirst12", "--url", server.url],
      empty,
    );
    expect(md.stderr).toBe("");
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^## nightly 1, restored vs nightly 1\n/);
    expect(md.stdout).toContain("Nothing changed: configuration, commit and branch are the same.");
  });
});

describe("the npm package", () => {
  it("packs the bundle alone and runs from an empty folder", () => {
    const out = path.join(dir, "pack");
    fs.mkdirSync(out);
    // prepack (the bundle) prints a line before npm's JSON.
    const stdout = execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const packed = JSON.parse(stdout.slice(stdout.indexOf("[\n"))) as {
      name: string;
      filename: string;
      files: { path: string }[];
    }[];
    expect(packed[0]!.name).toBe("servebench");
    expect(packed[0]!.files.map((file) => file.path).sort()).toEqual(
      [
        "LICENSE",
        "README.md",
        "bin/servebench.mjs",
        "package.json",
        "public/cli/servebench.mjs",
        "scripts/postinstall.mjs",
      ].filter((name) => name !== "LICENSE" || fs.existsSync(path.join(ROOT, "LICENSE"))),
    );
    const unpacked = path.join(dir, "unpacked");
    fs.mkdirSync(unpacked);
    execFileSync("tar", ["xzf", path.join(out, packed[0]!.filename), "-C", unpacked]);
    const manifest = JSON.parse(fs.readFileSync(path.join(unpacked, "package", "package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(manifest.dependencies).toEqual({});
    expect(manifest.bin).toEqual({ servebench: "bin/servebench.mjs" });
    // npm runs the package's postinstall on install: with no schema beside it, it does nothing.
    expect(
      execFileSync(process.execPath, [path.join(unpacked, "package", "scripts", "postinstall.mjs")]).toString(),
    ).toBe("");
    const help = execFileSync(process.execPath, [path.join(unpacked, "package", "bin", "servebench.mjs"), "help"], {
      cwd: empty,
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production" },
    }).toString();
    expect(help).toContain("Usage: servebench <command> [options]");
  });
});

/**
 * Prints one plain closing line, `N passed, N failed`, after vitest's own summary, so any CI log reader can
 * tell at a glance how the whole suite went. Above it, the slowest test files: where CI's minutes go.
 */
import path from "node:path";
import type { Reporter, TestCase, TestModule } from "vitest/node";

/** How many of the slowest files the summary lists. */
const SLOWEST_SHOWN = 12;

export interface FileTime {
  project: string;
  file: string;
  /** Importing the file and running its tests and hooks. */
  seconds: number;
}

/** The slowest files, longest first, one line each: "  93.1 s  e2e  tests/e2e/compare.test.ts". */
export function slowestFilesText(files: readonly FileTime[], shown = SLOWEST_SHOWN): string {
  const slowest = [...files].sort((a, b) => b.seconds - a.seconds).slice(0, shown);
  if (slowest.length === 0) return "";
  const total = files.reduce((sum, file) => sum + file.seconds, 0);
  const projectWidth = Math.max(...slowest.map((file) => file.project.length));
  const lines = slowest.map(
    (file) => `${file.seconds.toFixed(1).padStart(7)} s  ${file.project.padEnd(projectWidth)}  ${file.file}`,
  );
  return `\nslowest test files (of ${files.length}, ${total.toFixed(0)} s in all, summed across workers):\n${lines.join("\n")}\n`;
}

function fileTimeOf(module: TestModule, root: string): FileTime {
  const diagnostic = module.diagnostic();
  return {
    project: module.project.name,
    file: path.relative(root, module.moduleId),
    seconds: (diagnostic.collectDuration + diagnostic.duration) / 1000,
  };
}

/**
 * A test that never ran because a hook of its suite (or file) threw: it did not pass, so it is counted failed. The
 * hook's error is the suite's own (`errors()`); a suite that failed only because one of its tests did has none, and
 * the tests a name filter skipped there stay skipped.
 */
function skippedByAFailedHook(test: TestCase): boolean {
  if (test.result().state !== "skipped") return false;
  for (let parent = test.parent; ; parent = parent.parent) {
    if (parent.state() === "failed" && parent.errors().length > 0) return true;
    if (parent.type === "module") return false;
  }
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed" || skippedByAFailedHook(test)) failed += 1;
        else skipped += 1;
      }
      // A file that failed to load has no tests to count; it is a failure all the same.
      if (module.state() === "failed" && [...module.children.allTests()].length === 0) failed += 1;
    }
    failed += unhandledErrors.length;
    process.stdout.write(slowestFilesText(testModules.map((module) => fileTimeOf(module, process.cwd()))));
    if (process.env.SERVEBENCH_POSTGRESQL_SUITE === "not-run") {
      process.stdout.write(
        "\nPostgreSQL suite NOT RUN: PostgreSQL is not installed here (no initdb on PATH or under /usr/lib/postgresql/*/bin). " +
          "Install it (apt-get install -y postgresql) to run the integration tests on PostgreSQL too; CI always does.\n",
      );
    }
    const line = `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`;
    process.stdout.write(`\n${line}\n`);
  }
}

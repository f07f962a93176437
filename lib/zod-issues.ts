/**
 * zod's issues → the `{ path, message }` pairs of every error answer: the one converter, for query strings,
 * bodies, saved views and run documents alike. Unknown keys are each named, a missing field "is required", and a
 * union reports the branch that got furthest. A caller with rules of its own (a run document's extra fields) passes
 * `refine`, which may replace an issue's message or drop the issue.
 */
import type { z } from "zod";
import type { ErrorIssue } from "@/lib/errors";

export type ZodIssue = z.ZodError["issues"][number];

/** Rewrite one converted issue: its new `{ path, message }`, or the issue unchanged. */
export type RefineIssue = (issue: ZodIssue, converted: ErrorIssue) => ErrorIssue;

function pathOf(path: readonly PropertyKey[]): string {
  return path.map((part) => String(part)).join(".");
}

/**
 * A union's issues from the branch that got furthest: not one that failed on the value's type alone ("expected
 * array, received object") when another failed on what the value holds ("must not contain a control character").
 */
function unionBranch(issue: Extract<ZodIssue, { code: "invalid_union" }>): ZodIssue[] | null {
  const typeOnly = (issues: readonly ZodIssue[]) =>
    issues.every(
      (inner) => (inner.code === "invalid_type" || inner.code === "invalid_value") && inner.path.length === 0,
    );
  const telling = issue.errors.filter((branch) => branch.length > 0 && !typeOnly(branch));
  return telling.length === 1 ? telling[0]! : null;
}

function flattenIssues(issues: readonly ZodIssue[], prefix: readonly PropertyKey[] = []): ZodIssue[] {
  const out: ZodIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union") {
      const branch = unionBranch(issue);
      if (branch) {
        out.push(...flattenIssues(branch, path));
        continue;
      }
    }
    if (issue.code === "invalid_key" && issue.issues.length > 0) {
      // A record key that failed its own schema: its message says why, at the key's path.
      out.push(...flattenIssues(issue.issues, path).map((inner) => ({ ...inner, path: path })));
      continue;
    }
    out.push({ ...issue, path } as ZodIssue);
  }
  return out;
}

export function zodIssues(error: z.ZodError, refine?: RefineIssue): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  for (const issue of flattenIssues(error.issues)) {
    const path = pathOf(issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        issues.push({ path: path ? `${path}.${key}` : key, message: `unknown field "${key}"` });
      }
      continue;
    }
    const message =
      issue.code === "invalid_type" && /received undefined$/.test(issue.message) ? "is required" : issue.message;
    issues.push(refine ? refine(issue, { path, message }) : { path, message });
  }
  return issues;
}

import type { ErrorIssue } from "@/lib/errors";

/** Keys that name a property every JavaScript object has: read into an object, they change it or vanish. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** The first `__proto__`, `constructor` or `prototype` key of a parsed JSON value, as an issue; null when none. */
export function forbiddenKeyPath(value: unknown): ErrorIssue | null {
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    const entries: [string, unknown][] = Array.isArray(current)
      ? current.map((item, index) => [String(index), item])
      : Object.keys(current).map((key) => [key, (current as Record<string, unknown>)[key]]);
    for (const [key, child] of entries) {
      const childPath = path ? `${path}.${key}` : key;
      if (!Array.isArray(current) && FORBIDDEN_KEYS.has(key)) {
        return {
          path: childPath,
          message: `"${key}" is not allowed as a field name: every JavaScript object has a property of that name`,
        };
      }
      if (typeof child === "object" && child !== null) stack.push([child, childPath]);
    }
  }
  return null;
}

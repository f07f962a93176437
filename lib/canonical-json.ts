/**
 * JSON whose text depends only on the value: every object's keys in code-unit order and its undefined members
 * left out, so two equal values written in any key order give the same text (and the same hash).
 */

/** The value with every object's keys in code-unit order and its undefined members left out. */
export function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, withSortedKeys(v)]),
  );
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(withSortedKeys(value));
}

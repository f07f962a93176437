/**
 * A lookup table read with a key that came from outside (an engine name, a flag, a column of a results file):
 * the table's own entries only. `table[key]` would answer "constructor" with Object's constructor and
 * "__proto__" with Object.prototype, which then reach a page as a function or an object and break it.
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

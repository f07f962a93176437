/**
 * A run's launch flags as the validity checks read them: one object whether the document holds an object
 * (`{"--tp": 8}`) or command-line tokens (`["--tp", "8"]`), values as text, counts and switches.
 */
import { parseFlagTokens } from "@/lib/document/flags";
import { ownValue } from "@/lib/own-value";

/** A flag's value as documents hold it: strings once normalized, numbers and lists in an upload's flag object. */
export type FlagEntry = string | number | boolean | (string | number)[];
export type RunFlags = Readonly<Record<string, FlagEntry>> | readonly (string | number)[];

export function flagObject(flags: RunFlags | null | undefined): Readonly<Record<string, FlagEntry>> {
  if (!flags) return {};
  if (Array.isArray(flags)) return parseFlagTokens(flags.map(String));
  return flags as Readonly<Record<string, FlagEntry>>;
}

/** Values that mean "not set": SGLang's server_info writes `None`, a config `auto`. */
const UNSET = new Set(["", "none", "null", "false", "auto"]);

/** The first of `names` the flags hold with a value (not a switch, not "none" or "auto"), as text. */
export function flagText(flags: Readonly<Record<string, FlagEntry>>, names: readonly string[]): string | null {
  for (const name of names) {
    const value = ownValue(flags, name);
    if (value === undefined || typeof value === "boolean") continue;
    const text = (Array.isArray(value) ? String(value[value.length - 1] ?? "") : String(value)).trim();
    if (!UNSET.has(text.toLowerCase())) return text;
  }
  return null;
}

/** The first of `names` as a whole number of at least 1; null when none holds one. */
export function flagCount(flags: Readonly<Record<string, FlagEntry>>, names: readonly string[]): number | null {
  const text = flagText(flags, names);
  if (text === null || !/^\d{1,6}$/.test(text)) return null;
  const value = Number(text);
  return value >= 1 ? value : null;
}

/** Whether a switch is on: `--enable-dp-attention`, `{"--enable-dp-attention": true}` or `"true"`. */
export function flagOn(flags: Readonly<Record<string, FlagEntry>>, name: string): boolean {
  const value = ownValue(flags, name);
  return value === true || (typeof value === "string" && value.trim().toLowerCase() === "true");
}

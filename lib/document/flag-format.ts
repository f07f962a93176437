/** How flags read on screen. Kept apart from the command parser so browser code does not ship it. */
import type { FlagValue } from "./schema";

/** How a flag's value reads on screen and in diffs. */
export function formatFlagValue(value: FlagValue): string {
  if (value === true) return "on";
  if (value === false) return "off";
  if (Array.isArray(value)) return value.join(" ");
  return value;
}

/** How a flag reads as the user would type it: `--tp 8`, `--disable-cuda-graph`, `--no-enable-prefix-caching`. */
export function formatFlag(name: string, value: FlagValue): string {
  if (value === true) return name;
  if (value === false) return name.startsWith("--") ? `--no-${name.slice(2)}` : `${name}=false`;
  return `${name} ${formatFlagValue(value)}`;
}

/**
 * Effective settings: what a run's engine actually ran with, flag or default, for each catalogued setting its
 * flags mention. A flag that is absent is not "off": vLLM 0.11 prefills in chunks with or without
 * `--enable-chunked-prefill`. Each side is read by its own engine's catalogue at its own version, so switching
 * engines compares `--tensor-parallel-size 8` with `--tp 8` as the same tensor parallelism.
 *
 * How a side reads (docs/engine-settings.md): `on` (a flag set it), `on (default)` (the catalogued default for
 * that version), `default (the model's context length)` (a default that depends on what the run does not state),
 * `default unknown for vLLM 0.4.2` (no catalogued default covers that version), `launch flags not recorded` (the run
 * has no flags at all), `not catalogued for TGI`.
 */
import { canonicalFlagName } from "@/lib/document/flags";
import { engineDisplayName } from "@/lib/document/names";
import type { Flags, FlagValue } from "@/lib/document/schema";
import {
  type CatalogueEngine,
  type CatalogueSetting,
  type CatalogueSpelling,
  catalogueEngine,
  defaultFor,
  FLAG_CATALOGUE,
  type FlagCatalogue,
  settingOfFlag,
} from "./catalogue";

export type DefaultSource = "flag" | "default" | "unknown";

export interface EffectiveValue {
  /** "on" | "off" for a switch, the value for the rest ("8", "fp8"); null when it cannot be told. */
  value: string | null;
  source: DefaultSource;
}

export interface EffectiveChange {
  /** The catalogue's setting id, e.g. "chunked-prefill". */
  setting: string;
  /** How the setting is called, e.g. "chunked prefill". */
  label: string;
  /** The baseline's side. */
  from: EffectiveValue;
  /** The other run's side. */
  to: EffectiveValue;
  /** false: the same effective value; true: different; null: cannot tell (a default is unknown or depends). */
  changed: boolean | null;
  /** One line: `chunked prefill: on (default) → on`, `CUDA graphs: on (default) → off`. */
  text: string;
}

export interface EngineLaunch {
  engine: string;
  engine_version?: string | undefined;
  flags: Flags;
}

/** A side as it reads in a change's text, beside the value it compares by. */
interface SideReading extends EffectiveValue {
  words: string;
}

/** A flag value as a run may hold it: parsed commands give strings and booleans, hand-written objects numbers. */
type LooseFlagValue = FlagValue | number | (string | number)[];

const SWITCH_ON = new Set(["true", "1", "on", "yes", "enabled", "enable"]);
const SWITCH_OFF = new Set(["false", "0", "off", "no", "disabled", "disable"]);
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** The flags under the names runs store (they already are, unless written by hand): a Map, never a lookup. */
function storedFlags(flags: Flags): Map<string, LooseFlagValue> {
  const byName = new Map<string, LooseFlagValue>();
  for (const [name, value] of Object.entries(flags) as [string, LooseFlagValue][]) {
    const stored = canonicalFlagName(name);
    if (!byName.has(stored)) byName.set(stored, value);
  }
  return byName;
}

function lastOf(value: LooseFlagValue): string | number | boolean {
  // A repeated switch keeps its values in order; as on the engine's own command line, the last one counts.
  return Array.isArray(value) ? (value[value.length - 1] ?? "") : value;
}

function switchWords(raw: LooseFlagValue, spelling: CatalogueSpelling, negated: boolean): string {
  const value = lastOf(raw);
  let on: boolean;
  if (typeof value === "boolean") on = value;
  else if (typeof value === "number") on = value !== 0;
  else {
    const word = value.trim().toLowerCase();
    if (word === "" || SWITCH_ON.has(word)) on = true;
    else if (SWITCH_OFF.has(word)) on = false;
    else return word; // a third state, such as llama.cpp's `-fa auto`
  }
  if (spelling.means === "off") on = !on;
  if (negated) on = !on;
  return on ? "on" : "off";
}

function valueWords(raw: LooseFlagValue): string {
  if (typeof raw === "boolean") return raw ? "on" : "off";
  if (typeof raw === "number") return String(raw);
  if (Array.isArray(raw)) return raw.map(String).join(" ");
  const trimmed = raw.trim();
  // `0.90` and `0.9` are one memory fraction; `08` and `8` one parallel size.
  return PLAIN_NUMBER.test(trimmed) && Number.isFinite(Number(trimmed)) ? String(Number(trimmed)) : trimmed;
}

function versionWords(engine: CatalogueEngine, version: string | undefined): string {
  const stated = version?.trim();
  return stated ? `${engine.label} ${stated}` : `${engine.label} (no version given)`;
}

function readSide(
  setting: CatalogueSetting,
  launch: EngineLaunch,
  engine: CatalogueEngine | undefined,
  flags: Map<string, LooseFlagValue>,
): SideReading {
  if (!engine) {
    return { value: null, source: "unknown", words: `not catalogued for ${engineDisplayName(launch.engine)}` };
  }
  const entry = setting.engines.get(engine.id);
  if (!entry) return { value: null, source: "unknown", words: `not catalogued for ${engine.label}` };
  // No flags at all (not even the model a launch command names) means the run did not record how it was launched,
  // as results files imported without their server's arguments: its defaults would be a guess.
  if (flags.size === 0) return { value: null, source: "unknown", words: "launch flags not recorded" };
  for (const spelling of entry.flags) {
    const direct = flags.get(spelling.name);
    const negatedName = spelling.name.startsWith("--") ? `--no-${spelling.name.slice(2)}` : undefined;
    const negatedValue = negatedName === undefined ? undefined : flags.get(negatedName);
    const raw = direct ?? negatedValue;
    if (raw === undefined) continue;
    const negated = direct === undefined;
    const value = setting.kind === "switch" ? switchWords(raw, spelling, negated) : valueWords(raw);
    return { value, source: "flag", words: value };
  }
  const fallback = defaultFor(entry, launch.engine_version);
  if (fallback.kind === "known")
    return { value: fallback.value, source: "default", words: `${fallback.value} (default)` };
  if (fallback.kind === "depends") return { value: null, source: "unknown", words: `default (${fallback.depends})` };
  return {
    value: null,
    source: "unknown",
    words: `default unknown for ${versionWords(engine, launch.engine_version)}`,
  };
}

/** The ids of the effective settings a run's flags mention, read by its engine's catalogue. */
function mentionedSettings(engine: CatalogueEngine | undefined, flags: Map<string, LooseFlagValue>, into: Set<string>) {
  if (!engine) return;
  for (const name of flags.keys()) {
    const found = settingOfFlag(engine.id, name);
    if (found && !found.setting.spellingsOnly) into.add(found.setting.id);
  }
}

/**
 * Every catalogued setting either run's flags mention, in catalogue order, each side read with its own engine and
 * version. Flags the catalogue does not know are not here; the literal diff still shows them.
 */
export function effectiveChanges(
  base: EngineLaunch,
  other: EngineLaunch,
  catalogue: FlagCatalogue = FLAG_CATALOGUE,
): EffectiveChange[] {
  const baseEngine = catalogueEngine(base.engine, catalogue);
  const otherEngine = catalogueEngine(other.engine, catalogue);
  const baseFlags = storedFlags(base.flags);
  const otherFlags = storedFlags(other.flags);
  const mentioned = new Set<string>();
  mentionedSettings(baseEngine, baseFlags, mentioned);
  mentionedSettings(otherEngine, otherFlags, mentioned);
  return catalogue.settings
    .filter((setting) => mentioned.has(setting.id))
    .map((setting) => {
      const { words: fromWords, ...from } = readSide(setting, base, baseEngine, baseFlags);
      const { words: toWords, ...to } = readSide(setting, other, otherEngine, otherFlags);
      const changed = from.value !== null && to.value !== null ? from.value !== to.value : null;
      return {
        setting: setting.id,
        label: setting.label,
        from,
        to,
        changed,
        text: `${setting.label}: ${fromWords} → ${toWords}`,
      };
    });
}

/** The effective setting a flag name spells on a run's engine (`--enforce-eager` on vLLM: "cuda-graphs"). */
export function settingIdOfFlag(engine: string, flagName: string): string | undefined {
  const known = catalogueEngine(engine);
  const found = known ? settingOfFlag(known.id, canonicalFlagName(flagName)) : undefined;
  return found && !found.setting.spellingsOnly ? found.setting.id : undefined;
}

/** A change's two sides without its label: `on (default) → on`, to quote after the label elsewhere. */
export function effectiveSides(change: EffectiveChange): string {
  const prefix = `${change.label}: `;
  return change.text.startsWith(prefix) ? change.text.slice(prefix.length) : change.text;
}

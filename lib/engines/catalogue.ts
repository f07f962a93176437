/**
 * The flag catalogue (flag-catalogue.json): the launch flags people tune on each engine, every spelling of each,
 * and each one's default per range of engine versions with the source it was read from. Checked when loaded: a bad
 * edit stops every import of this module with a message naming the setting and the engine, and the unit test says
 * the same.
 *
 * Spellings are kept as typed in the JSON (`--tp_size`, `--no-enable-prefix-caching`) and read the way
 * lib/document/flags.ts reads a command: underscores become dashes, and `--no-x` is `--x` turned off.
 */
import { z } from "zod";
import { canonicalFlagName } from "@/lib/document/flags";
import catalogueJson from "./flag-catalogue.json";
import { parseEngineVersion, parseVersionRange, versionInRange } from "./version";

export const ENGINE_IDS = ["vllm", "sglang", "tensorrt-llm", "llama.cpp"] as const;
export type EngineId = (typeof ENGINE_IDS)[number];

const FLAG_NAME = /^--?[A-Za-z0-9][A-Za-z0-9._-]*$/;
const SETTING_ID = /^[a-z0-9][a-z0-9-]*$/;
const text = z.string().trim().min(1);
const sourceUrl = z.url({ protocol: /^https$/ });

const SpellingSchema = z.strictObject({
  name: z.string().regex(FLAG_NAME, "a flag name as typed, beginning with - or --"),
  means: z.enum(["on", "off"]).optional(),
  renamed_in_diff: z.boolean().optional(),
  note: text.optional(),
});

const DefaultSchema = z
  .strictObject({
    versions: text,
    value: text.optional(),
    depends: text.optional(),
    source: sourceUrl,
    note: text.optional(),
  })
  .refine((entry) => (entry.value === undefined) !== (entry.depends === undefined), {
    message: "give either value or depends, not both",
  });

const EngineSettingSchema = z.strictObject({
  flags: z.array(SpellingSchema).min(1),
  defaults: z.array(DefaultSchema),
  note: text.optional(),
});

const SettingSchema = z.strictObject({
  id: z
    .string()
    .regex(SETTING_ID, "lower-case words joined by dashes")
    .refine((id) => !id.includes("--") && !id.endsWith("-"), "lower-case words joined by dashes"),
  label: text,
  kind: z.enum(["switch", "value"]),
  diff_name: z.string().regex(FLAG_NAME).optional(),
  spellings_only: z.boolean().optional(),
  engines: z.strictObject({
    vllm: EngineSettingSchema.optional(),
    sglang: EngineSettingSchema.optional(),
    "tensorrt-llm": EngineSettingSchema.optional(),
    "llama.cpp": EngineSettingSchema.optional(),
  }),
});

const CatalogueSchema = z.strictObject({
  $comment: z.string().optional(),
  engines: z.array(
    z.strictObject({ id: z.enum(ENGINE_IDS), label: text, names: z.array(text).min(1), docs: sourceUrl }),
  ),
  settings: z.array(SettingSchema).min(1),
});

type SettingInput = z.output<typeof SettingSchema>;

export interface CatalogueSpelling {
  /** As the JSON types it, for people: `--tp_size`, `--no-enable-prefix-caching`. */
  typed: string;
  /** As runs store it (lib/document/flags.ts): `--tp-size`; a `--no-x` spelling is stored as `--x`. */
  name: string;
  /** What the flag given as a bare switch turns the setting to (`--enforce-eager`: CUDA graphs off). */
  means: "on" | "off";
  /** Whether the literal diff and the series key read this spelling under the setting's diff name. */
  renamedInDiff: boolean;
  note: string | undefined;
}

export interface CatalogueDefault {
  versions: string;
  /** The default, or null when it depends on something the run does not state (then `depends` says what). */
  value: string | null;
  depends: string | null;
  source: string;
  note: string | undefined;
}

export interface EngineSetting {
  flags: readonly CatalogueSpelling[];
  defaults: readonly CatalogueDefault[];
  note: string | undefined;
}

export interface CatalogueSetting {
  id: string;
  label: string;
  kind: "switch" | "value";
  diffName: string | undefined;
  /** Catalogued for its spellings only (the model path): no default to reason about, not an effective setting. */
  spellingsOnly: boolean;
  engines: ReadonlyMap<EngineId, EngineSetting>;
}

export interface CatalogueEngine {
  id: EngineId;
  label: string;
  names: readonly string[];
  docs: string;
}

export interface FlagCatalogue {
  engines: readonly CatalogueEngine[];
  settings: readonly CatalogueSetting[];
  engineByName: ReadonlyMap<string, CatalogueEngine>;
  settingById: ReadonlyMap<string, CatalogueSetting>;
  /** Per engine, a stored flag name → its setting and spelling. */
  spellings: ReadonlyMap<EngineId, ReadonlyMap<string, { setting: CatalogueSetting; spelling: CatalogueSpelling }>>;
  /** Stored flag name → the name the literal diff and the series key read it under (`--tp` → `--tensor-parallel-size`). */
  renames: ReadonlyMap<string, string>;
}

/** `settings[3]` → `setting "chunked-prefill"`, so a message points at the entry a person edits. */
function entryName(data: unknown, path: readonly PropertyKey[]): string {
  const [head, index, ...rest] = path;
  if (head !== "settings" || typeof index !== "number") return path.map(String).join(".") || "the catalogue";
  const settings = (data as { settings?: unknown[] }).settings;
  const id = (settings?.[index] as { id?: unknown } | undefined)?.id;
  const entry = typeof id === "string" ? `setting "${id}"` : `settings[${index}]`;
  return [entry, ...rest.map(String)].join(".");
}

function storedSpelling(typed: string, means: "on" | "off"): { name: string; means: "on" | "off" } {
  const name = canonicalFlagName(typed);
  const negated = /^--no-(.+)$/.exec(name);
  if (!negated) return { name, means };
  return { name: `--${negated[1]}`, means: means === "on" ? "off" : "on" };
}

function rangesOverlap(left: string, right: string): boolean {
  const leftBounds = parseVersionRange(left) ?? [];
  const rightBounds = parseVersionRange(right) ?? [];
  if (leftBounds.length === 0 || rightBounds.length === 0) return true;
  // Each range's own bounds are the versions where two ranges meet: one held by both means they overlap.
  const candidates = [...leftBounds, ...rightBounds].map((bound) => bound.version);
  return candidates.some((version) => versionInRange(version, left) && versionInRange(version, right));
}

function checkEngineSetting(setting: SettingInput, engine: EngineId, problems: string[]): void {
  const entry = setting.engines[engine];
  if (!entry) return;
  const where = `setting "${setting.id}".engines.${engine}`;
  for (const spelling of entry.flags) {
    if (setting.kind === "value" && spelling.means !== undefined) {
      problems.push(`${where}: ${spelling.name} has "means", which only a switch takes`);
    }
    if (spelling.renamed_in_diff && setting.diff_name === undefined) {
      problems.push(`${where}: ${spelling.name} is renamed_in_diff but the setting has no diff_name`);
    }
  }
  if (setting.spellings_only && entry.defaults.length > 0) {
    problems.push(`${where}: a spellings_only setting takes no defaults`);
  }
  entry.defaults.forEach((fallback, index) => {
    const at = `${where}.defaults[${index}]`;
    if (parseVersionRange(fallback.versions) === null) {
      problems.push(`${at}: "${fallback.versions}" is not a version range (write "*" or bounds like ">=0.8.0 <0.9.0")`);
    }
    if (setting.kind === "switch" && fallback.value !== undefined && !["on", "off"].includes(fallback.value)) {
      problems.push(`${at}: a switch's default is "on" or "off" (write what else it does as depends)`);
    }
    entry.defaults.slice(index + 1).forEach((later, offset) => {
      const bothParse = parseVersionRange(fallback.versions) && parseVersionRange(later.versions);
      if (bothParse && rangesOverlap(fallback.versions, later.versions)) {
        problems.push(`${at} and defaults[${index + 1 + offset}]: the ranges overlap`);
      }
    });
  });
}

/** The catalogue from its JSON, checked; throws an Error naming every entry that is wrong. */
export function parseCatalogue(data: unknown): FlagCatalogue {
  const parsed = CatalogueSchema.safeParse(data);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${entryName(data, issue.path)}: ${issue.message}`);
    throw new Error(`flag catalogue: ${lines.join("; ")}`);
  }
  const input = parsed.data;
  const problems: string[] = [];

  const engineByName = new Map<string, CatalogueEngine>();
  const engines: CatalogueEngine[] = [];
  for (const engine of input.engines) {
    if (engines.some((known) => known.id === engine.id)) problems.push(`engine "${engine.id}" is listed twice`);
    engines.push(engine);
    for (const name of engine.names) {
      const key = name.trim().toLowerCase();
      if (engineByName.has(key)) problems.push(`engine name "${name}" belongs to two engines`);
      engineByName.set(key, engine);
    }
  }
  for (const id of ENGINE_IDS) {
    if (!engines.some((engine) => engine.id === id)) problems.push(`engine "${id}" is not listed under engines`);
  }

  const settingById = new Map<string, CatalogueSetting>();
  const settings: CatalogueSetting[] = [];
  const spellings = new Map<EngineId, Map<string, { setting: CatalogueSetting; spelling: CatalogueSpelling }>>(
    ENGINE_IDS.map((id) => [id, new Map()]),
  );
  const renames = new Map<string, string>();
  for (const settingInput of input.settings) {
    if (settingById.has(settingInput.id)) problems.push(`setting "${settingInput.id}" is listed twice`);
    const engineSettings = new Map<EngineId, EngineSetting>();
    const setting: CatalogueSetting = {
      id: settingInput.id,
      label: settingInput.label,
      kind: settingInput.kind,
      diffName: settingInput.diff_name === undefined ? undefined : canonicalFlagName(settingInput.diff_name),
      spellingsOnly: settingInput.spellings_only ?? false,
      engines: engineSettings,
    };
    for (const engine of ENGINE_IDS) {
      const entry = settingInput.engines[engine];
      if (!entry) continue;
      checkEngineSetting(settingInput, engine, problems);
      const flags: CatalogueSpelling[] = [];
      for (const typed of entry.flags) {
        const stored = storedSpelling(typed.name, typed.means ?? "on");
        const spelling: CatalogueSpelling = {
          typed: typed.name,
          name: stored.name,
          means: stored.means,
          renamedInDiff: typed.renamed_in_diff ?? false,
          note: typed.note,
        };
        const known = spellings.get(engine)?.get(spelling.name);
        if (known && (known.setting.id !== setting.id || known.spelling.means !== spelling.means)) {
          problems.push(
            `setting "${setting.id}".engines.${engine}: ${typed.name} is also a spelling of "${known.setting.id}"`,
          );
        }
        if (known?.setting.id !== setting.id) spellings.get(engine)?.set(spelling.name, { setting, spelling });
        if (spelling.renamedInDiff && setting.diffName !== undefined) {
          const renamedTo = renames.get(spelling.name);
          if (renamedTo !== undefined && renamedTo !== setting.diffName) {
            problems.push(
              `setting "${setting.id}": ${typed.name} is renamed to both ${renamedTo} and ${setting.diffName}`,
            );
          }
          renames.set(spelling.name, setting.diffName);
        }
        flags.push(spelling);
      }
      engineSettings.set(engine, {
        flags,
        defaults: entry.defaults.map((fallback) => ({
          versions: fallback.versions.trim(),
          value: fallback.value ?? null,
          depends: fallback.depends ?? null,
          source: fallback.source,
          note: fallback.note,
        })),
        note: entry.note,
      });
    }
    if (engineSettings.size === 0) problems.push(`setting "${setting.id}" names no engine`);
    settingById.set(setting.id, setting);
    settings.push(setting);
  }
  if (problems.length > 0) throw new Error(`flag catalogue: ${problems.join("; ")}`);
  return { engines, settings, engineByName, settingById, spellings, renames };
}

export const FLAG_CATALOGUE: FlagCatalogue = parseCatalogue(catalogueJson);

/** The catalogue's engine for a run's engine name (`trtllm`, `TensorRT-LLM`, `llama.cpp`), if it has one. */
export function catalogueEngine(
  engine: string,
  catalogue: FlagCatalogue = FLAG_CATALOGUE,
): CatalogueEngine | undefined {
  return catalogue.engineByName.get(engine.trim().toLowerCase());
}

/** The name the literal diff and the series key read a flag under: `--tp` → `--tensor-parallel-size`. */
export function diffNameOf(flagName: string, catalogue: FlagCatalogue = FLAG_CATALOGUE): string {
  return catalogue.renames.get(flagName) ?? flagName;
}

/**
 * The setting a stored flag name spells on an engine, and whether the name is the `--no-x` form of a catalogued
 * `--x` (a flags object may keep `--no-x: true` where a parsed command has `--x: false`).
 */
export function settingOfFlag(
  engine: EngineId,
  flagName: string,
  catalogue: FlagCatalogue = FLAG_CATALOGUE,
): { setting: CatalogueSetting; spelling: CatalogueSpelling; negated: boolean } | undefined {
  const byName = catalogue.spellings.get(engine);
  const direct = byName?.get(flagName);
  if (direct) return { ...direct, negated: false };
  const negated = /^--no-(.+)$/.exec(flagName);
  const positive = negated ? byName?.get(`--${negated[1]}`) : undefined;
  return positive ? { ...positive, negated: true } : undefined;
}

export type DefaultAnswer =
  | { kind: "known"; value: string; entry: CatalogueDefault | null }
  | { kind: "depends"; depends: string; entry: CatalogueDefault }
  | { kind: "unknown" };

/**
 * A setting's default on an engine at a version. A version the catalogue cannot place (missing, "main", a build
 * number against release ranges) gets a default only when every range it lists gives the same one.
 */
export function defaultFor(entry: EngineSetting, versionText: string | undefined): DefaultAnswer {
  const version = parseEngineVersion(versionText);
  if (version !== null) {
    const matching = entry.defaults.find((fallback) => versionInRange(version, fallback.versions));
    if (matching) {
      if (matching.value !== null) return { kind: "known", value: matching.value, entry: matching };
      return { kind: "depends", depends: matching.depends ?? "", entry: matching };
    }
  }
  const values = new Set(entry.defaults.map((fallback) => fallback.value));
  const [only] = values;
  if (version === null && values.size === 1 && typeof only === "string") {
    return { kind: "known", value: only, entry: entry.defaults.length === 1 ? (entry.defaults[0] ?? null) : null };
  }
  return { kind: "unknown" };
}

/**
 * Fragments → runs: fragments that share a configuration become one run with one point per load level. When the
 * files disagree (different configurations, or two points at one load level) the plan says so, and the person
 * either splits them into separate runs or picks the fragments to keep.
 */

import { compareLevels, levelOf } from "@/lib/analysis/levels";
import { engineDisplayName, flagText, hardwareText, shortModelName, workloadText } from "@/lib/document/names";
import { LIMITS, RUN_FORMAT, type RunDocumentInput } from "@/lib/document/schema";
import { AppError, type ErrorIssue } from "@/lib/errors";
import { formatLoadLevel } from "@/lib/format";
import { describe, type IndexedFragment, type ParsedUpload } from "./import";
import { collapse } from "./report";
import type { Fragment, NotImported, RunContext } from "./types";

/** What must agree for fragments to be one run: everything but the load level and its per-level counts. */
function groupKey(fragment: Fragment): string {
  const {
    workload,
    measured_at: _measured,
    metadata: _metadata,
    notes: _notes,
    tags: _tags,
    name: _name,
    ...rest
  } = fragment.context;
  const { num_prompts: _prompts, ...steadyWorkload } = workload ?? {};
  return JSON.stringify(sortKeys({ format: fragment.format, ...rest, workload: steadyWorkload }));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, sortKeys(v)]),
  );
}

export interface PlannedRun {
  /** Fragment indexes in this run. */
  fragments: number[];
  /** What tells this run apart from the others of the same upload ("--max-num-seqs 4, repeat 2"), for its name. */
  nameSuffix: string;
  /** "servebench/v1" document of the run, before the person's form context is applied and before validation. */
  document: RunDocumentInput & Record<string, unknown>;
}

export interface Plan {
  runs: PlannedRun[];
  /** Why the fragments cannot be stored as one run as they are; empty when they can. */
  conflicts: string[];
  /** Some configuration measured a load level more than once: its files can be stored as one run with repeats. */
  hasRepeats: boolean;
}

export interface PlanOptions {
  /** Store each configuration (and each repeat of a load level) as its own run instead of refusing. */
  split: boolean;
  /** Keep only these fragments (indexes from the preview); all when undefined. */
  pick?: readonly number[] | undefined;
  /**
   * Files that measure the same load level of one configuration again are repeats: store them as one run
   * whose points carry `repeat` numbers, instead of refusing (or, with `split`, storing a run per repeat).
   */
  combineRepeats?: boolean | undefined;
}

interface Group {
  key: string;
  fragments: IndexedFragment[];
  /** Each slot is one run: fragments whose load levels do not collide. */
  slots: IndexedFragment[][];
}

function levelsOf(fragment: Fragment): string[] {
  return fragment.points.map((point) => levelOf(point).key);
}

/**
 * How far past the lowest possible slot the first-fit search looks before it opens a new slot instead. Only a
 * crafted upload gets there (fragments of several load levels interleaved so that every nearby slot holds one
 * of them); the cap keeps planning linear in the number of points, whatever the upload's shape.
 */
const SLOT_SEARCH_STEPS = 32;

/** A group's slots as planning fills them, with what makes the first-fit search cheap. */
interface SlotIndex {
  /** The load levels each slot holds. */
  levelsBySlot: Set<string>[];
  /** Per load level: the lowest slot that might not hold it yet (every slot below it does). */
  lowestFree: Map<string, number>;
}

/** The lowest slot index not holding `level`, moving the level's pointer past the slots that hold it. */
function lowestFreeSlot(index: SlotIndex, level: string): number {
  let slot = index.lowestFree.get(level) ?? 0;
  while (index.levelsBySlot[slot]?.has(level)) slot += 1;
  index.lowestFree.set(level, slot);
  return slot;
}

/**
 * The first slot holding none of these levels (repeats of a level fill later slots). Every slot below the
 * highest per-level pointer holds one of the levels, so the search starts there; it ends after a few steps at
 * most, opening a new slot when a crafted upload would make it long.
 */
function slotFor(index: SlotIndex, levels: readonly string[]): number {
  let slot = 0;
  for (const level of levels) slot = Math.max(slot, lowestFreeSlot(index, level));
  for (let step = 0; step < SLOT_SEARCH_STEPS; step += 1) {
    const taken = index.levelsBySlot[slot];
    if (!taken || !levels.some((level) => taken.has(level))) return slot;
    slot += 1;
  }
  return index.levelsBySlot.length;
}

/** Fragments → groups of one configuration, each split into slots of distinct load levels. Linear in the points. */
function groupFragments(fragments: readonly IndexedFragment[]): Group[] {
  const groups: Group[] = [];
  const byKey = new Map<string, { group: Group; index: SlotIndex }>();
  for (const fragment of fragments) {
    const key = groupKey(fragment);
    let entry = byKey.get(key);
    if (!entry) {
      entry = { group: { key, fragments: [], slots: [] }, index: { levelsBySlot: [], lowestFree: new Map() } };
      byKey.set(key, entry);
      groups.push(entry.group);
    }
    const { group, index } = entry;
    group.fragments.push(fragment);
    const levels = [...new Set(levelsOf(fragment))];
    const slot = slotFor(index, levels);
    if (slot === group.slots.length) {
      group.slots.push([]);
      index.levelsBySlot.push(new Set());
    }
    group.slots[slot]!.push(fragment);
    for (const level of levels) index.levelsBySlot[slot]!.add(level);
  }
  return groups;
}

/** Longest list of differences a configuration's description shows; more are summed up as "…". */
const MAX_DIFFERENCES_SHOWN = 8;

/**
 * How many groups share each value of each context field, so telling a group apart from all the others costs
 * the size of its own context, not the number of groups (a crafted file can hold a configuration per line).
 */
interface ContextCounts {
  groups: number;
  byField: Map<string, Map<string, number>>;
  /** Every flag name that any group has, sorted. */
  flagNames: string[];
}

type ContextPick = (context: RunContext) => unknown;

const CONTEXT_FIELDS: Record<string, ContextPick> = {
  model: (c) => c.model,
  engine: (c) => c.engine,
  engine_version: (c) => c.engine_version,
  hardware: (c) => c.hardware,
  git_commit: (c) => c.git_commit,
  workload: (c) => ({ ...c.workload, num_prompts: undefined }),
  // How the workload reads in a name: two different workloads can read the same ("random 1024→128" at
  // another temperature), and then the name must say more.
  workload_words: (c) => workloadText(c.workload),
};

function contextOf(group: Group): RunContext {
  return group.fragments[0]?.context ?? {};
}

function countValue(counts: ContextCounts, field: string, value: unknown): void {
  const text = JSON.stringify(value) ?? "undefined";
  let values = counts.byField.get(field);
  if (!values) {
    values = new Map();
    counts.byField.set(field, values);
  }
  values.set(text, (values.get(text) ?? 0) + 1);
}

function contextCounts(groups: readonly Group[]): ContextCounts {
  const counts: ContextCounts = { groups: groups.length, byField: new Map(), flagNames: [] };
  const flagNames = new Set<string>();
  for (const group of groups) {
    const context = contextOf(group);
    for (const [field, pick] of Object.entries(CONTEXT_FIELDS)) countValue(counts, field, pick(context));
    for (const [name, value] of Object.entries(context.flags ?? {})) {
      flagNames.add(name);
      if (value !== undefined) countValue(counts, `flag ${name}`, value);
    }
  }
  counts.flagNames = [...flagNames].sort();
  return counts;
}

/** Whether another group has a different value: fewer groups than all share this one's. */
function differsFromOthers(counts: ContextCounts, field: string, value: unknown): boolean {
  const values = counts.byField.get(field);
  // A flag's count holds the groups that have it; the others share "no such flag".
  const same =
    value === undefined && field.startsWith("flag ")
      ? counts.groups - sumCounts(values)
      : (values?.get(JSON.stringify(value) ?? "undefined") ?? 0);
  return same < counts.groups;
}

function sumCounts(values: Map<string, number> | undefined): number {
  let total = 0;
  for (const count of values?.values() ?? []) total += count;
  return total;
}

/**
 * The context fields in which groups differ, in the words run names use (lib/document/names.ts):
 * "Llama-3.1-8B", "--max-num-seqs 4", "8× H100", "random 1024→128". Never JSON. Linear in the size of the
 * group's own context (see ContextCounts), whatever the number of groups.
 */
function distinguishingText(group: Group, counts: ContextCounts, forName = false): string {
  const context = contextOf(group);
  if (counts.groups <= 1) return "";
  const parts: string[] = [];
  const differs = (field: string) => differsFromOthers(counts, field, CONTEXT_FIELDS[field]!(context));
  // A run's default name already shows its engine, version, model and workload.
  if (!forName && differs("engine")) parts.push(context.engine ? engineDisplayName(context.engine) : "no engine");
  if (!forName && differs("engine_version"))
    parts.push(context.engine_version ? `version ${context.engine_version}` : "no version");
  if (!forName && differs("model")) parts.push(context.model ? shortModelName(context.model) : "no model");
  if (differs("hardware")) parts.push(hardwareText(context.hardware) || "no hardware stated");
  if (differs("git_commit")) parts.push(context.git_commit ? `commit ${context.git_commit.slice(0, 7)}` : "no commit");
  // Flags every group has with this value are the only ones that do not differ, so this loop stops after
  // this group's own flags plus the parts it shows.
  let more = false;
  for (const name of counts.flagNames) {
    const value = context.flags?.[name];
    if (!differsFromOthers(counts, `flag ${name}`, value)) continue;
    if (parts.length >= MAX_DIFFERENCES_SHOWN) {
      more = true;
      break;
    }
    parts.push(flagText(name, value));
  }
  if (differs("workload")) {
    const text = workloadText(context.workload);
    // The default name shows the workload; say more only when the words it uses do not tell the runs apart.
    const sameWords = (counts.byField.get("workload_words")?.get(JSON.stringify(text)) ?? 0) > 1;
    if (!forName || sameWords) {
      const extra = context.workload?.temperature !== undefined ? `temperature ${context.workload.temperature}` : "";
      parts.push(
        forName ? extra || "another workload" : [text || "no workload stated", extra].filter(Boolean).join(", "),
      );
    }
  }
  if (more) parts.push("…");
  return parts.length > 0 ? parts.join(", ") : forName ? "" : "another configuration";
}

function agreedValue<T>(values: readonly (T | undefined)[]): T | undefined {
  const defined = values.filter((value): value is T => value !== undefined);
  if (defined.length !== values.length || defined.length === 0) return undefined;
  const first = JSON.stringify(defined[0]);
  return defined.every((value) => JSON.stringify(value) === first) ? defined[0] : undefined;
}

function buildDocument(fragments: readonly IndexedFragment[], suffix: string): PlannedRun["document"] {
  const contexts = fragments.map((fragment) => fragment.context);
  const first = contexts[0] ?? {};
  const points = fragments.flatMap((fragment) => fragment.points).sort((a, b) => compareLevels(levelOf(a), levelOf(b)));
  const warnings = [...new Set(fragments.flatMap((fragment) => fragment.warnings))];
  const metadata: Record<string, string | number | boolean> = {};
  const notImported: NotImported[] = fragments.flatMap((fragment) => fragment.notImported ?? []);
  // Each file's own list once, however many of the run's fragments share it.
  for (const shared of new Set(
    fragments.flatMap((fragment) => (fragment.fileNotImported ? [fragment.fileNotImported] : [])),
  ))
    notImported.push(...shared);
  const metadataKeys = new Set(contexts.flatMap((context) => Object.keys(context.metadata ?? {})));
  for (const key of metadataKeys) {
    const value = agreedValue(contexts.map((context) => context.metadata?.[key]));
    if (value !== undefined) {
      metadata[key] = value;
      continue;
    }
    // The parts of the run state different values (or only some state one): a run's metadata holds one value per
    // key, so each stated value is reported rather than dropped.
    for (const fragment of fragments) {
      const stated = fragment.context.metadata?.[key];
      if (typeof stated !== "number") continue;
      notImported.push({
        file: describe(fragment),
        field: key,
        value: stated,
        reason: "differs between the files or lines of this run, and a run's metadata holds one value per key",
      });
    }
  }
  const files = [...new Set(fragments.map((fragment) => fragment.file))];
  metadata.source_files = files.join(", ").slice(0, 2_000);

  const workload = first.workload ? { ...first.workload } : undefined;
  if (workload) {
    const prompts = agreedValue(contexts.map((context) => context.workload?.num_prompts));
    if (prompts === undefined) {
      delete workload.num_prompts;
      for (const fragment of fragments) {
        const stated = fragment.context.workload?.num_prompts;
        if (stated === undefined) continue;
        notImported.push({
          file: describe(fragment),
          field: "num_prompts",
          value: stated,
          reason:
            "differs between the files or lines of this run (requests per load level), and a run's workload holds one value",
        });
      }
    } else workload.num_prompts = prompts;
  }
  const measured = contexts
    .map((context) => context.measured_at)
    .filter((value): value is string => Boolean(value))
    .sort()[0];
  const name = agreedValue(contexts.map((context) => context.name));
  const model = first.model;
  const engine = first.engine;

  const document: PlannedRun["document"] = {
    format: RUN_FORMAT,
    source_format: fragments[0]?.format ?? RUN_FORMAT,
    results: points,
    metadata,
  } as PlannedRun["document"];
  if (engine !== undefined) document.engine = engine;
  if (model !== undefined) document.model = model;
  // Without a name in the files, the run is named once the person's context is applied (lib/ingest/ingest.ts).
  if (name !== undefined) document.name = suffix ? `${name} (${suffix})` : name;
  if (first.engine_version !== undefined) document.engine_version = first.engine_version;
  if (first.hardware !== undefined) document.hardware = first.hardware;
  if (first.command !== undefined) document.command = first.command;
  if (first.flags !== undefined) document.flags = first.flags;
  if (first.env !== undefined) document.env = first.env;
  if (workload && Object.keys(workload).length > 0) document.workload = workload;
  if (first.speculative !== undefined) document.speculative = first.speculative;
  if (first.server_startup_s !== undefined) document.server_startup_s = first.server_startup_s;
  if (first.model_size !== undefined) document.model_size = first.model_size;
  // Part of the configuration (groupKey): the fragments of two commits are two runs.
  if (first.git_commit !== undefined) document.git_commit = first.git_commit;
  if (first.git_branch !== undefined) document.git_branch = first.git_branch;
  if (first.ci_url !== undefined) document.ci_url = first.ci_url;
  if (measured) document.measured_at = measured;
  const tags = agreedValue(contexts.map((context) => context.tags));
  if (tags) document.tags = tags;
  const notes = agreedValue(contexts.map((context) => context.notes));
  if (notes) document.notes = notes;
  if (warnings.length > 0) document.warnings = warnings;
  const report = importReportOf(notImported);
  if (report.length > 0) document.not_imported = report;
  return document;
}

/** The run's import report: each entry once, collapsed and bounded by the document's limit. */
function importReportOf(entries: readonly NotImported[]): NotImported[] {
  const seen = new Set<string>();
  const unique = entries.filter((entry) => {
    const key = `${entry.file}\u0000${entry.field}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  let report = collapse(unique);
  if (report.length > LIMITS.notImported) {
    // More than a run keeps: the entries of the same file and reason are summed up in one line each.
    const byReason = new Map<string, NotImported[]>();
    for (const entry of report) {
      const key = `${entry.file}\u0000${entry.reason}`;
      const group = byReason.get(key);
      if (group) group.push(entry);
      else byReason.set(key, [entry]);
    }
    report = [...byReason.values()].map((group) =>
      group.length === 1 && group[0]
        ? group[0]
        : {
            file: group[0]?.file ?? "",
            field: `${group.length} fields: ${group.map((entry) => entry.field).join(", ")}`.slice(
              0,
              LIMITS.notImportedFieldChars,
            ),
            value: `${group.length} values`,
            reason: group[0]?.reason ?? "",
          },
    );
    report = report.slice(0, LIMITS.notImported);
  }
  return report.map((entry) => ({
    file: entry.file.slice(0, LIMITS.notImportedFieldChars),
    field: entry.field.slice(0, LIMITS.notImportedFieldChars),
    value: typeof entry.value === "string" ? entry.value.slice(0, 200) : entry.value,
    reason: entry.reason.slice(0, 500),
  }));
}

/** "a.jsonl (line 1, line 2), b.json": where a group's fragments are, file by file. */
function whereFrom(fragments: readonly IndexedFragment[]): string {
  const byFile = new Map<string, string[]>();
  for (const fragment of fragments) {
    const parts = byFile.get(fragment.file) ?? [];
    if (fragment.part) parts.push(fragment.part);
    byFile.set(fragment.file, parts);
  }
  return [...byFile.entries()]
    .map(([file, parts]) => (parts.length > 0 ? `${file} (${parts.join(", ")})` : file))
    .join(", ");
}

function collisionText(slots: readonly IndexedFragment[][]): string {
  const byLevel = new Map<string, { label: string; sources: string[] }>();
  for (const slot of slots) {
    for (const fragment of slot) {
      for (const point of fragment.points) {
        const level = levelOf(point);
        const entry = byLevel.get(level.key) ?? { label: formatLoadLevel(level), sources: [] };
        entry.sources.push(describe(fragment));
        byLevel.set(level.key, entry);
      }
    }
  }
  return [...byLevel.values()]
    .filter((entry) => entry.sources.length > 1)
    .map((entry) => `${entry.sources.length} points at ${entry.label} (${entry.sources.join(", ")})`)
    .join("; ");
}

export function planRuns(parsed: ParsedUpload, options: PlanOptions): Plan {
  const pick = options.pick ? new Set(options.pick) : undefined;
  const chosen = parsed.fragments.filter((fragment) => !pick || pick.has(fragment.index));
  const groups = groupFragments(chosen);
  const counts = contextCounts(groups);
  const conflicts: string[] = [];
  if (groups.length > 1) {
    const described = groups.map((group) => `${distinguishingText(group, counts)} [${whereFrom(group.fragments)}]`);
    conflicts.push(`The files hold ${groups.length} different configurations: ${described.join("; ")}.`);
  }
  for (const group of groups) {
    if (group.slots.length > 1 && !options.combineRepeats)
      conflicts.push(`Load levels repeat: ${collisionText(group.slots)}.`);
  }

  const runs: PlannedRun[] = parsed.documents.map((document) => ({
    fragments: [],
    nameSuffix: "",
    document: document.raw as PlannedRun["document"],
  }));
  for (const group of groups) {
    const differing = distinguishingText(group, counts, true);
    const nameSuffix = options.split || conflicts.length > 0 ? differing : "";
    if (options.combineRepeats && group.slots.length > 1) {
      runs.push({
        fragments: group.slots.flat().map((fragment) => fragment.index),
        nameSuffix,
        document: buildRepeatsDocument(group.slots, nameSuffix),
      });
      continue;
    }
    group.slots.forEach((slot, slotIndex) => {
      const suffix = [differing, group.slots.length > 1 ? `repeat ${slotIndex + 1}` : ""].filter(Boolean).join(", ");
      const slotSuffix = options.split || conflicts.length > 0 ? suffix : "";
      runs.push({
        fragments: slot.map((fragment) => fragment.index),
        nameSuffix: slotSuffix,
        document: buildDocument(slot, slotSuffix),
      });
    });
  }
  return { runs, conflicts, hasRepeats: groups.some((group) => group.slots.length > 1) };
}

/**
 * One run from a configuration's repeats: every slot's points, each numbered by its place among the points
 * at its load level (1, 2, …), in the order the files came.
 */
function buildRepeatsDocument(slots: readonly IndexedFragment[][], suffix: string): PlannedRun["document"] {
  const document = buildDocument(slots.flat(), suffix);
  const counts = new Map<string, number>();
  const numbered = slots.flatMap((slot) =>
    slot.flatMap((fragment) =>
      fragment.points.map((point) => {
        const key = levelOf(point).key;
        const repeat = (counts.get(key) ?? 0) + 1;
        counts.set(key, repeat);
        return { ...point, repeat };
      }),
    ),
  );
  document.results = numbered.sort(
    (a, b) => compareLevels(levelOf(a), levelOf(b)) || (a.repeat ?? 1) - (b.repeat ?? 1),
  );
  return document;
}

/** The error for an upload whose files disagree and that asked neither to split nor to pick. */
export function conflictError(plan: Plan): AppError {
  const issues: ErrorIssue[] = plan.conflicts.map((message) => ({ path: "files", message }));
  return new AppError(
    "conflicting_files",
    `The files cannot be stored as one run. ${plan.conflicts.join(" ")} Send split=1 to store them as ${plan.runs.length} separate runs${plan.conflicts.some((text) => text.startsWith("Load levels repeat")) ? ", repeats=one_run to store each configuration's repeats as one run with repeats" : ""}, or fragments=<indexes> to keep some of them.`,
    issues,
  );
}

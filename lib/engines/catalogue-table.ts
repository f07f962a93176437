/**
 * The catalogue as the Markdown tables of docs/engine-settings.md: per engine, each setting's spellings and its
 * default per version range with the source it was read from. scripts/engine-settings-table.ts writes them into
 * the doc between its markers, and a unit test holds the doc to the data.
 */
import { type CatalogueSetting, ENGINE_IDS, type EngineId, FLAG_CATALOGUE, type FlagCatalogue } from "./catalogue";

export const TABLE_START = "<!-- catalogue-table:start (scripts/engine-settings-table.ts writes this part) -->";
export const TABLE_END = "<!-- catalogue-table:end -->";

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();
}

/** A short name for a source: `PR #6666`, `arg_utils.py @ 99d7eb5`, or the page's host and last part. */
export function sourceTitle(url: string): string {
  const parsed = new URL(url);
  const parts = parsed.pathname.split("/").filter(Boolean);
  if (parsed.hostname === "github.com") {
    const pull = parts.indexOf("pull");
    if (pull >= 0 && parts[pull + 1]) return `${parts[1]} PR #${parts[pull + 1]}`;
    const blob = parts.indexOf("blob");
    if (blob >= 0) {
      const ref = parts[blob + 1] ?? "";
      const shortRef = /^[0-9a-f]{40}$/.test(ref) ? ref.slice(0, 7) : ref;
      return `${parts[parts.length - 1]} @ ${shortRef}`;
    }
  }
  return `${parsed.hostname}/…/${parts[parts.length - 1] ?? ""}`;
}

function settingRows(setting: CatalogueSetting, engine: EngineId): string[] {
  const entry = setting.engines.get(engine);
  if (!entry) return [];
  const flags = entry.flags
    .map((spelling) => {
      const means =
        setting.kind === "switch" && /^-/.test(spelling.typed) ? spellingMeaning(spelling.typed, spelling) : "";
      return `\`${spelling.typed}\`${means}`;
    })
    .join(", ");
  const name = `${setting.label} (\`${setting.id}\`)`;
  if (entry.defaults.length === 0) return [`| ${cell(name)} | ${cell(flags)} | | not catalogued | |`];
  return entry.defaults.map((fallback, index) => {
    const said = fallback.value ?? `depends: ${fallback.depends ?? ""}`;
    const note = fallback.note ? ` (${fallback.note})` : "";
    const source = `[${sourceTitle(fallback.source)}](${fallback.source})`;
    const first = index === 0;
    return `| ${first ? cell(name) : ""} | ${first ? cell(flags) : ""} | \`${fallback.versions}\` | ${cell(said + note)} | ${source} |`;
  });
}

/** ` (off)` after a switch's spelling that turns it off, as typed: `--enforce-eager` (off), `--no-x` (off). */
function spellingMeaning(typed: string, spelling: { means: "on" | "off" }): string {
  const typedNegation = /^--no[-_]/.test(typed);
  const typedMeans = typedNegation ? (spelling.means === "on" ? "off" : "on") : spelling.means;
  return typedMeans === "off" ? " (off)" : "";
}

/** Every engine's table, in the catalogue's order of engines and settings. */
export function renderCatalogueTables(catalogue: FlagCatalogue = FLAG_CATALOGUE): string {
  const sections: string[] = [];
  for (const engineId of ENGINE_IDS) {
    const engine = catalogue.engines.find((known) => known.id === engineId);
    if (!engine) continue;
    const rows = catalogue.settings
      .filter((setting) => !setting.spellingsOnly)
      .flatMap((setting) => settingRows(setting, engineId));
    sections.push(
      [
        `### ${engine.label}`,
        "",
        `Run engine names: ${engine.names.map((name) => `\`${name}\``).join(", ")}. Reference: ${engine.docs}`,
        "",
        "| Setting | Flags | Versions | Default | Source |",
        "| --- | --- | --- | --- | --- |",
        ...rows,
      ].join("\n"),
    );
  }
  return sections.join("\n\n");
}

/** The doc with its table part replaced by the catalogue's tables; null when the doc has no markers. */
export function withCatalogueTables(doc: string, catalogue: FlagCatalogue = FLAG_CATALOGUE): string | null {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) return null;
  return `${doc.slice(0, start + TABLE_START.length)}\n\n${renderCatalogueTables(catalogue)}\n\n${doc.slice(end)}`;
}

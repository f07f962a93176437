/**
 * Writes the catalogue's tables into docs/engine-settings.md, between its markers, from
 * lib/engines/flag-catalogue.json: `npx tsx scripts/engine-settings-table.ts` after editing the catalogue.
 */
import fs from "node:fs";
import path from "node:path";
import { withCatalogueTables } from "@/lib/engines/catalogue-table";

export const ENGINE_SETTINGS_DOC_PATH = path.join(process.cwd(), "docs", "engine-settings.md");

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  const doc = fs.readFileSync(ENGINE_SETTINGS_DOC_PATH, "utf8");
  const written = withCatalogueTables(doc);
  if (written === null) {
    console.error(`${path.relative(process.cwd(), ENGINE_SETTINGS_DOC_PATH)} has no catalogue-table markers`);
    process.exit(1);
  }
  fs.writeFileSync(ENGINE_SETTINGS_DOC_PATH, written);
  console.log(`wrote ${path.relative(process.cwd(), ENGINE_SETTINGS_DOC_PATH)}`);
}

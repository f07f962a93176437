/** Writes docs/servebench-v1.schema.json from the zod schema, the one definition of the run document. */
import fs from "node:fs";
import path from "node:path";
import { runDocumentJsonSchema } from "@/lib/document/schema";

export const SCHEMA_DOC_PATH = path.join(process.cwd(), "docs", "servebench-v1.schema.json");

export function schemaDocText(): string {
  return `${JSON.stringify(runDocumentJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  fs.writeFileSync(SCHEMA_DOC_PATH, schemaDocText());
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_DOC_PATH)}`);
}

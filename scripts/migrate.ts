/** Create or upgrade the SQLite database named by DATABASE_URL (default ./data/servebench.db). */
import { migrateDatabase } from "@/lib/db/migrate";
import { databaseFilePath } from "@/lib/env";

const file = databaseFilePath();
const result = migrateDatabase(file);
const applied = result.applied.length > 0 ? `applied ${result.applied.join(", ")}` : "already up to date";
console.log(`servebench: database ${file}: ${applied}`);

/** The usage of `servebench db`, apart from the command so the one-file CLI can print it without the database code. */
export const DB_USAGE = `servebench db copy --from <DATABASE_URL> --to <DATABASE_URL>

Copies every run, point, tag, saved comparison, series, detected change, annotation and webhook delivery
from one database to another, keeping ids and times, then
checks both by row counts and a checksum of every table. The destination is migrated first and must be empty.
  --from URL   the database to read, e.g. file:./data/servebench.db
  --to URL     the database to fill, e.g. postgresql://servebench:secret@db.internal:5432/servebench`;

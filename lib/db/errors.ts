/** What a database error means, the same on SQLite and PostgreSQL (Prisma maps both drivers' codes to its own). */

/** A unique constraint refused the write (Prisma's P2002): someone stored the same key first. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

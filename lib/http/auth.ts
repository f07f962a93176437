/**
 * Optional write protection. When SERVEBENCH_WRITE_TOKEN is set, every handler that creates, edits or
 * deletes calls `requireWriteAccess(request)` as its first line: the request must carry
 * `Authorization: Bearer <token>`, or it is answered 401 `unauthorized` before anything is read or written.
 * Reading (every GET) stays open, so shared links keep working. Unset: anyone who reaches the server may write.
 *
 * The upload preview (`POST /api/runs?dry_run=1`) needs the token too: it writes nothing, but it is the first
 * half of a write and costs the server as much work as one, so it is not open to whoever reaches the server.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

/** The challenge a 401 carries (RFC 6750). */
export const WWW_AUTHENTICATE = "Bearer";

/** The token of an `Authorization: Bearer <token>` header; null when there is none or another scheme. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header.trim());
  return match ? match[1]! : null;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** Constant-time comparison: both sides are hashed to 32 bytes first, so neither length nor content leaks. */
export function tokensEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Why this write would be refused, or null when it may go ahead. Reads only the headers and the URL, never
 * the body. The proxy uses it to add the `WWW-Authenticate` challenge to the handler's 401.
 */
export function writeAccessDenial(request: Request): AppError | null {
  const expected = env().SERVEBENCH_WRITE_TOKEN;
  if (expected === undefined) return null;
  const given = bearerToken(request);
  if (given === null) {
    return new AppError(
      "unauthorized",
      "This servebench needs a write token to create, edit or delete: send it as Authorization: Bearer <token>.",
    );
  }
  if (!tokensEqual(given, expected)) {
    return new AppError("unauthorized", "The write token is wrong: this servebench refused the Authorization header.");
  }
  return null;
}

/** The first line of every handler that writes: throws a 401 `unauthorized` AppError unless the write is allowed. */
export function requireWriteAccess(request: Request): void {
  const denial = writeAccessDenial(request);
  if (denial) throw denial;
}

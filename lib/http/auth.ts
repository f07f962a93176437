/**
 * Optional write protection. When SERVEBENCH_WRITE_TOKEN is set, every handler that creates, edits or
 * deletes calls `requireWriteAccess(request)` as its first line: the request must carry
 * `Authorization: Bearer <token>`, or it is answered 401 `unauthorized` before anything is read or written.
 * Reading (every GET) stays open, so shared links keep working. Unset: anyone who reaches the server may write.
 *
 * Whatever the token, a write sent by a page of another site (its `Origin`, or `Sec-Fetch-Site`, says so) is
 * answered 403 `forbidden` first (crossSiteDenial).
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

function firstValue(header: string | null): string | undefined {
  const value = header?.split(",")[0]?.trim();
  return value ? value.toLowerCase() : undefined;
}

/** The host (name and port) of an origin or URL, lower-cased; null when it is not an http(s) URL. */
function hostOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.host.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** The hosts this servebench answers at: the public URL when set, and the host the request came to. */
function ownHosts(request: Request): Set<string> {
  const hosts = new Set<string>();
  const configured = env().SERVEBENCH_PUBLIC_URL;
  const publicHost = configured ? hostOf(configured) : null;
  if (publicHost) hosts.add(publicHost);
  const host = firstValue(request.headers.get("host"));
  if (host) hosts.add(host);
  const forwarded = firstValue(request.headers.get("x-forwarded-host"));
  if (forwarded) hosts.add(forwarded);
  const requestHost = hostOf(request.url);
  if (requestHost) hosts.add(requestHost);
  return hosts;
}

/**
 * Why a write comes from another site, or null when it does not. A browser names the page that sent a request
 * in `Origin` (every cross-origin POST, fetch or form) and, newer ones, in `Sec-Fetch-Site`. Without the check,
 * any page a person visits could write to a servebench on their machine or intranet with an auto-submitted form
 * or a `no-cors` fetch. Requests with neither header (curl, the CLI, scripts) are not from a browser page.
 */
export function crossSiteDenial(request: Request): AppError | null {
  const origin = request.headers.get("origin");
  if (origin !== null) {
    const host = origin === "null" ? null : hostOf(origin);
    if (host !== null && ownHosts(request).has(host)) return null;
    const shown = origin.length > 100 ? `${origin.slice(0, 100)}…` : origin;
    return new AppError(
      "forbidden",
      `Writes from another site are refused: this request came from a page at ${JSON.stringify(shown)}. Use this servebench's own pages, the servebench command or curl.`,
    );
  }
  const site = request.headers.get("sec-fetch-site");
  if (site === null || site === "same-origin" || site === "none") return null;
  return new AppError(
    "forbidden",
    `Writes from another site are refused: the browser marked this request ${JSON.stringify(site.slice(0, 40))}. Use this servebench's own pages, the servebench command or curl.`,
  );
}

/**
 * Why this write would be refused, or null when it may go ahead. Reads only the headers and the URL, never
 * the body. The proxy uses it to add the `WWW-Authenticate` challenge to the handler's 401.
 */
export function writeAccessDenial(request: Request): AppError | null {
  const crossSite = crossSiteDenial(request);
  if (crossSite) return crossSite;
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

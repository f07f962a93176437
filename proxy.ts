/**
 * The per-request Content-Security-Policy (Next 16 calls this file convention `proxy`; it was `middleware`).
 *
 * Each request gets a fresh nonce. The policy goes on the response, and on the request too: Next reads the
 * nonce from the request's Content-Security-Policy header while it renders a page and puts it on its own
 * scripts (framework, page chunks, the inline flight data). Pages must render per request for that (the root
 * layout awaits `connection()`): a page prerendered at build time has no nonce on its scripts.
 *
 * The other security headers (nosniff, Referrer-Policy, X-Frame-Options) and a fallback CSP come from
 * `headers()` in next.config.js, which applies to every response; the policy set here replaces that CSP.
 */
import { type NextRequest, NextResponse } from "next/server";
import { AppError } from "@/lib/errors";
import { crossSiteDenial, WWW_AUTHENTICATE, writeAccessDenial } from "@/lib/http/auth";
import { formatBytes } from "@/lib/http/body";
import { EMBED_HEADER, embedTheme, isEmbedPath, THEME_HEADER } from "@/lib/http/embed";
import { ERROR_STATUS, errorBody } from "@/lib/http/errors";

export function contentSecurityPolicy(nonce: string, development: boolean, frameable = false): string {
  return [
    "default-src 'self'",
    // Only scripts carrying this response's nonce run; 'strict-dynamic' extends that trust to the chunks they
    // load (and makes browsers ignore host allow-lists). `next dev` needs eval for React's debugging aids
    // (server error stacks rebuilt in the browser); production builds never use eval.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    // 'unsafe-inline' for styles only: React renders `style` attributes (bar widths, series colours) and
    // Recharts sets inline styles on its SVG, legends and tooltips; attributes cannot carry a nonce. Inline
    // styles cannot run code. (A nonce here would make browsers ignore 'unsafe-inline'.)
    "style-src 'self' 'unsafe-inline'",
    // data: for small inline images; blob: for the chart PNG export, which draws the chart's SVG from a blob: URL.
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    // An embed may be framed by any site (it shows what its link shows to anyone who has the link); every other
    // page by none.
    frameable ? "frame-ancestors *" : "frame-ancestors 'none'",
  ].join("; ");
}

function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/** The headers next.config.js gives every response, for the answers this file makes itself. */
const SECURITY_HEADERS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "X-Frame-Options": "DENY",
};

function withSecurityHeaders<T extends Response>(response: T, csp: string): T {
  response.headers.set("Content-Security-Policy", csp);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
  return response;
}

/** The path as the request wrote it, percent-escapes and all. */
function rawPathname(request: NextRequest): string {
  const url = request.url;
  const afterHost = url.indexOf("/", url.indexOf("//") + 2);
  const path = afterHost < 0 ? "/" : url.slice(afterHost);
  return path.replace(/[?#].*$/s, "") || "/";
}

/** A `%` not followed by two hex digits, or escapes that are not UTF-8 (`%C0%AE`, `%FF%FE`). */
export function hasMalformedEscape(path: string): boolean {
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/** The MCP endpoint: POSTed to, read-only. */
export const MCP_PATH = "/api/mcp";

/** Where the app's own not-found page is rendered for an address it cannot read. */
export const MALFORMED_ADDRESS_PAGE = "/_malformed-address";

export function proxy(request: NextRequest): NextResponse {
  const nonce = newNonce();
  const embed = isEmbedPath(request.nextUrl.pathname);
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === "development", embed);

  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("Content-Security-Policy", csp);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.delete(EMBED_HEADER);
  requestHeaders.delete(THEME_HEADER);
  if (embed) {
    requestHeaders.set(EMBED_HEADER, "1");
    const theme = embedTheme(request.nextUrl.searchParams.get("theme"));
    if (theme) requestHeaders.set(THEME_HEADER, theme);
  }

  // An address whose percent-escapes do not decode: Next's router would answer a bare text/plain 500 for it.
  // The API answers the one error shape; a page address gets the app's own not-found page.
  const path = rawPathname(request);
  // A NUL (`%00`) decodes, but no id or name holds one, and PostgreSQL refuses it in any text it is sent.
  const nul = /%00/i.test(path);
  if (nul || hasMalformedEscape(path)) {
    if (path.startsWith("/api/")) {
      const error = new AppError(
        "bad_request",
        nul
          ? "The address holds a NUL character (%00), which no id or name can hold."
          : "The address has a malformed percent-escape (% must be followed by two hex digits that spell UTF-8).",
      );
      return withSecurityHeaders(NextResponse.json(errorBody(error), { status: 400 }), csp);
    }
    const target = new URL(MALFORMED_ADDRESS_PAGE, request.url);
    return withSecurityHeaders(NextResponse.rewrite(target, { request: { headers: requestHeaders } }), csp);
  }
  // Trailing slashes are redirected here rather than by Next (skipTrailingSlashRedirect in next.config.js), so
  // the redirect carries the security headers too.
  if (path.length > 1 && path.endsWith("/")) {
    const target = new URL(request.url);
    let end = path.length;
    while (end > 1 && path[end - 1] === "/") end -= 1;
    target.pathname = path.slice(0, end);
    return withSecurityHeaders(NextResponse.redirect(target, 308), csp);
  }

  // A write that will be refused is refused here, from its headers, before its handler runs: no handler reads a
  // body a client had no right to send, or one longer than the address takes.
  const write = request.method !== "GET" && request.method !== "HEAD" && request.nextUrl.pathname.startsWith("/api/");
  if (write) {
    // The MCP endpoint is POSTed to but only reads (lib/mcp/server.ts has no tool that writes): open like every
    // GET, and still refused from another site's page (a page could otherwise read it through the visitor).
    const reads = request.nextUrl.pathname === MCP_PATH;
    const refusal = (reads ? crossSiteDenial(request) : writeAccessDenial(request)) ?? declaredLengthRefusal(request);
    if (refusal) return refuseFromHeaders(refusal, csp);
  }

  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);
  // next.config.js gives embeds no X-Frame-Options (it cannot allow every origin); the CSP's frame-ancestors rules.
  return response;
}

/**
 * Above the largest body of the writes the proxy sees (200 kB for a saved comparison; each handler holds its
 * own limit). The file writes, POST /api/runs and /api/restore, do not pass through here (see `config`).
 */
const SMALL_WRITE_LIMIT_BYTES = 1_000_000;

/** A declared `Content-Length` over what any address the proxy sees takes: refused before the handler runs. */
export function declaredLengthRefusal(request: Request): AppError | null {
  const declared = request.headers.get("content-length");
  if (declared === null || !/^[0-9]+$/.test(declared.trim())) return null;
  if (Number(declared) <= SMALL_WRITE_LIMIT_BYTES) return null;
  return new AppError(
    "payload_too_large",
    `The request body is larger than the limit of ${formatBytes(SMALL_WRITE_LIMIT_BYTES)} for this address.`,
  );
}

/**
 * The answer to a write refused from its headers. `Connection: close`: the body the client may still be
 * sending is never read, so the connection cannot carry another request after it.
 */
function refuseFromHeaders(error: AppError, csp: string): NextResponse {
  const response = NextResponse.json(errorBody(error), { status: ERROR_STATUS[error.code] });
  if (error.code === "unauthorized") response.headers.set("WWW-Authenticate", WWW_AUTHENTICATE);
  response.headers.set("Connection", "close");
  return withSecurityHeaders(response, csp);
}

export const config = {
  // Next reads a request's body whole before it calls the proxy (keeping up to experimental.
  // proxyClientMaxBodySize of next.config.js for it, and cutting what is longer), so a refusal made here comes
  // only after the body has arrived. Two kinds of request therefore go straight to their handlers, which refuse
  // a write from its headers (origin, token, Content-Length) before reading a byte of it: a body sent to the two
  // addresses that take results files and exports (POST /api/runs and /api/restore, streamed up to the upload
  // limit), and any request that declares a body of 1 MB or more (more than any other address takes). Their
  // answers keep the security headers of next.config.js, with its strict policy (JSON has no scripts to allow).
  // Everything else passes through here: pages, reads, the other writes, /_next/static, public files, unknown
  // paths (404), and every address with a percent-escape.
  matcher: [
    {
      source: "/((?!api/runs$|api/restore$).*)",
      missing: [{ type: "header", key: "content-length", value: "[0-9]{7,}" }],
    },
    {
      source: "/api/(runs|restore)",
      missing: [
        { type: "header", key: "content-length", value: "[1-9][0-9]*" },
        { type: "header", key: "transfer-encoding" },
      ],
    },
    // One that does not decode is answered here (Next's router would answer it a bare 500), after its body.
    { source: "/:path(.*%.*)" },
  ],
};

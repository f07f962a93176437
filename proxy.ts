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
import { WWW_AUTHENTICATE, writeAccessDenial } from "@/lib/http/auth";

export function contentSecurityPolicy(nonce: string, development: boolean): string {
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
    "frame-ancestors 'none'",
  ].join("; ");
}

function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

export function proxy(request: NextRequest): NextResponse {
  const nonce = newNonce();
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === "development");

  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("Content-Security-Policy", csp);
  requestHeaders.set("x-nonce", nonce);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);

  // The handler answers this write 401 (requireWriteAccess, the same test); the challenge goes with it.
  const write = request.method !== "GET" && request.method !== "HEAD" && request.nextUrl.pathname.startsWith("/api/");
  if (write && writeAccessDenial(request)?.code === "unauthorized") {
    response.headers.set("WWW-Authenticate", WWW_AUTHENTICATE);
  }
  return response;
}

export const config = {
  matcher: [
    {
      // Every path: pages, API routes, /_next/static, public files, unknown paths (404).
      source: "/:path*",
      // Except requests whose body is chunked or 10 MB and more. When a proxy runs, Next buffers the request
      // body for it and cuts it silently at 10 MB (experimental.proxyClientMaxBodySize), which would corrupt
      // a large upload; a declared Content-Length under 10,000,000 cannot exceed that buffer. Those uploads
      // skip the proxy: their JSON answers keep next.config.js's headers and strict fallback CSP.
      missing: [
        { type: "header", key: "content-length", value: "\\d{8,}" },
        { type: "header", key: "transfer-encoding" },
      ],
    },
  ],
};

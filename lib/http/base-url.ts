/**
 * The absolute address of this servebench: the configured SERVEBENCH_PUBLIC_URL, else the address the request
 * reached it by. The base of links in page metadata, webhooks and answers.
 */
import { headers } from "next/headers";
import { env } from "@/lib/env";

type HeaderGetter = { get(name: string): string | null };

function firstOf(value: string | null): string | null {
  const first = value?.split(",")[0]?.trim();
  return first ? first : null;
}

// A host name or address with an optional port; anything else in a header is not trusted as a host.
const HOST_PATTERN = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The site's base URL: the configured SERVEBENCH_PUBLIC_URL when set, else the request's own address from
 * X-Forwarded-Proto / X-Forwarded-Host (set by a reverse proxy) or Host.
 */
export function resolveBaseUrl(
  configured: string | undefined,
  headers: HeaderGetter,
  fallback = "http://localhost:3000",
): string {
  if (configured) return configured.replace(/(?<!\/)\/+$/, "");
  const host = firstOf(headers.get("x-forwarded-host")) ?? firstOf(headers.get("host"));
  if (!host || !HOST_PATTERN.test(host)) return fallback;
  const proto = firstOf(headers.get("x-forwarded-proto"))?.toLowerCase();
  const scheme = proto === "https" || proto === "http" ? proto : "http";
  return `${scheme}://${host}`;
}

/** The base URL of a request a route handler is answering (links sent to webhooks). */
export function publicBaseUrl(request: Request): string {
  return resolveBaseUrl(env().SERVEBENCH_PUBLIC_URL, request.headers, new URL(request.url).origin);
}

/** The base URL of the request a page is rendering, for absolute links in its metadata (server components only). */
export async function requestBaseUrl(): Promise<string> {
  const configured = env().SERVEBENCH_PUBLIC_URL;
  if (configured) return resolveBaseUrl(configured, { get: () => null });
  return resolveBaseUrl(undefined, await headers(), `http://localhost:${env().PORT}`);
}

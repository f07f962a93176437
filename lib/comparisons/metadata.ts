/**
 * Link previews: the Open Graph and Twitter card tags of a comparison page, with absolute URLs. Pure, so the
 * tags can be tested without a request; lib/comparisons/base-url.ts finds the base URL.
 */
import type { Metadata } from "next";

export const OG_IMAGE_WIDTH = 1200;
export const OG_IMAGE_HEIGHT = 630;

export interface ComparisonMetadataInput {
  title: string;
  /** The headline deltas (comparison.summary.description). */
  description: string;
  /** The preview image, relative to the site: /api/og?runs=… */
  imagePath: string;
  /** Where the site is reached: https://bench.example.com */
  baseUrl: string;
  /** The page itself, relative to the site (og:url); left out when unknown. */
  pagePath?: string;
}

export function comparisonMetadata({
  title,
  description,
  imagePath,
  baseUrl,
  pagePath,
}: ComparisonMetadataInput): Metadata {
  const base = new URL(baseUrl);
  const image = new URL(imagePath, base).toString();
  const images = [{ url: image, width: OG_IMAGE_WIDTH, height: OG_IMAGE_HEIGHT, alt: title, type: "image/png" }];
  return {
    metadataBase: base,
    title,
    ...(description ? { description } : {}),
    openGraph: {
      type: "website",
      siteName: "servebench",
      title,
      ...(description ? { description } : {}),
      ...(pagePath ? { url: new URL(pagePath, base).toString() } : {}),
      images,
    },
    twitter: {
      card: "summary_large_image",
      title,
      ...(description ? { description } : {}),
      images: [image],
    },
  };
}

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
  if (configured) return configured.replace(/\/+$/, "");
  const host = firstOf(headers.get("x-forwarded-host")) ?? firstOf(headers.get("host"));
  if (!host || !HOST_PATTERN.test(host)) return fallback;
  const proto = firstOf(headers.get("x-forwarded-proto"))?.toLowerCase();
  const scheme = proto === "https" || proto === "http" ? proto : "http";
  return `${scheme}://${host}`;
}

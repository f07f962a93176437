/**
 * Link previews: the Open Graph and Twitter card tags of a comparison page, with absolute URLs. Pure, so the
 * tags can be tested without a request; lib/http/base-url.ts finds the base URL.
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

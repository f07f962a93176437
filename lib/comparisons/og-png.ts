/**
 * The link-preview image of a comparison as the PNG answered (GET /api/og): the comparison a link names, found
 * and drawn (og-image.tsx), or a plain card saying why there is none.
 */
import type { ImageResponse } from "next/og";
import type { ReactElement } from "react";
import { AppError } from "@/lib/errors";
import { loadComparison } from "./loader";
import { OG_IMAGE_HEIGHT, OG_IMAGE_WIDTH } from "./metadata";
import { offlineImageResponse } from "./og-fonts";
import { comparisonImage, notFoundImage } from "./og-image";
import { openSavedComparison } from "./save";
import { parseCompareView } from "./view";

const CACHE_CONTROL = "public, max-age=300";

/**
 * Every image GET /api/og answers is made here, once: the one place its options (size, cache, fonts) are set.
 * The fonts are the bundled ones (lib/comparisons/og-fonts.ts): the image never fetches anything.
 */
function png(element: ReactElement, status = 200): ImageResponse {
  return offlineImageResponse(element, {
    width: OG_IMAGE_WIDTH,
    height: OG_IMAGE_HEIGHT,
    status,
    headers: { "Cache-Control": CACHE_CONTROL },
  });
}

/**
 * The image of the comparison named by the query parameters of /compare, or by `slug` for a saved one. An
 * unknown comparison is a plain card with status 404, so a preview never shows a broken image.
 */
export async function comparisonPreviewPng(params: Record<string, string>): Promise<ImageResponse> {
  const slug = params.slug?.trim();
  if (slug) {
    try {
      const opened = await openSavedComparison(slug, params);
      if (!opened.comparison)
        return png(notFoundImage("None of the runs of this saved comparison exist any more."), 404);
      return png(comparisonImage(opened.saved.title, opened.comparison));
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found")
        return png(notFoundImage("There is no saved comparison at this link."), 404);
      throw error;
    }
  }
  const view = parseCompareView(params);
  if (view.runIds.length === 0) return png(notFoundImage("The link names no runs to compare."), 404);
  const { comparison } = await loadComparison(view);
  if (!comparison) return png(notFoundImage("The runs of this link do not exist; they may have been deleted."), 404);
  return png(comparisonImage(comparison.summary.title, comparison));
}

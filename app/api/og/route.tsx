/**
 * The link-preview image of a comparison: a 1200×630 PNG (drawn by lib/comparisons/og-image.tsx). Takes the
 * query parameters of /compare or `slug` for a saved comparison. An unknown comparison is still a PNG (a plain
 * card), with status 404, so a preview never shows a broken image.
 */
import type { ImageResponse } from "next/og";
import type { ReactElement } from "react";
import { parseCompareView } from "@/lib/analysis/comparison";
import { loadComparison } from "@/lib/comparisons/loader";
import { OG_IMAGE_HEIGHT, OG_IMAGE_WIDTH } from "@/lib/comparisons/metadata";
import { offlineImageResponse } from "@/lib/comparisons/og-fonts";
import { comparisonImage, notFoundImage } from "@/lib/comparisons/og-image";
import { openSavedComparison } from "@/lib/comparisons/save";
import { AppError } from "@/lib/errors";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";

export const dynamic = "force-dynamic";

const CACHE_CONTROL = "public, max-age=300";

/**
 * Every image this route answers is made here, once: the one place its options (size, cache, fonts) are set.
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

export const GET = apiRoute(async (request) => {
  const params = Object.fromEntries(new URL(request.url).searchParams.entries());
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
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);

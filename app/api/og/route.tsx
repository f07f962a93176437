/**
 * The link-preview image of a comparison: a 1200×630 PNG (drawn by lib/comparisons/og-image.tsx). Takes the
 * query parameters of /compare or `slug` for a saved comparison. An unknown comparison is still a PNG (a plain
 * card), with status 404, so a preview never shows a broken image.
 */
import { comparisonPreviewPng } from "@/lib/comparisons/og-png";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request) =>
  comparisonPreviewPng(Object.fromEntries(new URL(request.url).searchParams.entries())),
);

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);

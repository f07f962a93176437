import { AppError, excerpt } from "@/lib/errors";
import { apiRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Any /api/ address no route takes: a 404 in the one error shape, whatever the method. */
const notFound = apiRoute(async (request) => {
  throw new AppError(
    "not_found",
    `There is no API at ${excerpt(new URL(request.url).pathname)}; see docs/api.md for the ones there are.`,
  );
});

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;

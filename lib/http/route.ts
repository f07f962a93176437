/**
 * The wrapper every API route handler goes through: it turns thrown errors into the one error shape.
 */
import { errorResponse } from "./errors";

export function apiRoute<Context>(
  handler: (request: Request, context: Context) => Promise<Response>,
): (request: Request, context: Context) => Promise<Response> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      return errorResponse(error, `${request.method} ${new URL(request.url).pathname}`);
    }
  };
}

/** The absolute address of this servebench as the request reached it: the base of links sent to webhooks. */
import { resolveBaseUrl } from "@/lib/comparisons/metadata";
import { env } from "@/lib/env";

export function publicBaseUrl(request: Request): string {
  return resolveBaseUrl(env().SERVEBENCH_PUBLIC_URL, request.headers, new URL(request.url).origin);
}

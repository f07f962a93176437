/** The base URL of the current request, for absolute links in page metadata (server components only). */
import { headers } from "next/headers";
import { env } from "@/lib/env";
import { resolveBaseUrl } from "./metadata";

export async function requestBaseUrl(): Promise<string> {
  const configured = env().SERVEBENCH_PUBLIC_URL;
  if (configured) return resolveBaseUrl(configured, { get: () => null });
  return resolveBaseUrl(undefined, await headers(), `http://localhost:${env().PORT}`);
}

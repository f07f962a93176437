import { publicBaseUrl } from "@/lib/http/base-url";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { llmsTxt } from "@/lib/mcp/llms-txt";

export const dynamic = "force-dynamic";

/** llmstxt.org's file for agents: the API, the MCP endpoint and the run format, with this instance's links. */
export const GET = apiRoute(async (request) => {
  const version = process.env.NEXT_PUBLIC_SERVEBENCH_VERSION ?? "dev";
  return new Response(llmsTxt(publicBaseUrl(request), version), {
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);

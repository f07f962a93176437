import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { crossSiteDenial } from "@/lib/http/auth";
import { publicBaseUrl } from "@/lib/http/base-url";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { createMcpServer } from "@/lib/mcp/server";

export const dynamic = "force-dynamic";

/**
 * The MCP endpoint (streamable HTTP, stateless: every POST is answered on its own, as JSON). Only reads: the proxy
 * lets it through without the write token, and refuses it from another site's page like any POST.
 */
export const POST = apiRoute(async (request) => {
  // Also here, should anything reach the handler without the proxy: a page of another site must not read through
  // its visitor's browser what only that visitor can reach (a servebench on their machine or intranet).
  const crossSite = crossSiteDenial(request);
  if (crossSite) throw crossSite;
  const server = createMcpServer(publicBaseUrl(request));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
});

// No server-sent event stream (GET) and no session to end (DELETE): stateless.
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);

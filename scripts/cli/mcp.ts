/**
 * `servebench mcp`: servebench's MCP tools over stdio, for agent clients that start a command rather than call a
 * URL. It is a relay: each tool call goes to the server's /api/mcp, so the tools, their answers and their rules
 * (read-only) are the server's, whatever version this command is.
 */
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { serverBase } from "./server-request";

export const MCP_USAGE = `Usage: servebench mcp [--url URL]

  Serve servebench's read-only MCP tools (search_runs, get_run, compare_runs, list_comparisons, get_comparison,
  list_series, get_series, list_alerts) over stdio, relayed to the server's /api/mcp.

  --url URL   the servebench server (default: $SERVEBENCH_URL or http://localhost:3000)`;

export async function runMcp(argv: string[]): Promise<number> {
  let url: string;
  try {
    const parsed = parseArgs({ args: argv, options: { url: { type: "string" } }, strict: true });
    url = serverBase(parsed.values.url);
    new URL(url);
  } catch (error) {
    process.stderr.write(`servebench mcp: ${error instanceof Error ? error.message : String(error)}\n\n${MCP_USAGE}\n`);
    return 2;
  }
  const remote = new Client({ name: "servebench-cli", version: "1.0.0" });
  try {
    await remote.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`)));
  } catch (error) {
    // stdout belongs to the protocol: every word for the person goes to stderr.
    process.stderr.write(
      `servebench mcp: ${url}/api/mcp did not answer as an MCP server: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  const serverInfo = remote.getServerVersion();
  const server = new Server(
    { name: serverInfo?.name ?? "servebench", version: serverInfo?.version ?? "1.0.0" },
    { capabilities: { tools: {} }, instructions: remote.getInstructions() },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => remote.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, (request) => remote.callTool(request.params));
  const closed = new Promise<number>((resolve) => {
    server.onclose = () => resolve(0);
  });
  await server.connect(new StdioServerTransport());
  // The client ending its side of the pipe ends the session.
  process.stdin.once("end", () => void server.close());
  process.stderr.write(`servebench mcp: relaying to ${url}/api/mcp\n`);
  const code = await closed;
  await remote.close();
  return code;
}

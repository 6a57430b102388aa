/**
 * The MCP SDK, imported when the first server connects: it brings Ajv, its zod schemas and the
 * transports (a few hundred modules), which a task without MCP servers never needs.
 */
export type McpSdk = {
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  SSEClientTransport: typeof import("@modelcontextprotocol/sdk/client/sse.js").SSEClientTransport;
  SseError: typeof import("@modelcontextprotocol/sdk/client/sse.js").SseError;
  StdioClientTransport: typeof import("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport;
  DEFAULT_INHERITED_ENV_VARS: typeof import("@modelcontextprotocol/sdk/client/stdio.js").DEFAULT_INHERITED_ENV_VARS;
  StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport;
  StreamableHTTPError: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPError;
  ErrorCode: typeof import("@modelcontextprotocol/sdk/types.js").ErrorCode;
  McpError: typeof import("@modelcontextprotocol/sdk/types.js").McpError;
};

let sdk: McpSdk | undefined;
let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= (async () => {
    const [client, sse, stdio, http, types] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      import("@modelcontextprotocol/sdk/client/sse.js"),
      import("@modelcontextprotocol/sdk/client/stdio.js"),
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]);
    sdk = {
      Client: client.Client,
      SSEClientTransport: sse.SSEClientTransport,
      SseError: sse.SseError,
      StdioClientTransport: stdio.StdioClientTransport,
      DEFAULT_INHERITED_ENV_VARS: stdio.DEFAULT_INHERITED_ENV_VARS,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
      ErrorCode: types.ErrorCode,
      McpError: types.McpError,
    };
    return sdk;
  })().catch((error: unknown) => {
    loading = undefined; // a later connection tries again
    throw error;
  });
  return loading;
}

/**
 * The SDK if a connection has loaded it. Its error classes can only have been thrown once it is
 * loaded, so code that tells errors apart needs no await: before then, no error is the SDK's.
 */
export function loadedMcpSdk(): McpSdk | undefined {
  return sdk;
}

/** An error the SDK raised (a JSON-RPC error from the server or its own), optionally of one code. */
export function isMcpError(error: unknown, code?: keyof McpSdk["ErrorCode"]): error is InstanceType<McpSdk["McpError"]> {
  if (!sdk || !(error instanceof sdk.McpError)) return false;
  return code === undefined || error.code === sdk.ErrorCode[code];
}

/**
 * @cairn/core: the Cairn coding agent as a library. It never writes to stdout; hosts consume
 * AgentEvents and answer the Host callbacks.
 */
export * from "./agent/index.js";
export * from "./browser/index.js";
export * from "./checkpoints/index.js";
export * from "./context/index.js";
export * from "./events/index.js";
export * from "./hooks/index.js";
export * from "./lsp/index.js";
export * from "./host-git/index.js";
export * from "./mcp/index.js";
export * from "./model/index.js";
export * from "./policy/index.js";
export * from "./prompt/index.js";
export * from "./protocol/index.js";
export * from "./runtime/index.js";
export * from "./sandbox/index.js";
export * from "./session/index.js";
export * from "./storage/index.js";
export * from "./terminal/index.js";
export * from "./tools/index.js";
export * from "./transcript/index.js";
export * from "./trust/index.js";

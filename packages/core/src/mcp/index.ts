export {
  DEFAULT_TIMEOUT_SECONDS,
  expandVars,
  globalConfigFile,
  loadMcpConfig,
  McpConfigError,
  projectConfigFile,
  readConfigFile,
  type McpConfig,
  type RemoteServerConfig,
  type ServerConfig,
  type ServerConfigProblem,
  type ServerSource,
  type StdioServerConfig,
  type TransportKind,
} from "./config.js";
export { addServerEntry, removeServerEntry } from "./config-edit.js";
export { DEFAULT_RESTART_DELAYS_MS, McpHubError, type ServerState } from "./connection.js";
export { stateText } from "./describe.js";
export { McpHub, type McpHubOptions, type McpResources, type ServerInfo } from "./hub.js";
export { approvalsFile, approveProjectServer, configHash, isProjectServerApproved, loadApprovals, revokeProjectApprovals, type ProjectApproval } from "./project-approval.js";
export type { McpToolInfo } from "./tool-cache.js";

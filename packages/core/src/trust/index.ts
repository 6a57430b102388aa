/**
 * # Trust in a workspace's config
 *
 * A repository may carry files that make Cairn run code: `.cairn/settings.json` (hooks) and
 * `.mcp.json` (MCP servers). Cloning a repository must not be enough to run them, so they stay inert
 * until the person trusts that exact content once (`cairn trust`, or the interactive session's
 * question). Trust is recorded in CAIRN_HOME/trust.json per workspace (real path) and file, bound
 * to a digest of the file's text and of the workspace files its commands name; any change to them
 * needs trust again. What those files source or run in turn (a helper script, a package.json
 * script, node_modules) no digest can follow, and the model may edit it: so the workspace's hooks and
 * the problems checker run in the command sandbox, and trust is not what keeps them from the host. Headless runs skip untrusted config with a one-line notice (`untrustedNotice`).
 * CAIRN_HOME's own files are the person's and always trusted. What a workspace's config holds
 * (`projectConfig`, for `cairn trust` and the TUI's question) is read in session/project-config.ts,
 * above hooks, mcp and prompt, so that trust stays a leaf they all import.
 */
export { configDigest, type ConfigDigest } from "./digest.js";
export { isTrusted, loadTrust, revokeTrust, trustDigest, trustFile, trustRecord, workspaceKey, type TrustRecord } from "./trust-store.js";
export { untrustedNotice, type UntrustedConfig } from "./untrusted.js";

import { readFileSync } from "node:fs";
import path from "node:path";
import { realOrResolved } from "../disk/real-path.js";
import { hooksDigest, parseHooks, projectSettingsFile } from "../hooks/config.js";
import { projectConfigFile, serverEntries } from "../mcp/config.js";
import { projectAgentsConfig } from "../prompt/agent-definitions.js";
import { projectFileDigest, revokeProjectApprovals } from "../mcp/project-approval.js";
import { isTrusted, revokeTrust, trustDigest, trustRecord, workspaceKey, type TrustRecord } from "../trust/trust-store.js";

/**
 * A workspace file that can run code or widen what the agent may do, as `cairn trust` and the
 * interactive session show it. Today two files: `.cairn/settings.json` (its hooks and its settings,
 * which the session layers over the person's own only once trusted) and `.mcp.json` (its servers).
 * User-level config in CAIRN_HOME is the person's own and never listed.
 */
export type ProjectConfigFile = {
  /** Absolute, under the workspace's real path. */
  file: string;
  what: "hooks" | "settings" | "hooks and settings" | "MCP servers" | "agent definitions";
  /** What would run, one line each, exactly as configured. */
  items: string[];
  /** Workspace files those commands run, covered by the same trust. */
  runs: string[];
  /** The digest trust is recorded for (the text shown, and the files in `runs`). */
  digest: string;
  trusted: boolean;
  /** Trusted once, in another version. */
  changed: boolean;
};

export type ProjectConfig = { workspace: string; files: ProjectConfigFile[] };

/** The workspace's files that can run code and have something to run, with their trust state. */
export function projectConfig(options: { home: string; cwd: string }): ProjectConfig {
  const workspace = workspaceKey(options.cwd);
  const files: ProjectConfigFile[] = [];
  const settings = projectSettingsFile(workspace);
  // CAIRN_HOME may be this workspace's .cairn folder: then that file is the person's own settings.
  const text = realOrResolved(settings) === realOrResolved(path.join(options.home, "settings.json")) ? undefined : readOrUndefined(settings);
  if (text !== undefined) {
    const { hooks } = parseHooks(settings, text);
    const values = settingValues(text);
    if (hooks.length > 0 || values.length > 0) {
      const digest = hooksDigest(workspace, text, hooks);
      const items = [...hooks.map((h) => `${h.event}${h.matcher ? ` (${h.matcher})` : ""}: ${h.command}`), ...values];
      const what = hooks.length === 0 ? "settings" : values.length === 0 ? "hooks" : "hooks and settings";
      files.push(entry(options.home, workspace, settings, what, items, digest));
    }
  }
  const mcpFile = projectConfigFile(workspace);
  const mcpText = readOrUndefined(mcpFile);
  if (mcpText !== undefined) {
    let servers: Record<string, unknown> = {};
    try {
      servers = serverEntries(mcpFile, mcpText);
    } catch {
      // A broken file starts nothing (cairn run says why); there is nothing to trust in it.
    }
    const items = Object.entries(servers).map(([name, raw]) => `${name}: ${JSON.stringify(raw)}`);
    if (items.length > 0) files.push(entry(options.home, workspace, mcpFile, "MCP servers", items, projectFileDigest(workspace, mcpFile, mcpText)));
  }
  // Agent definitions choose a sub-agent's tools and instructions: trusted like the files above.
  const agents = projectAgentsConfig(workspace);
  if (agents) files.push(entry(options.home, workspace, agents.dir, "agent definitions", agents.items, { digest: agents.digest, files: [] }));
  return { workspace, files };
}

function entry(home: string, workspace: string, file: string, what: ProjectConfigFile["what"], items: string[], digest: { digest: string; files: string[] }): ProjectConfigFile {
  const trusted = isTrusted(home, workspace, file, digest.digest);
  return { file, what, items, runs: digest.files, digest: digest.digest, trusted, changed: !trusted && trustRecord(home, workspace, file) !== undefined };
}

/** Records trust in exactly what `projectConfig` returned (what the person was shown). */
export function trustProjectConfig(home: string, config: ProjectConfig): TrustRecord[] {
  return config.files.map((f) => trustDigest(home, config.workspace, f.file, f.digest));
}

/** Forgets the person's trust in the workspace's config, and its per-server MCP approvals. */
export function revokeProjectTrust(home: string, cwd: string): { records: TrustRecord[]; mcpApprovals: number } {
  return { records: revokeTrust(home, cwd), mcpApprovals: revokeProjectApprovals(home, workspaceKey(cwd)) };
}

/** The settings a workspace's settings file sets besides its hooks, one line each ("maxTurns: 5"). */
function settingValues(text: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return []; // broken: the session refuses it, there is nothing to trust in it
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return [];
  return Object.entries(json).flatMap(([key, value]) => (key === "hooks" ? [] : [`${key}: ${JSON.stringify(value)}`]));
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

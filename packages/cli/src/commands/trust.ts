import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { cairnHome, loadTrust, projectConfig, revokeProjectTrust, trustProjectConfig, type ProjectConfig } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";

export const trustHelp = `Usage:
  cairn trust [--cwd dir]           show this workspace's config that runs code, and trust it
  cairn trust --show [--cwd dir]    show it without trusting it
  cairn trust --list                every workspace file you trusted, and whether it changed since
  cairn trust --revoke [--cwd dir]  forget your trust in this workspace's config (and its MCP approvals)

A repository's .cairn/settings.json (hooks) and .mcp.json (MCP servers) can make Cairn run
commands. They stay inert until you trust their exact content, and the workspace scripts their
commands name; any change to those needs trust again. What those scripts source or run in turn is
not covered: hooks and servers run in the command sandbox for that, and with --sandbox off they
run as you. Your own CAIRN_HOME config is always trusted.`;

/** `cairn trust`: review and trust (or list, or revoke) a workspace's config that runs code. */
export function trustCommand(argv: string[], io: Io): number {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: { cwd: { type: "string" }, show: { type: "boolean" }, list: { type: "boolean" }, revoke: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see cairn trust --help)`);
  }
  if (values.help) {
    io.stdout(`${trustHelp}\n`);
    return 0;
  }
  if ([values.show, values.list, values.revoke].filter(Boolean).length > 1) throw new UsageError("Give one of --show, --list or --revoke.");
  const home = cairnHome(io.env);
  if (values.list) return list(home, io);
  const cwd = workspace(values.cwd ?? process.cwd());
  if (values.revoke) {
    const { records, mcpApprovals } = revokeProjectTrust(home, cwd);
    const approvals = mcpApprovals > 0 ? ` and ${mcpApprovals} MCP server approval${mcpApprovals === 1 ? "" : "s"}` : "";
    io.stdout(records.length + mcpApprovals === 0 ? `Nothing was trusted in ${cwd}.\n` : `Revoked trust in ${records.map((r) => path.relative(cwd, r.file)).join(", ") || "no files"}${approvals} for ${cwd}.\n`);
    return 0;
  }
  const config = projectConfig({ home, cwd });
  if (config.files.length === 0) {
    io.stdout(`Nothing to trust in ${config.workspace}: no hooks in .cairn/settings.json and no servers in .mcp.json.\n`);
    return 0;
  }
  show(config, io);
  if (values.show) {
    const pending = config.files.some((f) => !f.trusted);
    io.stdout(pending ? `Not trusted yet. To let these run here: cairn trust --cwd ${config.workspace}\n` : "All of it is trusted.\n");
    return 0;
  }
  trustProjectConfig(home, config);
  io.stdout(`Trusted: these run in ${config.workspace} from now on, until the files change (undo with cairn trust --revoke).\n`);
  return 0;
}

function show(config: ProjectConfig, io: Io): void {
  io.stdout(`Workspace ${config.workspace}\n`);
  for (const f of config.files) {
    const state = f.trusted ? "trusted" : f.changed ? "changed since you trusted it" : "not trusted";
    io.stdout(`  ${path.relative(config.workspace, f.file)}: ${f.what} (${state})\n`);
    for (const item of f.items) io.stdout(`    ${item}\n`);
    if (f.runs.length > 0) io.stdout(`    workspace files they run: ${f.runs.join(", ")}\n`);
  }
}

function list(home: string, io: Io): number {
  const records = loadTrust(home);
  if (records.length === 0) {
    io.stdout("No workspace config is trusted. Trust one with: cairn trust --cwd <workspace>\n");
    return 0;
  }
  for (const r of records) {
    const current = projectConfig({ home, cwd: r.workspace }).files.find((f) => f.file === r.file);
    const state = current === undefined ? "gone" : current.trusted ? "trusted" : "changed since, inert";
    io.stdout(`${r.file}  ${state}  trusted ${r.trustedAt.slice(0, 16).replace("T", " ")}\n`);
  }
  return 0;
}

function workspace(dir: string): string {
  const stats = statSync(dir, { throwIfNoEntry: false });
  if (!stats?.isDirectory()) throw new UsageError(`--cwd ${dir}: no such folder. Give the workspace folder.`);
  return realpathSync(dir);
}

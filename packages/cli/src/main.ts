import { createRequire } from "node:module";
import type { Io } from "@cairn/host/io";
import type { RunArgs } from "@cairn/host/run-args";
import { UsageError } from "@cairn/host/usage-error";
import { defaultIo, guarded } from "./command-guard.js";
import { exitCodes } from "./exit-codes.js";
import { resumeMain, runMain } from "./run-main.js";

export { installCrashHandlers } from "./command-guard.js";

// Each command is loaded when it runs, so `cairn --version` does not pay for the agent, the
// terminal UI or the MCP SDK (issue 13: start only what a command needs).
const runArgs = () => import("@cairn/host/run-args");
const commands = {
  acp: () => import("./acp/acp-command.js"),
  checkpoints: () => import("./commands/checkpoints.js"),
  export: () => import("./commands/export.js"),
  fleet: () => import("./fleet/index.js"),
  interactive: () => import("./commands/interactive.js"),
  mcp: () => import("./commands/mcp.js"),
  models: () => import("./commands/models.js"),
  history: () => import("./commands/history.js"),
  import: () => import("./commands/import.js"),
  replay: () => import("./commands/replay.js"),
  rules: () => import("./commands/rules.js"),
  skills: () => import("./commands/skills.js"),
  permissions: () => import("./commands/permissions.js"),
  trust: () => import("./commands/trust.js"),
  web: () => import("@cairn/web"),
};

const version = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

const help = `cairn ${version}: an autonomous coding agent

Usage:
  cairn [options] ["task"]                  an interactive session (at a terminal)
  cairn run [options] [--] <task...>        run a task headlessly (scripts, CI)
  cairn resume <id> [message] [options]     carry a stored task on (same options as run)
  cairn replay <file> [--cwd dir]           run a task recorded with run --record again, no model
  cairn history [--all] [--json] [--limit n]  this workspace's tasks, newest first (--all: every one's)
  cairn show <id> [--json]                  one task's record
  cairn delete <id>                         remove a stored task
  cairn export <id> [-o file]               a stored task as one file, secrets redacted
  cairn import <file> [--cwd dir]           store an exported task here (then show, resume)
  cairn checkpoints <id> | diff <id> <a> [b] | restore <id> <cp> --workspace|--task|--both
  cairn rules [--cwd dir] [--path f] [--json]  rules files a task here would read
  cairn skills [--cwd dir] [--json]         Agent Skills a task here would be offered, and skipped ones
  cairn models [id...] [--json]             what each model takes (images, context, tools) and from where
  cairn mcp list|add|remove|test|approve    MCP servers (see cairn mcp --help)
  cairn permissions [add [--user] <rule> | remove <n|rule>]  saved "always allow" rules
  cairn trust [--cwd dir] | --list | --revoke  review and trust a repository's hooks and MCP servers
  cairn acp [run options]                   serve an editor over the Agent Client Protocol (stdio)
  cairn fleet add|worker|status|watch|result|cancel|retry  many tasks on many machines (Redis)
  cairn web [--port n] [--host h] [--open]  the agent in your browser (run options apply to its tasks)
  cairn --version

Run \`cairn run --help\` for the options. Keys come from the environment:
ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, DEEPSEEK_API_KEY, or CAIRN_API_KEY.`;

export async function main(argv: string[], io: Io = defaultIo()): Promise<number> {
  const [command, ...rest] = argv;
  const atTerminal = process.stdin.isTTY === true && process.stdout.isTTY === true;
  return await guarded(argv, io, async () => {
    if (command === undefined && atTerminal) {
      const { parseRunArgs } = await runArgs();
      return await (await commands.interactive()).interactiveCommand(parseRunArgs([], process.cwd()) as RunArgs, io);
    }
    if (command === undefined || command === "--help" || command === "-h" || command === "help") {
      io.stdout(`${help}\n`);
      return command === undefined ? exitCodes.usage : 0;
    }
    if (command === "--version" || command === "-v") {
      io.stdout(`${version}\n`);
      return 0;
    }
    if (command === "run") return await runMain(rest, io);
    if (command === "resume") return await resumeMain(rest, io);
    if (command === "acp") {
      const { parseRunArgs } = await runArgs();
      const acp = await commands.acp();
      const args = parseRunArgs(rest, process.cwd());
      if (args === "help") {
        io.stdout(`${acp.acpHelp}\n`);
        return 0;
      }
      return await acp.acpCommand(args, io, version);
    }
    if (command === "replay") return await (await commands.replay()).replayCommand(rest, io);
    if (command === "history") return (await commands.history()).historyCommand(rest, io);
    if (command === "show") return (await commands.history()).showCommand(rest, io);
    if (command === "delete") return (await commands.history()).deleteCommand(rest, io);
    if (command === "export") return (await commands.export()).exportCommand(rest, io, version);
    if (command === "import") return (await commands.import()).importCommand(rest, io);
    if (command === "rules") return (await commands.rules()).rulesCommand(rest, io);
    if (command === "skills") return (await commands.skills()).skillsCommand(rest, io);
    if (command === "models") return await (await commands.models()).modelsCommand(rest, io);
    if (command === "checkpoints") return await (await commands.checkpoints()).checkpointsCommand(rest, io);
    if (command === "mcp") return await (await commands.mcp()).mcpCommand(rest, io);
    if (command === "permissions") return (await commands.permissions()).permissionsCommand(rest, io);
    if (command === "trust") return (await commands.trust()).trustCommand(rest, io);
    if (command === "fleet") return await (await commands.fleet()).fleetCommand(rest, io);
    if (command === "web") return await (await commands.web()).webCommand(rest, io);
    // At a terminal, anything else is a task (or options) for an interactive session; a single
    // lowercase word is more likely a mistyped command than a task.
    if (atTerminal && !(argv.length === 1 && /^[a-z-]+$/.test(command))) {
      const { parseRunArgs, runHelp } = await runArgs();
      const args = parseRunArgs(argv, process.cwd());
      if (args === "help") {
        io.stdout(`${runHelp}\n`);
        return 0;
      }
      refuseRecord(args, "an interactive session");
      return await (await commands.interactive()).interactiveCommand(args, io);
    }
    // Options with no terminal for a session: a mistyped or foreign flag is named as such first.
    if (command.startsWith("-")) (await runArgs()).parseRunArgs(argv, process.cwd());
    throw new UsageError(`Unknown command "${command}". Run cairn --help; to start a task, quote it: cairn "describe the task".`);
  });
}

/** --record is for the hosts that record (run, resume, acp, web): elsewhere it would be read and quietly not done. */
function refuseRecord(args: RunArgs, where: string): void {
  if (args.record !== undefined) throw new UsageError(`--record works with cairn run, resume, acp and web, not ${where}; record the task with cairn run --record <file> "task".`);
}

import { existsSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { importTask, TaskFileError } from "@cairn/core/portable";
import { cairnHome } from "@cairn/core/storage";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";
import { terminalText } from "../terminal-text.js";

export const importHelp = `Usage: cairn import <file> [--cwd dir]

Restores a task cairn export wrote (and its sub-agents' tasks) under this CAIRN_HOME, where
cairn show and cairn resume open it as on the machine it came from. It keeps its id unless a
task here has it, then it gets a new one (printed). A file cut short, damaged or written by a
newer Cairn is refused.

Options:
  --cwd dir   the folder the task works in here (a copy of its workspace); needed when the
              folder it worked in is not on this machine.

The file brings a conversation, never power: its "always allow for this task" rules and its
links to tasks it does not hold are dropped.`;

/** `cairn import <file> [--cwd dir]`: an exported task, stored here. */
export function importCommand(argv: string[], io: Io): number {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { cwd: { type: "string" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see cairn import --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${importHelp}\n`);
    return 0;
  }
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new UsageError("Which file? cairn import <file> [--cwd dir] (a file cairn export wrote).");
  const cwd = values.cwd === undefined ? undefined : folder(values.cwd);
  try {
    const imported = importTask({ home: cairnHome(io.env), file, ...(cwd ? { cwd } : {}) });
    const renamed = imported.id === imported.exportedId ? "" : ` (exported as ${imported.exportedId}, an id a task here has)`;
    const subagents = imported.subagents > 0 ? `, with ${imported.subagents} sub-agent task${imported.subagents === 1 ? "" : "s"}` : "";
    const redacted = imported.redactions > 0 ? `\n  ${imported.redactions} secret${imported.redactions === 1 ? " was" : "s were"} redacted when it was exported: [REDACTED:<kind>] stands in their place` : "";
    // The title and folder come from the file: printed without their escapes, as cairn show prints them.
    io.stdout(
      terminalText(
        `Imported task ${imported.id}${renamed}${subagents}: ${imported.title}\n  works in ${imported.workspace}${redacted}\n` +
          `  resumes with ${imported.model}, the file's choice (cairn resume --provider/--model pick yours)\n  cairn show ${imported.id} · cairn resume ${imported.id} "..."\n`,
      ),
    );
    return 0;
  } catch (error) {
    if (error instanceof TaskFileError) throw new UsageError(terminalText(error.message));
    throw error;
  }
}

/** The folder --cwd names, as a real path; it must exist. */
function folder(dir: string): string {
  const resolved = path.resolve(dir);
  if (!existsSync(resolved) || !statSync(resolved).isDirectory()) throw new UsageError(`--cwd ${dir} is not a folder: give the folder the task should work in here.`);
  return realpathSync.native(resolved);
}

import path from "node:path";
import { parseArgs } from "node:util";
// The store and the file format alone, not the agent: an export starts in a fraction of the time.
import { exportTask } from "@cairn/core/portable";
import { cairnHome, TaskNotFoundError, writeFileAtomicSync } from "@cairn/core/storage";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";
import { exitCodes } from "../exit-codes.js";

export const exportHelp = `Usage: cairn export <id> [-o file]

Writes a stored task to one file another Cairn can import (cairn import <file>): its metadata,
conversation, event journal, focus chain, usage and cost, its links to the tasks it handed over
to or came from, and its sub-agents' tasks. Secrets in it (API keys and tokens of known shapes,
passwords in URLs, the values of this environment's variables named like secrets) are replaced
with [REDACTED:<kind>]; the file counts them. Checkpoints stay on this machine.
The format is described in the README ("Exporting and importing a task").

Options:
  -o, --output file   where to write it (default: <id>.cairn-task.json here; - for stdout)`;

/** `cairn export <id> [-o file]`: a stored task as one portable file, its secrets redacted. */
export function exportCommand(argv: string[], io: Io, version: string): number {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { output: { type: "string", short: "o" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see cairn export --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${exportHelp}\n`);
    return 0;
  }
  const [id, ...extra] = positionals;
  if (!id || extra.length > 0) throw new UsageError("Which task? cairn export <id> [-o file] (see cairn history).");
  let exported;
  try {
    exported = exportTask({ home: cairnHome(io.env), id, env: io.env, exportedBy: `cairn ${version}` });
  } catch (error) {
    if (error instanceof TaskNotFoundError) throw new UsageError(error.message);
    throw error;
  }
  for (const warning of exported.warnings) io.stderr(`cairn: ${warning}\n`);
  const { file } = exported;
  const [task] = file.tasks;
  const text = `${JSON.stringify(file, null, 1)}\n`;
  const target = values.output ?? `${task!.metadata.id}.cairn-task.json`;
  // The summary goes to stderr when the file goes to stdout, so the file stays whole.
  const say = target === "-" ? io.stderr : io.stdout;
  if (target === "-") io.stdout(text);
  else {
    try {
      writeFileAtomicSync(path.resolve(target), text);
    } catch (error) {
      io.stderr(`cairn: cannot write ${target} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message.split("\n")[0]}); give -o a file in a folder you can write to.\n`);
      return exitCodes.failed;
    }
  }
  const messages = task!.conversation.filter((line) => "message" in line).length;
  const subagents = file.tasks.length - 1;
  const kinds = Object.entries(file.redactions.kinds).map(([kind, n]) => `${n} ${kind}`);
  say(
    `Exported task ${task!.metadata.id} to ${target === "-" ? "stdout" : target}: ${messages} message${messages === 1 ? "" : "s"}, ${task!.events.length} events` +
      `${subagents > 0 ? `, ${subagents} sub-agent task${subagents === 1 ? "" : "s"}` : ""}; ` +
      `${file.redactions.count === 0 ? "no secrets found to redact" : `${file.redactions.count} secret${file.redactions.count === 1 ? "" : "s"} redacted (${kinds.join(", ")})`}.\n`,
  );
  return 0;
}

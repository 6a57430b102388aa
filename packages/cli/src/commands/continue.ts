import { realpathSync } from "node:fs";
import path from "node:path";
import { cairnHome, listTasks } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import type { RunArgs } from "@cairn/host/run-args";
import { UsageError } from "@cairn/host/usage-error";
import { resumeCommand } from "./resume.js";

/** The folder as the task store records it, and as it really is (a link, /tmp on macOS). */
function sameFolder(dir: string): (workspace: string) => boolean {
  const resolved = path.resolve(dir);
  let real = resolved;
  try {
    real = realpathSync(resolved);
  } catch {
    // a folder that does not exist has no task either
  }
  return (workspace) => workspace === resolved || workspace === real;
}

/**
 * `cairn run -c [message]`: carries on the most recently active task of this workspace, as
 * `cairn resume <its id> [message]` would (the words, if any, are the message).
 */
export async function continueCommand(args: RunArgs, io: Io): Promise<number> {
  const here = sameFolder(args.cwd);
  // A sub-agent's task is part of its parent's work: carrying on means carrying on the parent.
  const last = listTasks(cairnHome(io.env)).entries.find((entry) => here(entry.workspace) && entry.parent?.relation !== "subagent");
  if (!last) throw new UsageError(`No task to continue in ${path.resolve(args.cwd)}: start one with cairn run "<task>" (cairn history lists the tasks of every folder).`);
  const { continue: _continue, ...rest } = args;
  return resumeCommand({ ...rest, task: `${last.id} ${args.task}`.trim() }, io);
}

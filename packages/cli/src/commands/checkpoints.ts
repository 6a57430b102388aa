import path from "node:path";
import { parseArgs } from "node:util";
import { cairnHome, Checkpoints, TaskNotFoundError, TaskStore, type CheckpointRecord } from "@cairn/core";
import type { Io } from "../headless.js";
import { UsageError } from "../usage-error.js";

export const checkpointsHelp = `Usage:
  cairn checkpoints <task-id>                          list the task's checkpoints
  cairn checkpoints diff <task-id> <a> [b]             changes from checkpoint a to b (or to the files now)
  cairn checkpoints restore <task-id> <cp> --workspace | --task | --both
      --workspace  files back as they were (new files removed, deleted files back; ignored files untouched)
      --task       the conversation cut back to that point
      --both       both
A checkpoint is named by its number in the list or by the start of its hash.`;

function open(home: string, id: string | undefined): TaskStore {
  if (!id) throw new UsageError(`Which task? ${checkpointsHelp.split("\n")[1]!.trim()}`);
  try {
    return TaskStore.open(home, id);
  } catch (error) {
    if (error instanceof TaskNotFoundError) throw new UsageError(error.message);
    throw error;
  }
}

function pick(records: CheckpointRecord[], ref: string | undefined): CheckpointRecord {
  if (!ref) throw new UsageError("Which checkpoint? Give its number from `cairn checkpoints <task-id>` or the start of its hash.");
  const byNumber = /^\d+$/.test(ref) && ref.length < 5 ? records[Number(ref) - 1] : undefined;
  const byHash = ref.length >= 4 ? records.filter((r) => r.hash.startsWith(ref)) : [];
  const found = byNumber ?? (byHash.length === 1 ? byHash[0] : undefined);
  if (!found) throw new UsageError(`No checkpoint "${ref}" in this task (it has ${records.length}); see cairn checkpoints <task-id>.`);
  return found;
}

async function openRepo(store: TaskStore, home: string): Promise<Checkpoints> {
  return Checkpoints.open({ workspace: store.metadata().workspace, baseDir: path.join(home, "checkpoints") });
}

/** `cairn checkpoints …`: list, diff and restore a task's checkpoints. */
export async function checkpointsCommand(argv: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { workspace: { type: "boolean" }, task: { type: "boolean" }, both: { type: "boolean" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see cairn checkpoints --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${checkpointsHelp}\n`);
    return 0;
  }
  const home = cairnHome(io.env);
  const [first, ...rest] = positionals;

  if (first === "diff") {
    const store = open(home, rest[0]);
    const records = store.metadata().checkpoints;
    const from = pick(records, rest[1]);
    const to = rest[2] === undefined ? undefined : pick(records, rest[2]);
    const diff = await (await openRepo(store, home)).diff(from.hash, to?.hash);
    if (values.json) {
      io.stdout(`${JSON.stringify(diff)}\n`);
      return 0;
    }
    const target = to ? `checkpoint ${records.indexOf(to) + 1}` : "the files now";
    io.stdout(`${diff.files.length} file${diff.files.length === 1 ? "" : "s"} changed from checkpoint ${records.indexOf(from) + 1} to ${target}:\n`);
    for (const f of diff.files) io.stdout(`  ${f.status.padEnd(8)} ${f.path}${f.binary ? " (binary)" : ` +${f.additions} −${f.deletions}`}\n`);
    if (diff.patch) io.stdout(`\n${diff.patch}${diff.patch.endsWith("\n") ? "" : "\n"}`);
    return 0;
  }

  if (first === "restore") {
    const store = open(home, rest[0]);
    const meta = store.metadata();
    const target = pick(meta.checkpoints, rest[1]);
    const chosen = [values.workspace, values.task, values.both].filter(Boolean).length;
    if (chosen !== 1) throw new UsageError("Say what to restore: --workspace (files), --task (conversation) or --both.");
    if (meta.status === "running" && !store.interrupted) throw new UsageError(`Task ${meta.id} is running (process ${meta.pid}); stop it before restoring.`);
    const number = meta.checkpoints.indexOf(target) + 1;
    if (values.workspace || values.both) {
      const restored = await (await openRepo(store, home)).restore(target.hash);
      io.stdout(`Files restored to checkpoint ${number} (${target.label}): ${restored.restored} written back, ${restored.removed} removed.\n`);
    }
    if (values.task || values.both) {
      const { messages } = store.loadConversation();
      store.replaceMessages(messages.slice(0, target.messageIndex));
      store.update({ status: "aborted", checkpoints: meta.checkpoints.filter((c) => c.messageIndex <= target.messageIndex) });
      io.stdout(`Conversation cut back to checkpoint ${number} (${target.messageIndex} messages kept). Continue with: cairn resume ${meta.id} ["message"]\n`);
    }
    return 0;
  }

  const store = open(home, first);
  const records = store.metadata().checkpoints;
  if (values.json) {
    io.stdout(`${JSON.stringify(records)}\n`);
    return 0;
  }
  if (records.length === 0) {
    io.stdout("This task has no checkpoints.\n");
    return 0;
  }
  records.forEach((r, i) => io.stdout(`${String(i + 1).padStart(3)}  ${r.hash.slice(0, 10)}  ${r.createdAt.slice(0, 19).replace("T", " ")}  ${r.label}\n`));
  return 0;
}

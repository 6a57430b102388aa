import path from "node:path";
import { parseArgs } from "node:util";
import {
  cairnHome,
  CheckpointError,
  Checkpoints,
  readableCheckpoints,
  restoreCheckpoint,
  SessionError,
  TaskInUseError,
  TaskNotFoundError,
  TaskStore,
  type CheckpointRecord,
  type CheckpointRestore,
  type TaskRestoreOutcome,
  type UntouchedFile,
} from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";

export const checkpointsHelp = `Usage:
  cairn checkpoints <task-id>                          list the task's checkpoints
  cairn checkpoints diff <task-id> <a> [b]             changes from checkpoint a to b (or to the files now)
  cairn checkpoints restore <task-id> <cp> --workspace | --task | --both [--all-files]
      --workspace  the agent's changes to files undone (its new files removed, deleted files back)
      --task       the conversation cut back to that point
      --both       both
      --all-files  also restore files the agent never touched (yours, changed since): by default
                   they are kept as they are, and listed
A checkpoint is named by its number in the list or by the start of its hash. Every file restore
first saves the files as they are as a "before restore" checkpoint, and prints how to go back.
Ignored files (.cairnignore, .gitignore) are never written or removed.`;

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
  try {
    return await checkpointsSubcommand(argv, io);
  } catch (error) {
    // A damaged store, a missing workspace, a busy lock: one line that says what to do.
    if (!(error instanceof CheckpointError)) throw error;
    io.stderr(`cairn: ${error.message.split("\n")[0]}\n`);
    return 1;
  }
}

async function checkpointsSubcommand(argv: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        workspace: { type: "boolean" },
        task: { type: "boolean" },
        both: { type: "boolean" },
        "all-files": { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
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
    if (values["all-files"] && values.task) throw new UsageError("--all-files is about files: use it with --workspace or --both.");
    // A restore writes the task's files and conversation: it is the task's one writer while it runs.
    try {
      store.lock();
    } catch (error) {
      if (error instanceof TaskInUseError) throw new UsageError(error.message);
      throw error;
    }
    const what = values.both ? "both" : values.task ? "conversation" : "files";
    const { messages } = store.loadConversation();
    let done: CheckpointRestore;
    try {
      // What every host's restore does, its restored event journaled so a host opening the task shows it.
      done = await restoreCheckpoint({
        store,
        checkpoints: what === "conversation" ? undefined : await openRepo(store, home),
        checkpoint: meta.checkpoints.indexOf(target) + 1,
        what,
        untouched: values["all-files"] ? "restore" : "keep",
        messages,
        cut: (kept) => store.replaceMessages(kept),
        publish: (event) => store.event(event),
      });
    } catch (error) {
      if (error instanceof SessionError) throw new UsageError(error.message);
      throw error;
    }
    if (values.json) {
      const { hash: _hash, ...shown } = done;
      io.stdout(`${JSON.stringify(shown)}\n`);
      return 0;
    }
    if (done.files) printFileRestore(io, meta.id, done.checkpoint, target.label, done.files);
    if (done.messagesKept !== undefined) {
      io.stdout(`Conversation cut back to checkpoint ${done.checkpoint} (${done.messagesKept} messages kept). Continue with: cairn resume ${meta.id} ["message"]\n`);
    }
    return 0;
  }

  const store = open(home, first);
  return listCheckpoints(store, home, values.json === true, io);
}

/**
 * The task's checkpoints. The list lives in the task; each one is shown only if the store still
 * holds it. A damaged store (a garbage HEAD, a broken ref, deleted or corrupt objects) does not hide
 * the ones it still holds: those are listed, and one line says which could not be read and what to
 * do. The exit code is 1 only when the task has checkpoints and none of them could be read.
 */
async function listCheckpoints(store: TaskStore, home: string, json: boolean, io: Io): Promise<number> {
  const records = store.metadata().checkpoints;
  if (records.length === 0) {
    io.stdout(json ? "[]\n" : "This task has no checkpoints.\n");
    return 0;
  }
  const health = await readableCheckpoints({ workspace: store.metadata().workspace, baseDir: path.join(home, "checkpoints") }, records.map((r) => r.hash));
  const numbered = records.map((record, i) => ({ number: i + 1, record, readable: health.readable.has(record.hash) }));
  if (json) io.stdout(`${JSON.stringify(numbered.map((n) => ({ ...n.record, readable: n.readable })))}\n`);
  else for (const { number, record } of numbered.filter((n) => n.readable)) io.stdout(`${String(number).padStart(3)}  ${record.hash.slice(0, 10)}  ${record.createdAt.slice(0, 19).replace("T", " ")}  ${record.label}\n`);
  const lost = numbered.filter((n) => !n.readable).map((n) => n.number);
  const problem = health.gone
    ? `None of the ${records.length} checkpoint${records.length === 1 ? "" : "s"} of this task can be read: the checkpoint store at ${health.gitDir} is gone (moved aside or deleted). The task's next step starts a new store.`
    : storeProblem(health.gitDir, lost, records.length, health.damage);
  if (problem) io.stderr(`cairn: ${problem}\n`);
  return lost.length === records.length ? 1 : 0;
}

/** The one line about what could not be read, and what to do; undefined when all is well. */
function storeProblem(gitDir: string, lost: number[], total: number, damage: string | undefined): string | undefined {
  if (lost.length === 0 && damage === undefined) return undefined;
  const store = `the checkpoint store at ${gitDir}`;
  const what =
    lost.length === 0
      ? `${capital(store)} is damaged (${damage}); the checkpoints above are what it still holds`
      : `${lost.length === total ? `None of the ${total} checkpoints could` : `${lost.length === 1 ? "Checkpoint" : "Checkpoints"} ${listed(lost)} could not`} be read from ${store} (${damage ? `the store is damaged: ${damage}` : "their data is missing or damaged"})`;
  const todo = damage
    ? `diff and restore need a working store: move ${gitDir} aside to start a new one (its checkpoints are then gone)`
    : `${lost.length === 1 ? "it cannot" : "they cannot"} be diffed or restored; the others listed can`;
  return `${what}; ${todo}.`;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function listed(numbers: number[]): string {
  return numbers.length <= 10 ? numbers.join(", ") : `${numbers.slice(0, 10).join(", ")} and ${numbers.length - 10} more`;
}

const shownFiles = 20;

const untouchedChange: Record<UntouchedFile["change"], [kept: string, restored: string]> = {
  remove: ["created after the checkpoint", "removed"],
  overwrite: ["changed after the checkpoint", "written back"],
  recreate: ["deleted after the checkpoint", "brought back"],
};

function printFileRestore(io: Io, taskId: string, number: number, label: string, outcome: TaskRestoreOutcome): void {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  io.stdout(`Files as they were saved as checkpoint ${outcome.beforeNumber} (before restore).\n`);
  io.stdout(`Files restored to checkpoint ${number} (${label}): ${outcome.restored} written back, ${outcome.removed} removed.\n`);
  const untouched = outcome.untouched;
  if (untouched.length > 0) {
    io.stdout(
      outcome.untouchedRestored
        ? `${plural(untouched.length, "file")} the agent never touched restored too:\n`
        : `Kept ${plural(untouched.length, "file")} the agent never touched (add --all-files to restore ${untouched.length === 1 ? "it" : "them"} too):\n`,
    );
    for (const file of untouched.slice(0, shownFiles)) {
      const [kept, restored] = untouchedChange[file.change];
      io.stdout(`  ${outcome.untouchedRestored ? restored.padEnd(12) : "kept".padEnd(12)} ${file.path}${outcome.untouchedRestored ? "" : ` (${kept})`}\n`);
    }
    if (untouched.length > shownFiles) io.stdout(`  … and ${untouched.length - shownFiles} more\n`);
  }
  if (outcome.leftAlone.length > 0) {
    const first = outcome.leftAlone.slice(0, 5).join(", ");
    io.stdout(`Left alone: ${plural(outcome.leftAlone.length, "path")} ignored or with unrecorded files in the way (${first}${outcome.leftAlone.length > 5 ? ", …" : ""}).\n`);
  }
  io.stdout(`To undo this restore: cairn checkpoints restore ${taskId} ${outcome.beforeNumber} --workspace\n`);
}

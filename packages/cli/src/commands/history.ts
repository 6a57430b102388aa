import { parseArgs } from "node:util";
// The store alone, not the agent: history, show and delete start in a fraction of the time.
import path from "node:path";
import { cairnHome, historyRows, listTasks, DamagedTaskError, removeFromHistoryIndex, shownStatus, TaskInUseError, TaskNotFoundError, TaskStore } from "@cairn/core/storage";
import type { Io } from "@cairn/host/io";
import { costText, statusWord } from "@cairn/host/task-status";
import { UsageError } from "@cairn/host/usage-error";
import { terminalText } from "../terminal-text.js";

function parse(argv: string[], options: Record<string, { type: "boolean" | "string" }>) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]}`);
  }
}

function openStore(home: string, id: string | undefined, command: string): TaskStore {
  if (!id) throw new UsageError(`Which task? cairn ${command} <id> (see cairn history).`);
  try {
    return TaskStore.open(home, id);
  } catch (error) {
    if (error instanceof TaskNotFoundError) throw new UsageError(error.message);
    throw error;
  }
}

/** The id of the task `id` names when its folder is there but its metadata.json is damaged. */
function damagedTask(home: string, id: string | undefined): string | undefined {
  if (!id) return undefined;
  try {
    TaskStore.open(home, id);
    return undefined;
  } catch (error) {
    return error instanceof DamagedTaskError ? error.id : undefined;
  }
}

/** `io` whose stdout lets no escape sequence through (--json output is JSON, which escapes them itself). */
function printed(io: Io): Io {
  return { ...io, stdout: (text) => io.stdout(terminalText(text)) };
}

const relation = { handoff: "handed over", subagent: "sub-agent" } as const;

/**
 * `cairn history [--all] [--cwd dir] [--json] [--limit n]`: the tasks of this workspace (the
 * folder, or --cwd, and those inside it), newest first, each task's sub-agents and hand-offs under
 * it; --all: every workspace's, each row naming its workspace. --json: the same entries, flat,
 * each with its depth under the task it came from.
 */
export function historyCommand(argv: string[], io: Io): number {
  const { values } = parse(argv, { json: { type: "boolean" }, limit: { type: "string" }, all: { type: "boolean" }, cwd: { type: "string" } });
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit needs a whole number above 0, got "${values.limit}".`);
  if (values.all && values.cwd !== undefined) throw new UsageError("--all lists every workspace; leave out --cwd, or --all to list one.");
  const workspace = path.resolve(typeof values.cwd === "string" ? values.cwd : process.cwd());
  const { entries, warnings } = listTasks(cairnHome(io.env), values.all ? {} : { workspace });
  for (const warning of warnings) io.stderr(`cairn: ${warning}\n`);
  const rows = historyRows(entries, limit).map(({ entry, depth }) => ({ ...entry, status: shownStatus(entry), depth }));
  if (values.json) {
    io.stdout(`${JSON.stringify(rows)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    io.stdout(values.all ? 'No tasks yet. Start one with: cairn run "describe the task"\n' : `No tasks in ${workspace} yet (cairn history --all lists every workspace's). Start one with: cairn run "describe the task"\n`);
    return 0;
  }
  // A title may be a model's words (a hand-off, a sub-agent's prompt): printed without its escapes.
  const out = printed(io);
  for (const e of rows) {
    const indent = "  ".repeat(e.depth);
    const from = e.depth > 0 && e.parent ? `${relation[e.parent.relation]} · ` : "";
    const cost = e.status === "running" ? "" : costText(e);
    out.stdout(
      `${indent}${e.id}  ${statusWord(e.status).padEnd(11)} ${e.updatedAt.slice(0, 16).replace("T", " ")}  ${e.turns} turn${e.turns === 1 ? "" : "s"}${cost ? ` · ${cost}` : ""}  ${from}${e.title}\n`,
    );
    if (values.all && e.depth === 0) out.stdout(`    ${e.workspace}\n`);
  }
  return 0;
}

/** `cairn show <id> [--json]`: a task's record: metadata, then what happened. */
export function showCommand(argv: string[], io: Io): number {
  const { values, positionals } = parse(argv, { json: { type: "boolean" } });
  const store = openStore(cairnHome(io.env), positionals[0], "show");
  const meta = store.metadata();
  const status = shownStatus(meta);
  const events = store.loadEvents();
  if (values.json) {
    io.stdout(`${JSON.stringify({ ...meta, status, events })}\n`);
    return 0;
  }
  // Titles, summaries, errors and results hold the model's and tools' words: printed without their escapes.
  io = printed(io);
  const cost = meta.totalCostUsd === null ? "unknown" : `$${meta.totalCostUsd.toFixed(4)}`;
  io.stdout(
    `${meta.id}: ${meta.title}\n  status ${statusWord(status)} · ${meta.mode} mode · ${meta.provider}/${meta.model} (${meta.protocol})\n  workspace ${meta.workspace}\n  ${meta.turns} turn${meta.turns === 1 ? "" : "s"} · ${meta.usage.input_tokens + meta.usage.cache_read_input_tokens + meta.usage.cache_creation_input_tokens} in / ${meta.usage.output_tokens} out tokens · cost ${cost}\n  created ${meta.createdAt} · updated ${meta.updatedAt}\n`,
  );
  if (meta.parent) io.stdout(`  ${meta.parent.relation === "handoff" ? "handed over from" : "sub-agent of"} ${meta.parent.id}\n`);
  for (const child of meta.children ?? []) io.stdout(`  ${child.relation === "handoff" ? "handed over to" : "sub-agent"} ${child.id}\n`);
  if (Array.isArray(meta.taskRules) && meta.taskRules.length > 0) io.stdout(`  allowed for this task: ${meta.taskRules.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join(", ")}\n`);
  // A journal can be damaged, or come from an imported file someone wrote by hand: an event without
  // the text it should carry is counted, not printed, and never stops the rest from showing.
  let unreadable = 0;
  for (const event of events) {
    if (event.type === "tool_call") {
      if (typeof event.summary === "string") io.stdout(`  → ${event.summary}\n`);
      else unreadable++;
    } else if (event.type === "tool_call_update" && "content" in event && event.status !== "completed") {
      if (typeof event.content === "string") io.stdout(`    ${event.status === "failed" ? "error" : "denied"}: ${event.content.split("\n")[0]}\n`);
      else unreadable++;
    } else if (event.type === "result") {
      if (typeof event.result === "string") io.stdout(`  ${event.subtype}: ${event.result.split("\n")[0]}\n`);
      else unreadable++;
    }
  }
  if (unreadable > 0) io.stdout(`  ${unreadable} event${unreadable === 1 ? "" : "s"} of its record could not be shown (malformed); cairn show ${meta.id} --json prints them as stored\n`);
  return 0;
}

/** `cairn delete <id>`: removes a task and its record. */
export function deleteCommand(argv: string[], io: Io): number {
  const { positionals } = parse(argv, {});
  const home = cairnHome(io.env);
  const damaged = damagedTask(home, positionals[0]);
  if (damaged) {
    // Its metadata cannot be read, so nothing says it is running: the folder goes as it is.
    TaskStore.removeFolder(home, damaged);
    removeFromHistoryIndex(home, damaged);
    io.stdout(`Deleted task ${damaged} (its metadata was damaged).\n`);
    return 0;
  }
  const store = openStore(home, positionals[0], "delete");
  const meta = store.metadata();
  // Never a task another live process has open (running it, or holding it in a TUI, page or editor).
  try {
    store.lock();
  } catch (error) {
    if (error instanceof TaskInUseError) throw new UsageError(error.message);
    throw error;
  }
  try {
    store.delete();
  } catch (error) {
    if (error instanceof TaskNotFoundError) throw new UsageError(error.message);
    throw error;
  }
  removeFromHistoryIndex(home, meta.id);
  io.stdout(`Deleted task ${meta.id}.\n`);
  return 0;
}

import path from "node:path";
import { builtinSlashCommands, listTasks, listWorkflows, previewTaskRestore, type CheckpointRecord, type Mode, type ProviderId, type Session, type SessionRunner } from "@cairn/core";
import type { SlashCommand } from "@cairn/host/completion";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";
import type { SessionView } from "./session-view.js";
import { modelPicks } from "./model-picks.js";
import { settingsSource } from "./settings-source.js";

export type { SlashCommand };

/**
 * What the commands need of the interactive session. SessionController has all of it; it is
 * named here, not imported, because the controller runs these commands (the two files would
 * import each other).
 */
export type SlashCommandSession = {
  readonly view: SessionView;
  readonly running: boolean;
  readonly home: string;
  readonly cwd: string;
  readonly io: { readonly env: Record<string, string | undefined> };
  /** The session's flags (and /model's choice): they win over settings.json while it lasts. */
  readonly args: RunArgs;
  readonly commands: readonly SlashCommand[];
  readonly opened: Session | undefined;
  readonly runner: SessionRunner;
  busy<T>(label: string, job: () => Promise<T>): Promise<T | undefined>;
  clear(): Promise<void>;
  exit(): Promise<void>;
  pickTask(title: string, entries: ReturnType<typeof listTasks>["entries"], offerNew: boolean, limit?: number, allWorkspaces?: boolean): Promise<void>;
  setMode(mode: Mode): void;
  toggleMode(): void;
  submit(raw: string): Promise<void>;
  switchModel(model: string): void;
};

/** The in-session commands, as /help and the completion list show them. */
export const slashCommands: readonly SlashCommand[] = [
  { name: "help", args: "", description: "keys and commands" },
  { name: "mode", args: "[act|plan]", description: "switch between Act and Plan (or Shift+Tab)" },
  { name: "model", args: "[id]", description: "pick a model of this provider, or switch to <id>" },
  { name: "checkpoints", args: "[diff|restore] [n]", description: "list, compare (diff <n> [m]) or restore checkpoints" },
  { name: "history", args: "[all]", description: "this workspace's recent tasks (all: every workspace's): pick one to resume" },
  { name: "settings", args: "", description: "auto-approve, model, sandbox, MCP servers, rules files" },
  { name: "compact", args: "[then…]", description: "summarise the conversation to free context" },
  { name: "newtask", args: "[notes]", description: builtinSlashCommands.newtask ?? "hand over to a fresh task" },
  { name: "newrule", args: "[what]", description: builtinSlashCommands.newrule ?? "write a rule file" },
  { name: "clear", args: "", description: "start over with a new, empty task (this one stays stored)" },
  { name: "exit", args: "", description: "leave (the task stays resumable)" },
];

/** The built-in commands and the workspace's workflows (.cairnrules/workflows/<name>.md), for completion. */
export function availableCommands(cwd: string, home: string): SlashCommand[] {
  // The same files, in the same order, as the task reads them (a built-in's name wins).
  const taken = new Set(slashCommands.map((c) => c.name));
  const workflows = listWorkflows(cwd, home)
    .filter((w) => !taken.has(w.name))
    .map((w) => ({ name: w.name, args: "[arguments]", description: w.description ?? `workflow (${path.relative(cwd, w.file) || w.file})` }));
  return [...slashCommands, ...workflows];
}

const keys = [
  "Enter            send",
  "Alt+Enter, \\⏎    new line (Shift+Enter too, where the terminal reports it)",
  "Shift+Tab        switch Plan / Act",
  "Esc or Ctrl-C    stop the turn; twice: leave",
  "Ctrl-O           show the full output of the last command or reasoning",
  "↑ / ↓            earlier messages",
  "@                complete a file path · / complete a command",
];

function checkpointLine(record: CheckpointRecord, index: number): string {
  return `${String(index + 1).padStart(3)}  ${record.hash.slice(0, 10)}  ${record.createdAt.slice(0, 19).replace("T", " ")}  ${record.label}`;
}

/**
 * Runs one slash command typed in the session. Returns false for commands the task itself handles
 * (/compact with instructions, /smol, /newtask, /newrule, workflows): they go to it as messages.
 */
export async function runSlashCommand(session: SlashCommandSession, line: string): Promise<boolean> {
  const [word = "", ...rest] = line.slice(1).trim().split(/\s+/);
  const name = word.toLowerCase();
  const { view } = session;
  const info = (title: string, lines: string[]) => view.add({ kind: "info", title, lines });
  const needsIdle = () => {
    if (!session.running) return false;
    view.setHint(`/${name} waits for the turn to end (or press Esc to stop it).`);
    return true;
  };

  switch (name) {
    case "help":
      info("Keys", keys);
      info(
        "Commands",
        session.commands.map((c) => `/${`${c.name} ${c.args}`.trim().padEnd(24)} ${c.description}`),
      );
      return true;
    case "mode": {
      const target = rest[0]?.toLowerCase();
      if (target !== undefined && target !== "act" && target !== "plan") info("Mode", ["Use /mode act or /mode plan."]);
      else if (target === undefined) session.toggleMode();
      else session.setMode(target);
      return true;
    }
    case "model": {
      if (needsIdle()) return true;
      // Without an id: a pick list of the models Cairn knows on this provider.
      const picks = rest[0] === undefined ? await modelPicks({ home: session.home, cwd: session.cwd, env: session.io.env, overrides: overridesOf(session.args), provider: view.status.provider as ProviderId, current: view.status.model }) : [];
      const id =
        rest[0] ??
        (await view.ask<string | undefined>(
          (resolve) => ({ kind: "choice", title: `Pick a model on ${view.status.provider} (or type /model <id>)`, options: picks, resolve }),
          undefined,
        ));
      if (!id || (rest[0] === undefined && id === view.status.model)) return true;
      try {
        session.switchModel(id);
      } catch (error) {
        view.add({ kind: "error", text: (error as Error).message });
      }
      return true;
    }
    case "checkpoints":
      await checkpoints(session, rest);
      return true;
    case "history": {
      if (needsIdle()) return true;
      // This workspace's tasks, as cairn history lists them; "/history all" every workspace's.
      const all = rest[0] === "all";
      const { entries } = listTasks(session.home, all ? {} : { workspace: session.cwd });
      if (entries.length === 0) info("History", [all ? "No stored tasks yet." : "No stored tasks in this workspace yet; /history all lists every workspace's."]);
      else await session.pickTask(all ? "Pick a task to resume (all workspaces)" : "Pick a task to resume", entries, false, 15, all);
      return true;
    }
    case "settings":
      // Not while a turn runs: its approvals would wait behind the screen, unseen.
      if (needsIdle()) return true;
      await view.ask<undefined>(
        (resolve) => ({ kind: "settings", source: settingsSource({ home: session.home, env: session.io.env, cwd: session.cwd, overrides: overridesOf(session.args) }), taskOpen: session.opened !== undefined, resolve }),
        undefined,
      );
      return true;
    case "compact": {
      // With instructions, the task compacts and goes on with them (the core's /compact).
      if (rest.length > 0) return false;
      if (needsIdle()) return true;
      const task = session.opened?.task;
      if (!task) info("Compact", ["There is no conversation to compact yet."]);
      else await session.busy("compacting", () => task.compact());
      return true;
    }
    case "newtask":
      if (session.opened) return false;
      if (rest.length > 0) await session.submit(rest.join(" "));
      else info("New task", ["Type the task below."]);
      return true;
    case "clear":
      if (needsIdle()) return true;
      await session.clear();
      view.add({ kind: "notice", level: "info", text: "Started over: the previous task stays stored (see /history). Type the new task." });
      return true;
    case "exit":
    case "quit":
      await session.exit();
      return true;
    default:
      return false;
  }
}

async function checkpoints(session: SlashCommandSession, args: string[]): Promise<void> {
  const { view } = session;
  const opened = session.opened;
  const info = (lines: string[]) => view.add({ kind: "info", title: "Checkpoints", lines });
  if (!opened) return info(["No task yet: checkpoints are made as the task changes files."]);
  const records = opened.store.metadata().checkpoints;
  const [sub, a, b] = args;
  if (sub === undefined || sub === "list") {
    if (records.length === 0) return info([opened.checkpoints ? "This task has no checkpoints yet." : "Checkpoints are off for this task."]);
    return info([...records.map(checkpointLine), "", "/checkpoints diff <n> [m] · /checkpoints restore <n>"]);
  }
  const pick = (ref: string | undefined): CheckpointRecord | undefined => {
    const found = ref !== undefined && /^\d+$/.test(ref) ? records[Number(ref) - 1] : records.find((r) => ref !== undefined && ref.length >= 4 && r.hash.startsWith(ref));
    if (!found) info([`No checkpoint "${ref ?? ""}": give its number from /checkpoints (there are ${records.length}).`]);
    return found;
  };
  const repo = opened.checkpoints;
  if (!repo) return info(["Checkpoints are off for this task."]);
  if (sub === "diff") {
    const from = pick(a);
    if (!from) return;
    const to = b === undefined ? undefined : pick(b);
    if (b !== undefined && !to) return;
    const diff = await session.busy("diff", () => repo.diff(from.hash, to?.hash));
    if (!diff) return;
    const target = to ? `checkpoint ${records.indexOf(to) + 1}` : "the files now";
    const files = diff.files.map((f) => `${f.status.padEnd(8)} ${f.path}${f.binary ? " (binary)" : ` +${f.additions} −${f.deletions}`}`);
    view.add({ kind: "info", title: `${diff.files.length} file${diff.files.length === 1 ? "" : "s"} changed from checkpoint ${records.indexOf(from) + 1} to ${target}`, lines: files });
    if (diff.patch) view.add({ kind: "patch", title: "diff", patch: diff.patch });
    return;
  }
  if (sub === "restore") {
    if (session.running) return view.setHint("Restore waits for the turn to end (or press Esc to stop it).");
    const target = pick(a);
    if (!target) return;
    const number = records.indexOf(target) + 1;
    const answer = await view.ask<string | undefined>(
      (resolve) => ({
        kind: "choice",
        title: `Restore checkpoint ${number} (${target.label})`,
        options: [
          { label: "Files and conversation", value: "both" },
          { label: "Files only", value: "files", hint: "new files removed, deleted files back" },
          { label: "Conversation only", value: "conversation", hint: `cut back to ${target.messageIndex} message${target.messageIndex === 1 ? "" : "s"}` },
          { label: "Cancel", value: "" },
        ],
        resolve,
      }),
      undefined,
    );
    if (answer !== "both" && answer !== "files" && answer !== "conversation") return;
    const what = answer;
    let untouched: "keep" | "restore" = "keep";
    if (what !== "conversation") {
      // Files the person changed and the agent never touched: listed, and kept unless they say otherwise.
      const preview = await session.busy("restore", () => previewTaskRestore(repo, records, target));
      if (!preview) return;
      if (preview.untouched.length > 0) {
        const verbs = { remove: "would be removed", overwrite: "would be overwritten", recreate: "would come back" } as const;
        const lines = preview.untouched.slice(0, 20).map((f) => `${f.path}  ${verbs[f.change]}`);
        if (preview.untouched.length > 20) lines.push(`… and ${preview.untouched.length - 20} more`);
        view.add({ kind: "info", title: `${preview.untouched.length} file${preview.untouched.length === 1 ? "" : "s"} the agent never touched since checkpoint ${number}`, lines });
        const keep = await view.ask<string | undefined>(
          (resolve) => ({
            kind: "choice",
            title: "Files the agent never touched (listed above)",
            options: [
              { label: "Keep them as they are", value: "keep", hint: "undo only the agent's changes" },
              { label: "Restore them too", value: "restore", hint: "recoverable from the 'before restore' checkpoint" },
              { label: "Cancel", value: "" },
            ],
            resolve,
          }),
          undefined,
        );
        if (keep !== "keep" && keep !== "restore") return;
        untouched = keep;
      }
    }
    // The runner restores (and says so with its restored event); what the files went through is told here.
    const done = await session.busy("restore", () => session.runner.restore(number, what, { untouched }));
    view.status.checkpoints = opened.store.metadata().checkpoints.length;
    const outcome = done?.files;
    if (!outcome) return;
    const kept = outcome.untouched.length > 0 && !outcome.untouchedRestored ? `; kept ${outcome.untouched.length} file${outcome.untouched.length === 1 ? "" : "s"} the agent never touched` : "";
    const leftAlone = outcome.leftAlone.length > 0 ? `; left ${outcome.leftAlone.length} ignored path${outcome.leftAlone.length === 1 ? "" : "s"} alone` : "";
    view.add({
      kind: "notice",
      level: "info",
      text: `Checkpoint ${number}'s files: ${outcome.restored} written back, ${outcome.removed} removed${kept}${leftAlone}. Undo: /checkpoints restore ${outcome.beforeNumber} (files only)`,
    });
    return;
  }
  info([`Unknown: /checkpoints ${sub}. Use /checkpoints, /checkpoints diff <n> [m] or /checkpoints restore <n>.`]);
}

import { closeSync, existsSync, openSync, readdirSync, readSync } from "node:fs";
import path from "node:path";
import { IgnoreRules } from "../policy/ignore-rules.js";
import { readPromptFile } from "./prompt-file.js";
import { parseFrontMatter } from "./rules/front-matter.js";
import { fillWorkflow } from "./workflow-arguments.js";

export type SlashCommand =
  /** Summarise the conversation now, then go on with `rest` (or carry on). */
  | { kind: "compact"; rest: string }
  /** Hand the essentials over to a fresh task; `rest` adds instructions for it. */
  | { kind: "newtask"; rest: string }
  /**
   * Not a command the core acts on: the message to send instead (a rule request, a workflow).
   * `notices`: workflow files of that name that were skipped, and why (one line each, for the person).
   */
  | { kind: "text"; text: string; notices?: string[] }
  /** Shaped like a command, but no command or workflow has the name: nothing is sent for it. */
  | { kind: "unknown"; name: string };

/** What the person is told for an unknown command, where there is no /help to point at. */
export function unknownCommandText(name: string): string {
  return `no workflow or command named /${name} (the commands are /${Object.keys(builtinSlashCommands).join(", /")}, and workflows are .cairnrules/workflows/<name>.md)`;
}

export const builtinSlashCommands: Record<string, string> = {
  compact: "summarise the conversation so far and continue (frees context)",
  smol: "same as /compact",
  newtask: "start a fresh task that carries over the essentials of this one",
  newrule: "write a rule file in .cairnrules/ from what you describe (or what this task taught)",
};

const commandPattern = /^\/([a-z][a-z0-9_-]*)(?:\s+([\s\S]*))?$/;

/** A workflow is read whole into the message, like a rules file: one bigger than this is a mistake. */
const MAX_WORKFLOW_BYTES = 1024 * 1024;

/** Workflow files: `.cairnrules/workflows/<name>.md` in the workspace, then CAIRN_HOME/workflows/<name>.md. */
export function findWorkflow(name: string, cwd: string, home: string | undefined): string | undefined {
  return workflowFiles(name, cwd, home).find((c) => existsSync(c.file))?.file;
}

function workflowFiles(name: string, cwd: string, home: string | undefined): Array<{ file: string; global: boolean }> {
  const candidates = [path.join(cwd, ".cairnrules", "workflows", `${name}.md`), path.join(cwd, ".clinerules", "workflows", `${name}.md`)].map((file) => ({ file, global: false }));
  if (home) candidates.push({ file: path.join(home, "workflows", `${name}.md`), global: true });
  return candidates;
}

/**
 * The first workflow of that name that may be read, as a path like any other (see readPromptFile):
 * a workspace one really inside the workspace and not ignored, a global one inside CAIRN_HOME. One
 * that may not is skipped with a notice, and the next of the name is tried.
 */
function readWorkflow(name: string, context: { cwd: string; home?: string; ignore?: IgnoreRules }): { text?: string; notices: string[] } {
  const notices: string[] = [];
  let ignore = context.ignore;
  for (const candidate of workflowFiles(name, context.cwd, context.home)) {
    if (!existsSync(candidate.file)) continue;
    ignore ??= new IgnoreRules(context.cwd);
    const read = readPromptFile(candidate.file, candidate.global ? { kind: "home", home: context.home! } : { kind: "project", root: context.cwd, ignore: [ignore] }, MAX_WORKFLOW_BYTES);
    if (read.ok) return { text: read.data.toString("utf8"), notices };
    notices.push(`The workflow ${shownPath(context.cwd, candidate.file)} was skipped: ${read.reason}.`);
  }
  return { notices };
}

function shownPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative.split(path.sep).join("/");
}

/**
 * A workflow's text without its YAML front matter (it is for listings, not for the model), and
 * its `description:` if it has one.
 */
export function workflowParts(raw: string): { body: string; description?: string } {
  const text = raw.replace(/^\uFEFF/, "");
  const { body } = parseFrontMatter(text);
  if (body === text) return { body };
  const front = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text)?.[1] ?? "";
  const value = /^description[ \t]*:[ \t]*(.*?)\s*$/m.exec(front)?.[1]?.trim().replace(/^(["'])(.*)\1$/, "$2");
  return value ? { body, description: value } : { body };
}

/** The description in a workflow file's front matter (its first few KB are enough), if any. */
function workflowDescription(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const head = Buffer.alloc(4096);
    const read = readSync(fd, head, 0, head.length, 0);
    return workflowParts(head.subarray(0, read).toString("utf8")).description;
  } catch {
    return undefined; // unreadable: listed by its name alone
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Every workflow a task here can run, by command name (the first file of a name wins, as in findWorkflow). */
export function listWorkflows(cwd: string, home: string | undefined): Array<{ name: string; file: string; description?: string }> {
  const dirs = [path.join(cwd, ".cairnrules", "workflows"), path.join(cwd, ".clinerules", "workflows")];
  if (home) dirs.push(path.join(home, "workflows"));
  const found = new Map<string, string>();
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // no such folder
    }
    for (const name of names.filter((n) => n.endsWith(".md")).sort()) {
      const command = name.slice(0, -3);
      if (commandPattern.test(`/${command}`) && !found.has(command)) found.set(command, path.join(dir, name));
    }
  }
  return [...found].map(([name, file]) => {
    const description = workflowDescription(file);
    return description ? { name, file, description } : { name, file };
  });
}

function newRuleText(description: string): string {
  return `Write a new rule file for this workspace in .cairnrules/ (create the folder if needed) with write_to_file, named after its topic (e.g. .cairnrules/testing.md).
Rules are short imperative instructions the agent must follow in future tasks here: one topic per file, a title line, then bullet points; no prose about this conversation.
${description ? `The rule should capture: ${description}` : "Capture what this task has taught about how work should be done in this project."}
When the file is written, finish with attempt_completion naming the file.`;
}

/**
 * Reads a leading slash command in the person's message. Anything else, including a path such as
 * "/etc/hosts is wrong", is left alone (undefined); a command-shaped word that names no command
 * or workflow is "unknown", so it is not sent to the model as if it were one. A workflow whose every file was skipped sends
 * the message as written, with the notices. `ignore`: the task's ignore rules (read afresh without).
 */
export function parseSlashCommand(message: string, context: { cwd: string; home?: string; ignore?: IgnoreRules }): SlashCommand | undefined {
  const match = commandPattern.exec(message.trim());
  if (!match) return undefined;
  const name = match[1]!;
  const rest = (match[2] ?? "").trim();
  if (name === "compact" || name === "smol") return { kind: "compact", rest };
  if (name === "newtask") return { kind: "newtask", rest };
  if (name === "newrule") return { kind: "text", text: newRuleText(rest) };
  const workflow = readWorkflow(name, context);
  const notices = workflow.notices.length > 0 ? { notices: workflow.notices } : {};
  if (workflow.text !== undefined) return { kind: "text", text: fillWorkflow(workflowParts(workflow.text).body.trim(), rest), ...notices };
  if (workflow.notices.length > 0) return { kind: "text", text: message.trim(), ...notices };
  return { kind: "unknown", name };
}

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fillWorkflow } from "./workflow-arguments.js";

export type SlashCommand =
  /** Summarise the conversation now, then go on with `rest` (or carry on). */
  | { kind: "compact"; rest: string }
  /** Hand the essentials over to a fresh task; `rest` adds instructions for it. */
  | { kind: "newtask"; rest: string }
  /** Not a command the core acts on: the message to send instead (a rule request, a workflow). */
  | { kind: "text"; text: string };

export const builtinSlashCommands: Record<string, string> = {
  compact: "summarise the conversation so far and continue (frees context)",
  smol: "same as /compact",
  newtask: "start a fresh task that carries over the essentials of this one",
  newrule: "write a rule file in .cairnrules/ from what you describe (or what this task taught)",
};

const commandPattern = /^\/([a-z][a-z0-9_-]*)(?:\s+([\s\S]*))?$/;

/** Workflow files: `.cairnrules/workflows/<name>.md` in the workspace, then CAIRN_HOME/workflows/<name>.md. */
export function findWorkflow(name: string, cwd: string, home: string | undefined): string | undefined {
  const candidates = [path.join(cwd, ".cairnrules", "workflows", `${name}.md`), path.join(cwd, ".clinerules", "workflows", `${name}.md`)];
  if (home) candidates.push(path.join(home, "workflows", `${name}.md`));
  return candidates.find((file) => existsSync(file));
}

/** Every workflow a task here can run, by command name (the first file of a name wins, as in findWorkflow). */
export function listWorkflows(cwd: string, home: string | undefined): Array<{ name: string; file: string }> {
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
  return [...found].map(([name, file]) => ({ name, file }));
}

function newRuleText(description: string): string {
  return `Write a new rule file for this workspace in .cairnrules/ (create the folder if needed) with write_to_file, named after its topic (e.g. .cairnrules/testing.md).
Rules are short imperative instructions the agent must follow in future tasks here: one topic per file, a title line, then bullet points; no prose about this conversation.
${description ? `The rule should capture: ${description}` : "Capture what this task has taught about how work should be done in this project."}
When the file is written, finish with attempt_completion naming the file.`;
}

/**
 * Reads a leading slash command in the person's message. Anything else, including a path such as
 * "/etc/hosts is wrong", is left alone (undefined).
 */
export function parseSlashCommand(message: string, context: { cwd: string; home?: string }): SlashCommand | undefined {
  const match = commandPattern.exec(message.trim());
  if (!match) return undefined;
  const name = match[1]!;
  const rest = (match[2] ?? "").trim();
  if (name === "compact" || name === "smol") return { kind: "compact", rest };
  if (name === "newtask") return { kind: "newtask", rest };
  if (name === "newrule") return { kind: "text", text: newRuleText(rest) };
  const workflow = findWorkflow(name, context.cwd, context.home);
  if (!workflow) return undefined;
  return { kind: "text", text: fillWorkflow(readFileSync(workflow, "utf8").trim(), rest) };
}

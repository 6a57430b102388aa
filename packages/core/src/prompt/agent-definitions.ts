import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { IgnoreRules } from "../policy/ignore-rules.js";
import { isTrusted, trustRecord, workspaceKey } from "../trust/trust-store.js";
import type { UntrustedConfig } from "../trust/untrusted.js";
import { readPromptFile, type PromptFileScope } from "./prompt-file.js";

/**
 * An agent definition in Claude Code's format: a markdown file whose YAML front matter gives
 * `name`, `description`, `tools` (a comma list or a YAML list; absent: the read-only default) and
 * `model` (absent or "inherit": the parent's), and whose body is the sub-agent's instructions.
 */
export type AgentDefinition = {
  name: string;
  description: string;
  /** Tool names as written (Claude Code's "Read, Grep" or Cairn's "read_file"); see subagentTools. */
  tools?: string[];
  model?: string;
  instructions: string;
  file: string;
};

export type LoadedAgentDefinitions = {
  agents: AgentDefinition[];
  /** Files that could not be read as a definition, one line each. */
  problems: string[];
  /** The workspace's .cairn/agents, skipped because its content is not trusted. */
  untrusted?: UntrustedConfig;
};

/** A definition is read whole into a sub-agent's prompt: one bigger than this is a mistake. */
const MAX_DEFINITION_BYTES = 256 * 1024;

/** Where a workspace keeps its own agent definitions. */
export const projectAgentsDir = (workspace: string): string => path.join(workspace, ".cairn", "agents");

/**
 * The person's definitions (CAIRN_HOME/agents), then the workspace's (.cairn/agents) only when
 * the person trusted exactly their content: a definition steers what a sub-agent does and which
 * tools it gets, so a cloned repository must not bring its own unseen. A workspace definition with
 * the name of a personal one replaces it, as in Claude Code.
 *
 * Each file is a path like any other (see readPromptFile): the person's must really be inside
 * CAIRN_HOME, the workspace's inside the workspace and not ignored; a link elsewhere is skipped,
 * with a problem line saying why.
 */
export function loadAgentDefinitions(options: { home: string; cwd: string }): LoadedAgentDefinitions {
  const problems: string[] = [];
  const byName = new Map<string, AgentDefinition>();
  for (const agent of readFolder(path.join(options.home, "agents"), { kind: "home", home: options.home }, problems)) byName.set(agent.name, agent);
  const project = projectAgentsConfig(options.cwd);
  let untrusted: UntrustedConfig | undefined;
  if (project && path.resolve(project.dir) !== path.resolve(options.home, "agents")) {
    if (isTrusted(options.home, project.workspace, project.dir, project.digest)) {
      for (const agent of readFolder(project.dir, projectScope(project.workspace), problems)) byName.set(agent.name, agent);
    } else {
      untrusted = { file: project.dir, workspace: project.workspace, what: "agent definitions", changed: trustRecord(options.home, project.workspace, project.dir) !== undefined };
    }
  }
  return { agents: [...byName.values()], problems, ...(untrusted ? { untrusted } : {}) };
}

/** The workspace's agent definitions as trust sees them: the folder, one line per definition, and a digest of every file's name and text. */
export function projectAgentsConfig(cwd: string): { workspace: string; dir: string; items: string[]; digest: string } | undefined {
  const workspace = workspaceKey(cwd);
  const dir = projectAgentsDir(workspace);
  const files = markdownFiles(dir);
  if (files.length === 0) return undefined;
  const hash = createHash("sha256");
  const items: string[] = [];
  const scope = projectScope(workspace);
  for (const file of files) {
    const read = readDefinition(file, scope);
    if (!read.ok) {
      // Trusted as skipped: a link made to lead inside later is a change the person sees again.
      hash.update(`${path.basename(file)}\0skipped\0`);
      items.push(`${path.basename(file)}: skipped, ${read.reason}`);
      continue;
    }
    const text = read.text;
    hash.update(`${path.basename(file)}\0${text}\0`);
    const parsed = parseDefinition(file, text);
    items.push("agent" in parsed ? `${parsed.agent.name}: tools ${parsed.agent.tools?.join(", ") ?? "read-only default"}${parsed.agent.model ? `, model ${parsed.agent.model}` : ""}` : `${path.basename(file)}: ${parsed.problem}`);
  }
  return { workspace, dir, items, digest: hash.digest("hex") };
}

function projectScope(workspace: string): PromptFileScope {
  return { kind: "project", root: workspace, ignore: [new IgnoreRules(workspace)] };
}

function readFolder(dir: string, scope: PromptFileScope, problems: string[]): AgentDefinition[] {
  return markdownFiles(dir).flatMap((file) => {
    const read = readDefinition(file, scope);
    if (!read.ok) {
      problems.push(`agent definition ${file} skipped: ${read.reason}.`);
      return [];
    }
    const parsed = parseDefinition(file, read.text);
    if ("agent" in parsed) return [parsed.agent];
    problems.push(`agent definition ${file} skipped: ${parsed.problem}`);
    return [];
  });
}

function markdownFiles(dir: string): string[] {
  try {
    // Links too: readDefinition judges where they lead (inside, they are read; elsewhere, skipped and said).
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith(".md"))
      .map((e) => path.join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

function readDefinition(file: string, scope: PromptFileScope): { ok: true; text: string } | { ok: false; reason: string } {
  const read = readPromptFile(file, scope, MAX_DEFINITION_BYTES);
  return read.ok ? { ok: true, text: read.data.toString("utf8") } : read;
}

/** One definition file: front matter between `---` lines, then the instructions. */
export function parseDefinition(file: string, text: string): { agent: AgentDefinition } | { problem: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return { problem: "it has no front matter (--- name: … description: … ---)" };
  const fields = parseFrontMatter(match[1]!);
  const name = typeof fields.name === "string" ? fields.name.trim() : "";
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(name)) return { problem: `"name" must be letters, digits, '-' or '_' (got "${name}")` };
  const description = typeof fields.description === "string" ? fields.description.trim() : "";
  if (!description) return { problem: `"description" is missing` };
  const tools = fields.tools === undefined ? undefined : (Array.isArray(fields.tools) ? fields.tools : fields.tools.split(",")).map((t) => t.trim()).filter((t) => t !== "");
  const model = typeof fields.model === "string" && fields.model.trim() !== "" && fields.model.trim() !== "inherit" ? fields.model.trim() : undefined;
  return { agent: { name, description, ...(tools ? { tools } : {}), ...(model ? { model } : {}), instructions: match[2]!.trim(), file } };
}

/** The flat YAML agent definitions use: `key: value`, quoted values, `[a, b]` and `- item` lists. */
function parseFrontMatter(text: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  let listKey: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const item = /^\s+-\s+(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey) {
      (fields[listKey] as string[]).push(unquote(item[1]!));
      continue;
    }
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!pair) continue;
    const [, key, raw] = pair as unknown as [string, string, string];
    listKey = undefined;
    const value = raw.trim();
    if (value === "") {
      fields[key] = [];
      listKey = key;
    } else if (value.startsWith("[") && value.endsWith("]")) {
      fields[key] = value.slice(1, -1).split(",").map(unquote).filter((v) => v !== "");
    } else {
      fields[key] = unquote(value);
    }
  }
  return fields;
}

function unquote(text: string): string {
  const t = text.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) return t.slice(1, -1);
  return t;
}

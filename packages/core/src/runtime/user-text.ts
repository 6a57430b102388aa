import type { AgentEvent } from "../events/index.js";
import type { ImagePart, Message } from "../model/types.js";
import type { IgnoreRules } from "../policy/ignore-rules.js";
import type { LanguageServers } from "../lsp/index.js";
import type { CommandSandbox } from "../sandbox/index.js";
import { workspaceAbsolute } from "../policy/workspace.js";
import { initialEnvironment } from "../prompt/environment.js";
import { expandMentions, lastCommandOutput } from "../prompt/mentions/index.js";
import type { Terminal } from "../terminal/index.js";
import { listFilesTool } from "../tools/list-files.js";
import type { Mode } from "../tools/tool.js";

/** What turning the person's words into the model's message needs from the task. */
export type UserTextContext = {
  cwd: string;
  mode: Mode;
  messages: readonly Message[];
  signal: AbortSignal;
  ignore: IgnoreRules;
  scratchDir: string;
  terminal: Terminal;
  /** Add the workspace listing to the first message. */
  environmentDetails: boolean;
  /** Expand @-mentions. */
  mentions: boolean;
  modelSupportsImages: boolean;
  problemsCommand: string | undefined;
  /** The task's command sandbox, where @problems runs its checker. */
  sandbox: CommandSandbox | undefined;
  /** Paths the person mentions are added here, for rules that apply only to some files. */
  activePaths: Set<string>;
  /** The task's language servers, which @problems asks when no checker is configured. */
  languageServers?: LanguageServers | undefined;
  emit: (event: AgentEvent) => void;
};

/**
 * The person's words as the model reads them: @-mentions expanded (files, folders, URLs, git,
 * @problems, @terminal) and, on the task's first message, a first look at the workspace. Kept
 * apart from the loop because it is all about the prompt and nothing about the turn.
 */
export async function userText(text: string, ctx: UserTextContext): Promise<{ text: string; images: ImagePart[] }> {
  const first = ctx.messages.length === 0 && ctx.environmentDetails;
  const expanded = ctx.mentions ? await mentionsExpanded(text, ctx) : { text, images: [] };
  if (!first) return expanded;
  return { ...expanded, text: `${expanded.text}\n\n${initialEnvironment({ cwd: ctx.cwd, now: new Date(), mode: ctx.mode, listing: await firstLook(ctx) })}` };
}

/** The top of the workspace listing, as list_files shows it (ignore-aware, capped). */
async function firstLook(ctx: UserTextContext): Promise<string> {
  const listed = await listFilesTool.execute(
    { path: ".", recursive: true },
    {
      cwd: ctx.cwd,
      signal: ctx.signal,
      resolvePath: (p) => workspaceAbsolute(ctx.cwd, p),
      emitOutput: () => {},
      ignore: ctx.ignore,
      scratchDir: ctx.scratchDir,
      modelSupportsImages: false,
      terminal: ctx.terminal,
    },
  );
  const text = typeof listed.content === "string" ? listed.content : "";
  const lines = text.split("\n");
  return lines.length > 120 ? `${lines.slice(0, 120).join("\n")}\n[... more entries; use list_files]` : text;
}

async function mentionsExpanded(text: string, ctx: UserTextContext): Promise<{ text: string; images: ImagePart[] }> {
  const expanded = await expandMentions(text, {
    cwd: ctx.cwd,
    ignore: ctx.ignore,
    signal: ctx.signal,
    modelSupportsImages: ctx.modelSupportsImages,
    latestTerminalOutput: () => lastCommandOutput(ctx.messages),
    ...(ctx.problemsCommand ? { problemsCommand: ctx.problemsCommand } : {}),
    ...(ctx.sandbox ? { sandbox: ctx.sandbox } : {}),
    ...(ctx.languageServers ? { languageServers: ctx.languageServers } : {}),
  });
  for (const path of expanded.mentioned) ctx.activePaths.add(path);
  for (const note of expanded.notes) ctx.emit({ type: "system", subtype: "notice", level: "warning", message: note });
  return { text: expanded.text, images: expanded.images };
}

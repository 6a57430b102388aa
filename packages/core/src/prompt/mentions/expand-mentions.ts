import type { ImagePart } from "../../model/types.js";
import type { IgnoreRules } from "../../policy/ignore-rules.js";
import type { LanguageServers } from "../../lsp/index.js";
import type { CommandSandbox } from "../../sandbox/index.js";
import { findMentions, type Mention } from "./find-mentions.js";
import { expandCommit, expandGitChanges } from "./git-mention.js";
import { defaultMentionLimits, type Expansion, type MentionLimits } from "./limits.js";
import { expandPath } from "./path-mention.js";
import { expandProblems, expandServerProblems, expandTerminal } from "./problems-mention.js";
import { expandUrl } from "./url-mention.js";

export type MentionContext = {
  /** The workspace (real path). */
  cwd: string;
  ignore: IgnoreRules;
  signal?: AbortSignal;
  /** The latest command output the host has, for @terminal. */
  latestTerminalOutput?: () => string | undefined;
  /** The checker for @problems (settings.json `problemsCommand`), e.g. "npx tsc --noEmit -p .". */
  problemsCommand?: string;
  /** The task's command sandbox: @problems runs its checker there. */
  sandbox?: CommandSandbox;
  /** The task's language servers: @problems asks them when no checker is configured. */
  languageServers?: LanguageServers;
  /** Overrides of the size and time caps. */
  limits?: Partial<MentionLimits>;
  /** The model takes images: an image mention becomes a picture in the message (else it is refused). */
  modelSupportsImages?: boolean;
};

export type ExpandedMentions = {
  /** The person's text, unchanged, followed by one block per mention. */
  text: string;
  /** Workspace-relative paths the mentions brought into play (folders end in "/"), for rules' `paths:`. */
  mentioned: string[];
  /** What the person should know: mentions not expanded and why, content that was cut. */
  notes: string[];
  /** Pictures mentioned (@/shot.png), to send with the text. */
  images: ImagePart[];
};

/**
 * Expands the @-mentions in a person's message (see find-mentions.ts for the forms). The
 * person's words stay first and intact; each mention adds one block after them, in the order
 * they were written. Mentions expand concurrently; aborting the signal rejects with its reason.
 */
export async function expandMentions(text: string, ctx: MentionContext): Promise<ExpandedMentions> {
  const mentions = findMentions(text);
  if (mentions.length === 0) return { text, mentioned: [], notes: [], images: [] };
  const limits = { ...defaultMentionLimits, ...ctx.limits };
  const expansions = await Promise.all(mentions.map((mention) => expandOne(mention, ctx, limits)));
  const blocks = expansions.flatMap((e) => (e.block === undefined ? [] : [e.block]));
  return {
    text: blocks.length === 0 ? text : `${text}\n\n${blocks.join("\n\n")}`,
    mentioned: [...new Set(expansions.flatMap((e) => e.mentioned ?? []))],
    notes: expansions.flatMap((e) => e.notes),
    images: expansions.flatMap((e) => e.images ?? []),
  };
}

function expandOne(mention: Mention, ctx: MentionContext, limits: MentionLimits): Promise<Expansion> {
  const git = { cwd: ctx.cwd, ignore: ctx.ignore, limits, ...(ctx.signal ? { signal: ctx.signal } : {}) };
  switch (mention.kind) {
    case "path":
      return expandPath(mention.raw, mention.path, { cwd: ctx.cwd, ignore: ctx.ignore, limits, images: ctx.modelSupportsImages === true });
    case "url":
      return expandUrl(mention.raw, mention.url, limits, ctx.signal);
    case "git-changes":
      return expandGitChanges(mention.raw, git);
    case "commit":
      return expandCommit(mention.raw, mention.hash, git);
    case "terminal":
      return Promise.resolve(expandTerminal(mention.raw, ctx.latestTerminalOutput, limits));
    case "problems":
      if ((ctx.problemsCommand === undefined || ctx.problemsCommand.trim() === "") && ctx.languageServers?.enabled) {
        return expandServerProblems(mention.raw, ctx.languageServers, ctx.cwd, ctx.ignore, ctx.signal);
      }
      return expandProblems(mention.raw, ctx.problemsCommand, ctx.cwd, limits, ctx.signal, ctx.sandbox);
  }
}

import type { McpHub } from "../mcp/index.js";
import type { IgnoreRules } from "../policy/ignore-rules.js";
import { environmentKey, environmentLine, type EnvironmentSnapshot } from "../prompt/environment.js";
import { loadRules } from "../prompt/rules/index.js";
import { loadSkills, type LoadedSkills } from "../prompt/skills/index.js";
import { buildSystemPrompt } from "../prompt/system-prompt.js";
import type { ProtocolName } from "../protocol/types.js";
import type { CommandSandbox } from "../sandbox/index.js";
import type { Terminal } from "../terminal/index.js";
import type { AnyTool, Mode } from "../tools/tool.js";
import type { FocusChain } from "./focus-chain.js";

/**
 * What the model reads besides the conversation, as this task assembles it from prompt/: the
 * system prompt of each turn (rules of the paths in play, MCP servers, the sandbox, the checklist)
 * and the notes that go with a step's results (time, mode, context, background output, the
 * checklist). The loop says when; this says what.
 */
export class TaskPrompt {
  constructor(
    private readonly parts: {
      cwd: string;
      /** CAIRN_HOME: with it, rules and memory files go into the system prompt. */
      home: string | undefined;
      /** Rules files the person switched off (settings' rulesOff). */
      rulesOff?: readonly string[];
      /** Replaces the built system prompt entirely. */
      replacement: string | undefined;
      customInstructions: string | undefined;
      mcp: McpHub | undefined;
      /** The sandbox local commands run in (none when the host runs them). */
      sandbox: CommandSandbox | undefined;
      taskProgress: boolean;
      environmentDetails: boolean;
      /** Paths mentioned or touched so far, for rules that apply only to some files. */
      activePaths: ReadonlySet<string>;
      /** The task's ignore rules: a rules file they block is not read into the prompt. */
      ignore: IgnoreRules;
    },
  ) {}

  /** Skipped rules files already told to the person, so each is said once per task. */
  private readonly toldSkips = new Set<string>();

  /** The task's skills, found once when first needed: the catalog stays the same for the task's every request. */
  private loadedSkills: LoadedSkills | undefined;

  private skills(): LoadedSkills | undefined {
    const p = this.parts;
    if (p.replacement || !p.home) return undefined;
    return (this.loadedSkills ??= loadSkills({ cwd: p.cwd, home: p.home, ignore: p.ignore }));
  }

  /** The real folders of the skills the catalog lists: reads inside them need no approval (see gatherFacts). */
  skillFolders(): string[] {
    return this.skills()?.listed.flatMap((s) => (s.freeReads ? [s.folder] : [])) ?? [];
  }

  /**
   * The catalog, and where commands run in a sandbox (which hides CAIRN_HOME), how to use a global
   * skill's scripts: the model would otherwise run a path its commands cannot see.
   */
  private skillCatalog(): string | undefined {
    const skills = this.skills();
    if (!skills?.catalog) return undefined;
    if (!this.parts.sandbox || !skills.listed.some((s) => s.scope === "global")) return skills.catalog;
    return `${skills.catalog}\n\nCommands run in a sandbox that hides CAIRN_HOME: a global skill's scripts cannot run from its folder. To use one, read it and write a copy into the workspace (an ordinary edit), then run the copy.`;
  }

  system(protocol: ProtocolName, tools: AnyTool[], mode: Mode): string {
    const p = this.parts;
    if (p.replacement) return p.replacement;
    const rules = p.home ? loadRules({ cwd: p.cwd, home: p.home, activePaths: [...p.activePaths], ignore: p.ignore, off: p.rulesOff ?? [] }).text : undefined;
    const skills = this.skillCatalog();
    return buildSystemPrompt({
      cwd: p.cwd,
      mode,
      protocol,
      tools,
      ...(p.customInstructions ? { customInstructions: p.customInstructions } : {}),
      ...(rules ? { rules } : {}),
      ...(skills ? { skills } : {}),
      ...(p.mcp ? { mcp: p.mcp.promptSection() } : {}),
      ...(p.sandbox ? { sandbox: p.sandbox.promptLine() } : {}),
      ...(p.taskProgress ? { taskProgress: true } : {}),
    });
  }

  /**
   * One line per rules file or skill the prompt leaves out (a link outside the workspace or
   * CAIRN_HOME, an ignored file, a skill's bad name or front matter, ...) not yet told this task:
   * the task goes on without it.
   */
  skippedRules(): string[] {
    const p = this.parts;
    if (p.replacement || !p.home) return [];
    const lines = loadRules({ cwd: p.cwd, home: p.home, activePaths: [...p.activePaths], ignore: p.ignore, off: p.rulesOff ?? [] }).skipped.map((s) => `The rules file ${s.source} was skipped: ${s.reason}.`);
    const skills = this.skills();
    if (skills) {
      lines.push(...skills.skipped.map((s) => `The skill ${s.source} was skipped: ${s.reason}.`));
      const left = skills.skills.length - skills.listed.length;
      if (left > 0) lines.push(`${left} skill${left === 1 ? " is" : "s are"} left out of the model's list of skills (it is capped in size; nearest the workspace first): ${skills.skills.slice(skills.listed.length).map((s) => s.name).join(", ")}. See cairn skills.`);
    }
    const fresh = lines.filter((line) => !this.toldSkips.has(line));
    for (const line of fresh) this.toldSkips.add(line);
    return fresh;
  }

  /** The environment line's key (environmentKey) as the model last saw it; undefined: not since this task object, a compaction or a restore. */
  private shownEnvironment: string | undefined;

  /** What the model learns with a step's results besides them: `outside` changes, time/mode/context when changed, background output, the checklist. */
  stepNotes(outside: string | undefined, now: NotesNow): string[] {
    const notes: string[] = [];
    if (outside) notes.push(outside);
    const environment = this.environmentNote(now);
    if (environment) notes.push(environment);
    const background = now.terminal.updates();
    if (background) notes.push(background);
    notes.push(...now.focus.notes());
    return notes;
  }

  /**
   * What a run's opening message adds on a conversation that has begun (a resumed task, the person's
   * next message): the environment and the checklist where the model has not seen them as they are.
   */
  openingNotes(now: Omit<NotesNow, "terminal">): string[] {
    const environment = this.environmentNote(now);
    return [...(environment ? [environment] : []), ...now.focus.unseenList()];
  }

  /**
   * The conversation was compacted or restored: what it showed may be gone, so the environment and the
   * checklist are shown again, now, and the notes that follow count from there.
   */
  reshowNotes(now: Omit<NotesNow, "terminal">): string[] {
    this.forgetShown(now.focus);
    return this.openingNotes(now);
  }

  /** What the model was shown may be gone: the next notes carry the environment and the checklist. */
  forgetShown(focus: FocusChain): void {
    this.shownEnvironment = undefined;
    focus.forgetShown();
  }

  /** The first message's environment details told the time and the mode. */
  environmentShown(now: Omit<NotesNow, "terminal" | "focus">): void {
    if (this.parts.environmentDetails) this.shownEnvironment = environmentKey(snapshot(now));
  }

  private environmentNote(now: Omit<NotesNow, "terminal" | "focus">): string | undefined {
    if (!this.parts.environmentDetails) return undefined;
    const env = snapshot(now);
    const key = environmentKey(env);
    if (key === this.shownEnvironment) return undefined;
    this.shownEnvironment = key;
    return environmentLine(env);
  }
}

type NotesNow = { mode: Mode; contextTokens: number; contextWindow: number; terminal: Terminal; focus: FocusChain };

const snapshot = (now: { mode: Mode; contextTokens: number; contextWindow: number }): EnvironmentSnapshot => ({ now: new Date(), mode: now.mode, contextTokens: now.contextTokens, contextWindow: now.contextWindow });

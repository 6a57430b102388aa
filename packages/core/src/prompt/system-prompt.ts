import os from "node:os";
import type { ProtocolName } from "../protocol/types.js";
import { xmlToolSection } from "../protocol/xml/xml-protocol.js";
import { taskProgressRule } from "./focus-chain-text.js";
import { isBriefForm } from "../tools/brief-tools.js";
import type { Mode } from "../policy/mode.js";
import type { AnyTool } from "../tools/tool.js";

export type SystemPromptInput = {
  cwd: string;
  mode: Mode;
  protocol: ProtocolName;
  tools: readonly AnyTool[];
  /** Extra instructions from the person or the host (appended last). */
  customInstructions?: string;
  /** The rules and memory files that apply (see loadRules), already formatted. */
  rules?: string;
  /** The catalog of Agent Skills (see loadSkills): names, descriptions and SKILL.md paths, never bodies; absent without skills. */
  skills?: string;
  /** The MCP servers available, briefly (McpHub.promptSection). */
  mcp?: string;
  /** What the OS sandbox lets commands do, in one line (CommandSandbox.promptLine); absent without a sandbox. */
  sandbox?: string;
  /** The focus chain is on: the rules say what task_progress is. */
  taskProgress?: boolean;
  system?: { platform: string; shell: string; home: string };
};

export function systemInfo(): { platform: string; shell: string; home: string } {
  return { platform: `${os.type()} ${os.release()} (${process.platform})`, shell: process.env.SHELL ?? "/bin/sh", home: os.homedir() };
}

const modeText: Record<Mode, string> = {
  act: "You are in ACT mode: carry the task out with the tools, step by step. When it is done, call attempt_completion with a short, final summary of what you did.",
  plan: "You are in PLAN mode: explore with the read-only tools, then present your plan with plan_mode_respond and wait for the person to approve it. Tools that change files or run commands are not available in this mode.",
};

/**
 * The system prompt: who the agent is, how to use tools (xml only; native tools travel as schemas),
 * the rules that keep work safe and cheap, the machine, and the mode.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const sys = input.system ?? systemInfo();
  const rules = [
    `The workspace is ${input.cwd}. Give paths relative to it. Paths outside it need the person's approval and may be denied.`,
    input.sandbox,
    "Read a file before you edit it, unless you create it. Write complete file contents; never leave placeholders.",
    "Don't ask what a tool can tell you; ask only when the task is truly ambiguous.",
    "When a tool fails or is denied, read why and adapt; don't repeat the same call.",
    "Be brief in prose. Don't end with questions or offers of more help.",
    input.taskProgress ? taskProgressRule : undefined,
    input.tools.some(isBriefForm) ? "A tool described in one line gets its full description once you call it: call it directly." : undefined,
  ];
  const sections = [
    "You are Cairn, an expert software engineer working as an autonomous coding agent in the person's workspace. Complete the task with tools, one step at a time, checking each result before the next step.",
    input.protocol === "xml" ? xmlToolSection(input.tools) : "",
    `# Rules\n\n${rules.filter((r) => r !== undefined && r !== "").map((r) => `- ${r}`).join("\n")}`,
    `# System\n\nOS: ${sys.platform}\nShell: ${sys.shell}\nHome: ${sys.home}`,
    `# Mode\n\n${modeText[input.mode]}`,
    input.mcp ? input.mcp.trim() : "",
    input.skills ? input.skills.trim() : "",
    input.rules ? input.rules.trim() : "",
    input.customInstructions ? `# Instructions from the person\n\n${input.customInstructions.trim()}` : "",
  ];
  return sections.filter((s) => s !== "").join("\n\n");
}

/** The reminder sent when a reply used no tool. */
export function noToolNudge(protocol: ProtocolName): string {
  const how =
    protocol === "xml"
      ? "Tool calls are XML blocks, for example:\n<attempt_completion>\n<result>What was done.</result>\n</attempt_completion>"
      : "Call one of the provided tools.";
  return `[ERROR] You did not use a tool in your previous reply. Every reply must use a tool. If the task is done, use attempt_completion; if you need the person, use ask_followup_question. ${how}`;
}

export const continueAfterOutputLimit =
  "[Your reply was cut off by the output token limit. Continue exactly where you stopped, mid-word if need be: no preamble, no repetition.]";

import { describe, expect, it } from "vitest";
import { nativeProtocol, nativeProtocolWith } from "../protocol/native.js";
import { CommandSandbox } from "../sandbox/index.js";
import { xmlToolSection } from "../protocol/xml/xml-protocol.js";
import { offeredTools } from "../tools/brief-tools.js";
import { newTaskTool } from "../tools/new-task.js";
import { allTools } from "../tools/registry.js";
import { useSubagentsTool } from "../tools/use-subagents.js";
import { skillCatalog, type Skill } from "./skills/index.js";
import { buildSystemPrompt } from "./system-prompt.js";

/** The tools a session gives a task, in its order (session/open-session.ts), with one agent definition. */
const sessionTools = [
  ...allTools.filter((t) => t.name !== "attempt_completion"),
  newTaskTool,
  useSubagentsTool([{ name: "reviewer", description: "Reviews a change for bugs." }]),
  ...allTools.filter((t) => t.name === "attempt_completion"),
];
const system = { platform: "Linux 6.1 (linux)", shell: "/bin/bash", home: "/home/person" };
/** The default sandbox's line, as a run with bubblewrap shows it. */
const sandbox = new CommandSandbox({ bwrap: "/usr/bin/bwrap", mode: "workspace-write", network: "on", workspace: "/work/project", hiddenPaths: [], writablePaths: [] }).promptLine();

/**
 * What the model sees, per mode and protocol, kept as files: a change to a prompt or a tool's
 * schema shows up as a diff in review. The prompts are those of a task's first request (rarely
 * used tools in their one-line brief); the schemas are kept both in full and as first offered.
 */
describe("what the model sees", () => {
  for (const mode of ["act", "plan"] as const) {
    for (const protocol of ["xml", "native"] as const) {
      it(`system prompt: ${mode} mode, ${protocol} protocol`, async () => {
        const tools = offeredTools(sessionTools.filter((t) => t.modes.includes(mode)), new Set());
        // As a task sends it by default: the focus chain is on.
        const prompt = buildSystemPrompt({ cwd: "/work/project", mode, protocol, tools, system, sandbox, taskProgress: true });
        await expect(prompt).toMatchFileSnapshot(`__snapshots__/system-prompt.${mode}.${protocol}.txt`);
      });
    }
  }

  it("system prompt with skills: a catalog of names, descriptions and paths after the mode, and no change without skills", async () => {
    const tools = offeredTools(sessionTools.filter((t) => t.modes.includes("act")), new Set());
    const skill = (name: string, description: string, source: string, scope: Skill["scope"]): Skill => ({ name, description, source, scope, freeReads: true, file: `/work/project/${source}`, folder: `/work/project/${source.replace(/\/SKILL\.md$/, "")}` });
    const { text } = skillCatalog([skill("release-notes", "Writes release notes from the git log. Use when asked for a changelog.", ".agents/skills/release-notes/SKILL.md", "project"), skill("pdf-forms", "Fills PDF forms with\n  the bundled script.", "/home/person/.cairn/skills/pdf-forms/SKILL.md", "global")], 3000);
    const base = { cwd: "/work/project", mode: "act", protocol: "native", tools, system, sandbox, taskProgress: true } as const;
    const prompt = buildSystemPrompt({ ...base, skills: text });
    await expect(prompt).toMatchFileSnapshot("__snapshots__/system-prompt.act.native.skills.txt");
    expect(buildSystemPrompt({ ...base, skills: skillCatalog([], 3000).text })).toBe(buildSystemPrompt(base));
  });

  it("native tool schemas, in full", async () => {
    const specs = nativeProtocol.requestTools(allTools);
    await expect(JSON.stringify(specs, null, 2)).toMatchFileSnapshot("__snapshots__/native-tools.json");
  });

  it("native tool schemas of the first request", async () => {
    const specs = nativeProtocolWith(true).requestTools(offeredTools(sessionTools.filter((t) => t.modes.includes("act")), new Set()));
    await expect(JSON.stringify(specs, null, 2)).toMatchFileSnapshot("__snapshots__/native-tools.first-request.json");
  });

  it("xml tool descriptions, in full (as offered once each tool has been called)", async () => {
    await expect(xmlToolSection(allTools)).toMatchFileSnapshot("__snapshots__/xml-tools.txt");
  });

  it("the xml prompt describes every tool with its parameters and an example; native leaves tools out", () => {
    const xml = buildSystemPrompt({ cwd: "/w", mode: "act", protocol: "xml", tools: allTools, system });
    const native = buildSystemPrompt({ cwd: "/w", mode: "act", protocol: "native", tools: allTools, system });
    for (const tool of allTools) {
      expect(xml).toContain(`## ${tool.name}\n`);
      expect(native).not.toContain(`## ${tool.name}\n`);
    }
    expect(xml).toContain("<read_file>");
    expect(native).not.toContain("<read_file>");
  });

  it("keeps the rules a run depends on: the workspace boundary, the sandbox, the mode and how to finish", () => {
    for (const protocol of ["xml", "native"] as const) {
      const act = buildSystemPrompt({ cwd: "/work/project", mode: "act", protocol, tools: offeredTools(allTools, new Set()), system, sandbox });
      expect(act).toContain("The workspace is /work/project.");
      expect(act).toContain("Paths outside it need the person's approval");
      expect(act).toContain(sandbox);
      expect(act).toContain("ACT mode");
      expect(act).toContain("attempt_completion");
      const plan = buildSystemPrompt({ cwd: "/work/project", mode: "plan", protocol, tools: offeredTools(allTools, new Set()), system, sandbox });
      expect(plan).toContain("PLAN mode");
      expect(plan).toContain("plan_mode_respond");
      expect(plan).toContain("not available in this mode");
    }
  });

  it("says how one-line tools work only when some are offered that way", () => {
    const line = "full description once you call it";
    expect(buildSystemPrompt({ cwd: "/w", mode: "act", protocol: "native", tools: offeredTools(allTools, new Set()), system })).toContain(line);
    expect(buildSystemPrompt({ cwd: "/w", mode: "act", protocol: "native", tools: allTools, system })).not.toContain(line);
  });

  it("a command's requires_approval keeps its full explanation in the first request", () => {
    const spec = nativeProtocol.requestTools(offeredTools(allTools, new Set()))!.find((t) => t.name === "execute_command")!;
    const requiresApproval = (spec.inputSchema as { properties: Record<string, { description: string }> }).properties.requires_approval!;
    expect(requiresApproval.description).toContain("installs or removes packages, deletes or overwrites files, changes git history or remotes");
  });
});

import { describe, expect, it } from "vitest";
import { nativeProtocol } from "../protocol/native.js";
import { CommandSandbox } from "../sandbox/index.js";
import { allTools } from "../tools/registry.js";
import { buildSystemPrompt } from "./system-prompt.js";

const system = { platform: "Linux 6.1 (linux)", shell: "/bin/bash", home: "/home/person" };
/** The default sandbox's line, as a run with bubblewrap shows it. */
const sandbox = new CommandSandbox({ bwrap: "/usr/bin/bwrap", mode: "workspace-write", network: "on", workspace: "/work/project", hiddenPaths: [], writablePaths: [] }).promptLine();

/**
 * What the model sees, per mode and protocol, kept as files: a change to a prompt or a tool's
 * schema shows up as a diff in review.
 */
describe("what the model sees", () => {
  for (const mode of ["act", "plan"] as const) {
    for (const protocol of ["xml", "native"] as const) {
      it(`system prompt: ${mode} mode, ${protocol} protocol`, async () => {
        const tools = allTools.filter((t) => t.modes.includes(mode));
        const prompt = buildSystemPrompt({ cwd: "/work/project", mode, protocol, tools, system, sandbox });
        await expect(prompt).toMatchFileSnapshot(`__snapshots__/system-prompt.${mode}.${protocol}.txt`);
      });
    }
  }

  it("native tool schemas", async () => {
    const specs = nativeProtocol.requestTools(allTools);
    await expect(JSON.stringify(specs, null, 2)).toMatchFileSnapshot("__snapshots__/native-tools.json");
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
});

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { trustDigest } from "../trust/trust-store.js";
import { loadAgentDefinitions, parseDefinition, projectAgentsConfig } from "./agent-definitions.js";

let root: string;
let home: string;
let cwd: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-agents-")));
  home = path.join(root, "home");
  cwd = path.join(root, "ws");
  mkdirSync(path.join(home, "agents"), { recursive: true });
  mkdirSync(path.join(cwd, ".cairn", "agents"), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const definition = (name: string, extra = "") => `---\nname: ${name}\ndescription: The ${name} agent\n${extra}---\nYou are ${name}.\n`;

describe("agent definitions (Claude Code's format)", () => {
  it("reads name, description, tools (comma list, flow list or block list), model and the instructions", () => {
    expect(parseDefinition("a.md", definition("a", "tools: Read, Grep\nmodel: claude-haiku-4-5\n"))).toEqual({
      agent: { name: "a", description: "The a agent", tools: ["Read", "Grep"], model: "claude-haiku-4-5", instructions: "You are a.", file: "a.md" },
    });
    expect(parseDefinition("b.md", definition("b", 'tools: ["read_file", "web_fetch"]\nmodel: inherit\n'))).toMatchObject({ agent: { tools: ["read_file", "web_fetch"] } });
    expect(parseDefinition("b.md", definition("b", "model: inherit\n"))).not.toHaveProperty("agent.model");
    expect(parseDefinition("c.md", definition("c", "tools:\n  - Read\n  - Glob\n"))).toMatchObject({ agent: { tools: ["Read", "Glob"] } });
  });

  it("skips a file without front matter, a name that is not one word, or no description, saying why", () => {
    expect(parseDefinition("x.md", "just text")).toEqual({ problem: expect.stringContaining("no front matter") });
    expect(parseDefinition("x.md", definition("../evil"))).toEqual({ problem: expect.stringContaining('"name"') });
    expect(parseDefinition("x.md", "---\nname: x\n---\nbody")).toEqual({ problem: '"description" is missing' });
    writeFileSync(path.join(home, "agents", "bad.md"), "no front matter");
    expect(loadAgentDefinitions({ home, cwd }).problems).toEqual([expect.stringContaining("bad.md skipped")]);
  });

  it("takes the workspace's .cairn/agents only while its exact content is trusted; a change needs trust again", () => {
    writeFileSync(path.join(home, "agents", "mine.md"), definition("mine"));
    writeFileSync(path.join(cwd, ".cairn", "agents", "theirs.md"), definition("theirs", "tools: Bash\n"));
    const untrusted = loadAgentDefinitions({ home, cwd });
    expect(untrusted.agents.map((a) => a.name)).toEqual(["mine"]);
    expect(untrusted.untrusted).toMatchObject({ what: "agent definitions", changed: false, file: path.join(cwd, ".cairn", "agents") });

    const config = projectAgentsConfig(cwd)!;
    expect(config.items).toEqual(["theirs: tools Bash"]);
    trustDigest(home, config.workspace, config.dir, config.digest);
    expect(loadAgentDefinitions({ home, cwd }).agents.map((a) => a.name)).toEqual(["mine", "theirs"]);

    // A new file in the folder changes what was trusted.
    writeFileSync(path.join(cwd, ".cairn", "agents", "more.md"), definition("more"));
    const changed = loadAgentDefinitions({ home, cwd });
    expect(changed.agents.map((a) => a.name)).toEqual(["mine"]);
    expect(changed.untrusted).toMatchObject({ changed: true });
  });
});

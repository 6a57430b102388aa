import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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

  it("a definition is a path like any other: a link outside CAIRN_HOME or the workspace, or to an ignored file, is skipped with why; one inside is read", () => {
    const secret = (name: string) => definition(name).replace(`You are ${name}.`, "AGENT-SECRET-77a1");
    mkdirSync(path.join(root, "outside"));
    writeFileSync(path.join(root, "outside", "global.md"), secret("global"));
    writeFileSync(path.join(root, "outside", "project.md"), secret("project"));
    writeFileSync(path.join(cwd, ".env"), secret("ignored"));
    writeFileSync(path.join(cwd, ".cairnignore"), ".env\n");
    writeFileSync(path.join(cwd, "helper.txt"), definition("inside"));
    symlinkSync(path.join(root, "outside", "global.md"), path.join(home, "agents", "global.md"));
    symlinkSync(path.join(root, "outside", "project.md"), path.join(cwd, ".cairn", "agents", "project.md"));
    symlinkSync("../../.env", path.join(cwd, ".cairn", "agents", "ignored.md"));
    linkSync(path.join(cwd, ".env"), path.join(cwd, ".cairn", "agents", "hard.md"));
    symlinkSync("../../helper.txt", path.join(cwd, ".cairn", "agents", "inside.md"));
    const config = projectAgentsConfig(cwd)!;
    expect(JSON.stringify(config.items)).not.toContain("AGENT-SECRET");
    expect(config.items).toEqual([
      expect.stringMatching(/^hard\.md: skipped, it is a hard link of a file blocked by \.cairnignore/),
      expect.stringMatching(/^ignored\.md: skipped, it, or the file it leads to .* is blocked by \.cairnignore/),
      "inside: tools read-only default",
      expect.stringMatching(/^project\.md: skipped, it leads outside the workspace/),
    ]);
    trustDigest(home, config.workspace, config.dir, config.digest);

    const loaded = loadAgentDefinitions({ home, cwd });
    expect(loaded.agents.map((a) => a.name)).toEqual(["inside"]);
    expect(JSON.stringify(loaded)).not.toContain("AGENT-SECRET");
    expect(loaded.problems).toEqual([
      expect.stringMatching(/global\.md skipped: it leads outside CAIRN_HOME/),
      expect.stringMatching(/hard\.md skipped: it is a hard link/),
      expect.stringMatching(/ignored\.md skipped: .*blocked by \.cairnignore/),
      expect.stringMatching(/project\.md skipped: it leads outside the workspace/),
    ]);
  });
});

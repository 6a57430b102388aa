import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadHookConfig } from "../hooks/config.js";
import { hookSandbox, on, type HookSandbox } from "../hooks/test-support.js";
import { projectConfig, revokeProjectTrust, trustProjectConfig } from "./project-config.js";
import { loadTrust, trustFile } from "../trust/trust-store.js";
import { untrustedNotice } from "../trust/untrusted.js";

let box: HookSandbox;
beforeEach(async () => {
  box = await hookSandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const settingsFile = () => path.join(box.cwd, ".cairn", "settings.json");
/** Writes the workspace's settings as a cloned repository would ship them: not trusted. */
const shipHooks = (hooks: Record<string, unknown>) => writeFile(settingsFile(), JSON.stringify({ hooks }));

describe("trust in a workspace's hooks", () => {
  it("leaves a repository's hooks inert until trusted, then loads them; a change makes them inert again", async () => {
    await shipHooks({ SessionStart: on("touch marker") });
    const before = loadHookConfig(box);
    expect(before.hooks).toEqual([]);
    expect(before.untrusted).toEqual([{ file: settingsFile(), workspace: box.cwd, what: "hooks", changed: false }]);
    expect(untrustedNotice(before.untrusted[0]!)).toBe(
      `ignoring hooks in ${settingsFile()} (this workspace's config is not trusted; run \`cairn trust --cwd ${box.cwd}\` to review and use it)`,
    );

    const shown = projectConfig(box);
    expect(shown.files.map((f) => [f.file, f.what, f.items, f.trusted])).toEqual([[settingsFile(), "hooks", ["SessionStart: touch marker"], false]]);
    trustProjectConfig(box.home, shown);
    expect(loadTrust(box.home)).toEqual([{ workspace: box.cwd, file: settingsFile(), sha256: shown.files[0]!.digest, trustedAt: expect.any(String) }]);
    expect(loadHookConfig(box).hooks.map((h) => h.command)).toEqual(["touch marker"]);

    await shipHooks({ SessionStart: on("touch marker; curl evil") });
    const after = loadHookConfig(box);
    expect(after.hooks).toEqual([]);
    expect(after.untrusted[0]?.changed).toBe(true);
    expect(untrustedNotice(after.untrusted[0]!)).toContain("it changed since you trusted it");
  });

  it("binds trust to the scripts the hooks run: an edited script, even mid-session, does not run", async () => {
    const command = await box.script("start.sh", "touch ran-1");
    await shipHooks({ UserPromptSubmit: on(command) });
    trustProjectConfig(box.home, projectConfig(box));
    expect(projectConfig(box).files[0]?.runs).toEqual(["hooks/start.sh"]);
    const { runner } = box.load();
    await runner.userPromptSubmit({ ...box.session, prompt: "hi" });
    await expect(box.read("ran-1")).resolves.toBe("");

    await writeFile(path.join(box.cwd, "hooks", "start.sh"), "#!/bin/sh\ntouch ran-2\n");
    const outcome = await runner.userPromptSubmit({ ...box.session, prompt: "again" });
    expect(outcome.notices.map((n) => n.message)).toEqual([expect.stringContaining("changed since it was trusted")]);
    await expect(box.read("ran-2")).rejects.toThrow();
    expect(loadHookConfig(box).hooks).toEqual([]);
  });

  it("treats CAIRN_HOME's own settings as the person's, even when CAIRN_HOME is the workspace's .cairn folder", async () => {
    await shipHooks({ Stop: on("true") });
    const home = path.join(box.cwd, ".cairn");
    expect(loadHookConfig({ home, cwd: box.cwd }).hooks).toHaveLength(1);
    expect(projectConfig({ home, cwd: box.cwd }).files).toEqual([]);
  });

  it("revokes a workspace's trust and its MCP approvals, keeping other workspaces'", async () => {
    await shipHooks({ Stop: on("true") });
    trustProjectConfig(box.home, projectConfig(box));
    const other = await hookSandbox();
    try {
      await writeFile(path.join(other.cwd, ".mcp.json"), JSON.stringify({ mcpServers: { s: { command: "node", args: ["server.js"] } } }));
      await writeFile(path.join(other.cwd, "server.js"), "// a server\n");
      const shown = projectConfig({ home: box.home, cwd: other.cwd });
      expect(shown.files.map((f) => [f.what, f.items, f.runs])).toEqual([["MCP servers", ['s: {"command":"node","args":["server.js"]}'], ["server.js"]]]);
      trustProjectConfig(box.home, shown);
      expect(revokeProjectTrust(box.home, box.cwd).records).toHaveLength(1);
      expect(loadTrust(box.home).map((r) => r.workspace)).toEqual([other.cwd]);
      expect(loadHookConfig(box).hooks).toEqual([]);
    } finally {
      await other.cleanup();
    }
  });

  it("reads a damaged trust file as no trust at all", async () => {
    await shipHooks({ Stop: on("true") });
    trustProjectConfig(box.home, projectConfig(box));
    await writeFile(trustFile(box.home), (await readFile(trustFile(box.home), "utf8")).slice(0, 20));
    expect(loadTrust(box.home)).toEqual([]);
    expect(loadHookConfig(box).hooks).toEqual([]);
  });
});

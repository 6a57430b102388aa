import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { processAlive } from "../terminal/index.js";
import { LanguageServers } from "./language-servers.js";

let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-lsp-roots-")));
});
afterEach(() => rmSync(ws, { recursive: true, force: true, maxRetries: 10 }));

it("a monorepo's fifth project root stops the server used longest ago; every one answers while it runs", async () => {
  const servers = new LanguageServers({ workspace: ws, settings: { startWaitMs: 240_000, waitMs: 60_000 } });
  const signal = new AbortController().signal;
  const notices: string[] = [];
  const started: number[] = [];
  try {
    for (let i = 0; i < 5; i += 1) {
      const root = path.join(ws, `pkg${i}`);
      mkdirSync(root);
      writeFileSync(path.join(root, "pyproject.toml"), `[project]\nname = "pkg${i}"\n`);
      const file = path.join(root, "main.py");
      writeFileSync(file, "count: int = 1\n");
      const found = await servers.afterEdit(file, "count: int = 1\n", "count: int = 'one'\n", signal, (m) => notices.push(m));
      expect(found).toMatchObject({ server: "pyright", problems: [{ line: 1, severity: "error" }] });
      const now = servers.pids();
      started.push(...now.filter((pid) => !started.includes(pid)));
      expect(now.length).toBe(Math.min(i + 1, 4));
    }
    expect(started).toHaveLength(5);
    // The first root's server is the one stopped.
    expect(servers.pids()).not.toContain(started[0]);
    expect(notices).toEqual([]);
  } finally {
    await servers.stop();
  }
  expect(started.filter((pid) => processAlive(pid))).toEqual([]);
}, 900_000);

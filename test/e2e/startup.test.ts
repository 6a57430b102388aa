import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, repoRoot, runCairn, tempDir } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer } from "../support/scripted-model-server.js";

/**
 * Start only what a command needs (issue 13): each run records every module the process loads
 * (a resolve hook for ES modules, require.cache for CommonJS; see test/support/module-recorder).
 */
const recorder = path.join(repoRoot, "test/support/module-recorder/record.mjs");

const heavy = {
  ink: /\/node_modules\/ink\//,
  react: /\/node_modules\/react\//,
  "MCP SDK": /\/node_modules\/@modelcontextprotocol\/sdk\//,
  "puppeteer-core": /\/node_modules\/puppeteer-core\//,
  "AI SDK providers": /\/node_modules\/@ai-sdk\/(anthropic|openai|openai-compatible)\//,
  "tree-sitter": /\/node_modules\/(web-tree-sitter|@vscode\/tree-sitter-wasm)\//,
  "js-tiktoken": /\/node_modules\/js-tiktoken\//,
};

function loadedHeavy(modules: string[]): string[] {
  return Object.entries(heavy)
    .filter(([, pattern]) => modules.some((m) => pattern.test(m)))
    .map(([name]) => name);
}

const fixture = useE2eFixture();

async function recorded(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; modules: string[] }> {
  const out = tempDir("modules");
  try {
    const file = path.join(out.dir, "modules.txt");
    const run = await runCairn(args, {
      env: cleanEnv({ CAIRN_HOME: fixture.home.dir, NODE_OPTIONS: `--import=${recorder}`, CAIRN_RECORD_MODULES: file, ...env }),
      cwd: fixture.workspace.dir,
    });
    expect(run.code, run.stderr).toBe(0);
    const modules = readFileSync(file, "utf8").split("\n").filter((line) => line !== "");
    return { code: run.code, stdout: run.stdout, modules };
  } finally {
    out.cleanup();
  }
}

describe("start-up loads only what the command needs", () => {
  it("cairn --version and --help load none of the agent's heavy dependencies, nor the agent itself", async () => {
    for (const flag of ["--version", "--help"]) {
      const run = await recorded([flag]);
      expect(run.stdout).toMatch(/\d+\.\d+\.\d+/);
      expect(loadedHeavy(run.modules), flag).toEqual([]);
      expect(run.modules.filter((m) => m.includes("/packages/core/dist/") && !m.endsWith("/storage/cairn-home.js")), flag).toEqual([]);
    }
  });

  it("cairn history and show load the store without the heavy dependencies", async () => {
    const history = await recorded(["history"]);
    expect(history.modules.some((m) => m.includes("/packages/core/dist/storage/"))).toBe(true);
    expect(loadedHeavy(history.modules)).toEqual([]);
  });

  it("a one-turn headless task loads its provider's SDK and nothing else heavy", async () => {
    fixture.server = await startScriptedModelServer({
      turns: [{ content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Done at once." } }] }],
    });
    const run = await recorded(["run", "--provider", "anthropic", "--base-url", fixture.server.url, "--cwd", fixture.workspace.dir, "--json", "Say you are done."], {
      ANTHROPIC_API_KEY: "k",
    });
    expect(run.stdout).toContain("Done at once.");
    // The positive control: the recorder sees a package the run did use.
    // The command classifier's parser loads from a task's second request on, or as a command call
    // streams (issue 26): a task the model answers at once does not load it; nothing else heavy
    // loads before it is used either.
    expect(loadedHeavy(run.modules)).toEqual(["AI SDK providers"]);
    expect(run.modules.some((m) => m.includes("/node_modules/@ai-sdk/anthropic/"))).toBe(true);
    expect(run.modules.some((m) => m.includes("/node_modules/@ai-sdk/openai/"))).toBe(false);
  });

  it("a task that uses tools loads the shell parser beside its second request, before any command", async () => {
    fixture.server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "tool_use", name: "list_files", input: { path: "." } }] },
        { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Listed." } }] },
      ],
    });
    const run = await recorded(["run", "--provider", "anthropic", "--base-url", fixture.server.url, "--cwd", fixture.workspace.dir, "--json", "List the files."], {
      ANTHROPIC_API_KEY: "k",
    });
    expect(run.stdout).toContain("Listed.");
    expect(loadedHeavy(run.modules)).toEqual(["AI SDK providers", "tree-sitter"]);
  });

  it("a plain command runs without the shell parser, quotes and redirects included; a loop loads it", async () => {
    const oneReply = (command: string) =>
      startScriptedModelServer({
        turns: [
          {
            content: [
              { type: "tool_use", name: "execute_command", input: { command, requires_approval: false } },
              { type: "tool_use", name: "attempt_completion", input: { result: "Ran it." } },
            ],
          },
        ],
      });
    const args = (url: string) => ["run", "--provider", "anthropic", "--base-url", url, "--cwd", fixture.workspace.dir, "--auto-approve", "all-commands", "--json", "Run it."];
    fixture.server = await oneReply('ls -la > /dev/null && echo "plain-ok" 2>&1');
    const plain = await recorded(args(fixture.server.url), { ANTHROPIC_API_KEY: "k" });
    // The output, a line of its own in the JSON (the command's own text has no line break after it).
    expect(plain.stdout).toContain("plain-ok\\n");
    expect(loadedHeavy(plain.modules)).toEqual(["AI SDK providers"]);
    await fixture.server.close();
    fixture.server = await oneReply('for w in parsed-ok; do echo "$w"; done');
    const parsed = await recorded(args(fixture.server.url), { ANTHROPIC_API_KEY: "k" });
    expect(parsed.stdout).toContain("parsed-ok\\n");
    expect(loadedHeavy(parsed.modules)).toEqual(["AI SDK providers", "tree-sitter"]);
  });

  it("loads the exact tokenizer once the conversation nears the model's window", async () => {
    // A window the system prompt alone fills past 70% of what a request may hold (or overfills: the
    // conversation is then shrunk as far as it can be and the request goes anyway).
    writeFileSync(path.join(fixture.home.dir, "settings.json"), JSON.stringify({ models: { "claude-sonnet-4-5": { contextWindow: 3000, maxOutputTokens: 500 } } }));
    fixture.server = await startScriptedModelServer({
      turns: [{ content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Done near the window." } }] }],
    });
    const run = await recorded(["run", "--provider", "anthropic", "--base-url", fixture.server.url, "--cwd", fixture.workspace.dir, "--json", "Say you are done."], {
      ANTHROPIC_API_KEY: "k",
    });
    expect(run.stdout).toContain("Done near the window.");
    expect(loadedHeavy(run.modules)).toContain("js-tiktoken");
  });
});

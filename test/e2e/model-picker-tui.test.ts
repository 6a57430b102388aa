import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, tempDir } from "../support/cairn-cli.js";
import { startModelEndpointServer, type ModelEndpointServer } from "../support/model-endpoint-server.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { TMUX, TuiTerminal } from "../support/tui-terminal.js";

/**
 * `/model` with no id in a real terminal (tmux): a pick list of the provider's models Cairn knows
 * (settings.json's "models", those a local endpoint has, and the built-in list), each with its
 * context window and whether it takes images, the current one marked; the one picked answers the
 * next request.
 */

let workspace: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let server: ScriptedModelServer | undefined;
let endpoint: ModelEndpointServer | undefined;
let terminal: TuiTerminal | undefined;

beforeAll(() => {
  if (!existsSync(TMUX)) throw new Error(`tmux is needed for these tests and is not at ${TMUX}: install it (apt-get install tmux).`);
});
beforeEach(() => {
  workspace = tempDir("model-picker-ws");
  home = tempDir("model-picker-home");
  writeFileSync(path.join(home.dir, "settings.json"), JSON.stringify({ checkpoints: false, models: { "claude-in-house": { contextWindow: 64000, images: false } } }));
});
afterEach(async () => {
  await terminal?.close();
  terminal = undefined;
  await server?.close();
  server = undefined;
  await endpoint?.close();
  endpoint = undefined;
  for (const dir of [workspace, home]) dir.cleanup();
});

const done = (result: string): ScriptedTurn => ({ content: [{ type: "tool_use", name: "attempt_completion", input: { result } }] });

describe("/model in the terminal", () => {
  it("lists the provider's models with window and images, the current one marked, and switches to the one picked", { timeout: 120_000 }, async () => {
    server = await startScriptedModelServer({ turns: [done("First answer"), done("Second answer")] });
    const env = cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: home.dir, ANTHROPIC_API_KEY: "k" });
    const t = (terminal = new TuiTerminal(env, home.dir, workspace.dir));
    t.launch(["--provider", "anthropic", "--base-url", server.url, "--model", "claude-haiku-4-5"]);
    await t.waitFor("describe a task, or /help");
    await t.type("FIRST: say hello");
    await t.press("Enter");
    await t.waitFor("✓ First answer");
    expect(server.requests.at(-1)?.body.model).toBe("claude-haiku-4-5");

    await t.type("/model");
    await t.press("Enter");
    const picker = await t.waitFor(/Pick a model on anthropic[\s\S]*claude-opus-4-5.*\n/);
    const list = picker.slice(picker.lastIndexOf("Pick a model on anthropic"));
    // The current model first and marked, then settings.json's, then the built-in list's.
    expect(list).toMatch(/claude-haiku-4-5\s+current · 200k context · images\n/);
    expect(list).toMatch(/claude-in-house\s+64k context · no images\n/);
    expect(list).toMatch(/claude-sonnet-4-5\s+200k context · images\n/);
    expect(list.indexOf("claude-haiku-4-5")).toBeLessThan(list.indexOf("claude-in-house"));

    await t.press("Down", "Enter");
    await t.waitFor("Now using anthropic/claude-in-house.");
    await t.type("SECOND: again");
    await t.press("Enter");
    await t.waitFor("✓ Second answer");
    expect(server.requests.at(-1)?.body.model).toBe("claude-in-house");
  });

  it("on Ollama, offers the models pulled there, described by Ollama, and switches to one", { timeout: 120_000 }, async () => {
    writeFileSync(path.join(home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
    const xmlDone = (result: string): ScriptedTurn => ({ content: [{ type: "text", text: `<attempt_completion><result>${result}</result></attempt_completion>` }] });
    server = await startScriptedModelServer({ turns: [xmlDone("First answer"), xmlDone("Second answer")] });
    endpoint = await startModelEndpointServer({ chat: server.url, ollamaTags: "ollama-tags.json", ollamaShow: { "qwen2.5vl:7b": "ollama-show-qwen2.5vl.json" } });
    const env = cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: home.dir });
    const t = (terminal = new TuiTerminal(env, home.dir, workspace.dir));
    t.launch(["--provider", "ollama", "--base-url", `${endpoint.url}/v1`, "--model", "qwen2.5-coder:14b"]);
    await t.waitFor("describe a task, or /help");
    await t.type("FIRST: say hello");
    await t.press("Enter");
    await t.waitFor("✓ First answer");

    await t.type("/model");
    await t.press("Enter");
    const picker = await t.waitFor(/Pick a model on ollama[\s\S]*qwen2\.5vl:7b.*\n/);
    const list = picker.slice(picker.lastIndexOf("Pick a model on ollama"));
    expect(list).toMatch(/qwen2\.5-coder:14b\s+current · 128k context · no images\n/);
    // Pulled, and Ollama's /api/show says it sees pictures.
    expect(list).toMatch(/qwen2\.5vl:7b\s+128k context · images\n/);
    expect(endpoint.asked).toContain("GET /api/tags");

    await t.press("Down", "Enter");
    await t.waitFor("Now using ollama/qwen2.5vl:7b.");
    await t.type("SECOND: again");
    await t.press("Enter");
    await t.waitFor("✓ Second answer");
    expect(server.requests.at(-1)?.body.model).toBe("qwen2.5vl:7b");
  });
});

import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { cleanEnv, tempDir } from "../support/cairn-cli.js";
import { TMUX, TuiTerminal } from "../support/tui-terminal.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

/**
 * The problems an edit introduced, under its card in the interactive `cairn`, in a real terminal
 * (tmux, 120x40), from a real TypeScript server: only the model is scripted.
 */

let workspace: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let server: ScriptedModelServer | undefined;
let terminal: TuiTerminal | undefined;

beforeAll(() => {
  if (!existsSync(TMUX)) throw new Error(`tmux is needed for these tests and is not at ${TMUX}: install it (apt-get install tmux).`);
});
beforeEach(() => {
  workspace = tempDir("lsp-tui-ws");
  home = tempDir("lsp-tui-home");
});
afterEach(async () => {
  await terminal?.close();
  terminal = undefined;
  await server?.close();
  server = undefined;
  workspace.cleanup();
  home.cleanup();
});


const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

it("an edit's card lists the errors it introduced, in red; a clean edit's card lists none", { timeout: 600_000 }, async () => {
  writeFileSync(path.join(workspace.dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
  writeFileSync(path.join(workspace.dir, "double.ts"), "export function double(n: number): number {\n  return n * 2;\n}\n");
  server = await startScriptedModelServer({
    turns: [
      call("write_to_file", { path: "main.ts", content: 'import { double } from "./double";\n\nexport const four: number = double("two");\n' }),
      call("write_to_file", { path: "ok.ts", content: 'import { double } from "./double";\n\nexport const six: number = double(3);\n' }),
      call("attempt_completion", { result: "Edits written" }),
    ],
  });
  // Real servers on a busy machine may take long to load a project the first time.
  writeFileSync(path.join(home.dir, "settings.json"), JSON.stringify({ checkpoints: false, lsp: { startWaitMs: 240_000, waitMs: 60_000 } }));
  terminal = new TuiTerminal(cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: home.dir, ANTHROPIC_API_KEY: "k" }), home.dir, workspace.dir, 120);
  terminal.launch(["--provider", "anthropic", "--base-url", server.url, "--auto-approve", "read,edit"]);
  await terminal.waitFor("describe a task, or /help", 60_000);
  await terminal.type("Write the code");
  await terminal.press("Enter");
  const screen = await terminal.waitFor("✓ Edits written", 540_000);
  const bad = screen.slice(screen.indexOf("main.ts"), screen.indexOf("ok.ts"));
  expect(bad).toContain("1 new problem:");
  expect(bad).toMatch(/main\.ts:3:\d+ TS2345 Argument of type 'string' is not assignable to parameter of type 'number'\./);
  // The clean edit's card says nothing of problems.
  const clean = screen.slice(screen.indexOf("ok.ts"), screen.indexOf("✓ Edits written"));
  expect(clean).not.toContain("new problem");
  // In the error colour (red).
  // eslint-disable-next-line no-control-regex
  expect(terminal.screen(true)).toMatch(/\u001b\[(?:[0-9;]*;)?31m\s*main\.ts:3:\d+ TS2345/);
});

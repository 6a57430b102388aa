import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { cleanEnv } from "../support/cairn-cli.js";
import { TuiTerminal } from "../support/tui-terminal.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useTuiFixture } from "../support/tui-fixture.js";

/**
 * The problems an edit introduced, under its card in the interactive `cairn`, in a real terminal
 * (tmux, 120x40), from a real TypeScript server: only the model is scripted.
 */

const fx = useTuiFixture("lsp-tui");

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

it("an edit's card lists the errors it introduced, in red; a clean edit's card lists none", { timeout: 600_000 }, async () => {
  writeFileSync(path.join(fx.workspace.dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
  writeFileSync(path.join(fx.workspace.dir, "double.ts"), "export function double(n: number): number {\n  return n * 2;\n}\n");
  fx.server = await startScriptedModelServer({
    turns: [
      call("write_to_file", { path: "main.ts", content: 'import { double } from "./double";\n\nexport const four: number = double("two");\n' }),
      call("write_to_file", { path: "ok.ts", content: 'import { double } from "./double";\n\nexport const six: number = double(3);\n' }),
      call("attempt_completion", { result: "Edits written" }),
    ],
  });
  // Real servers on a busy machine may take long to load a project the first time.
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false, lsp: { startWaitMs: 240_000, waitMs: 60_000 } }));
  fx.terminal = new TuiTerminal(cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" }), fx.home.dir, fx.workspace.dir, 120);
  fx.terminal.launch(["--provider", "anthropic", "--base-url", fx.server.url, "--auto-approve", "read,edit"]);
  await fx.terminal.waitFor("describe a task, or /help", 60_000);
  await fx.terminal.type("Write the code");
  await fx.terminal.press("Enter");
  const screen = await fx.terminal.waitFor("✓ Edits written", 540_000);
  const bad = screen.slice(screen.indexOf("main.ts"), screen.indexOf("ok.ts"));
  expect(bad).toContain("1 new problem:");
  expect(bad).toMatch(/main\.ts:3:\d+ TS2345 Argument of type 'string' is not assignable to parameter of type 'number'\./);
  // The clean edit's card says nothing of problems.
  const clean = screen.slice(screen.indexOf("ok.ts"), screen.indexOf("✓ Edits written"));
  expect(clean).not.toContain("new problem");
  // In the error colour (red).
  // eslint-disable-next-line no-control-regex
  expect(fx.terminal.screen(true)).toMatch(/\u001b\[(?:[0-9;]*;)?31m\s*main\.ts:3:\d+ TS2345/);
});

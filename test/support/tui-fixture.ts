import { existsSync } from "node:fs";
import { afterEach, beforeAll, beforeEach } from "vitest";
import { tempDir } from "./cairn-cli.js";
import type { ScriptedModelServer } from "./scripted-model-server.js";
import { TMUX, type TuiTerminal } from "./tui-terminal.js";

type TempDir = ReturnType<typeof tempDir>;

export type TuiFixture = {
  /** A fresh workspace folder for each test. */
  workspace: TempDir;
  /** A fresh CAIRN_HOME for each test. */
  home: TempDir;
  /** The scripted model server the test starts; closed after the test. */
  server: ScriptedModelServer | undefined;
  /** The terminal the test opens `cairn` in; closed (tmux session and all) after the test. */
  terminal: TuiTerminal | undefined;
};

/**
 * What every test file of the interactive `cairn` in a real terminal needs: tmux present (said in
 * one line if not), a workspace and CAIRN_HOME per test (folders named after `name`), and the
 * terminal and model server closed after each test. `setup` prepares each test's folders.
 */
export function useTuiFixture(name: string, setup?: (fixture: TuiFixture) => void): TuiFixture {
  const fixture = { server: undefined, terminal: undefined } as TuiFixture;
  beforeAll(() => {
    if (!existsSync(TMUX)) throw new Error(`tmux is needed for these tests and is not at ${TMUX}: install it (apt-get install tmux).`);
  });
  beforeEach(() => {
    fixture.workspace = tempDir(`${name}-ws`);
    fixture.home = tempDir(`${name}-home`);
    setup?.(fixture);
  });
  afterEach(async () => {
    await fixture.terminal?.close();
    fixture.terminal = undefined;
    await fixture.server?.close();
    fixture.server = undefined;
    fixture.workspace.cleanup();
    fixture.home.cleanup();
  });
  return fixture;
}

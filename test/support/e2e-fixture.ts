import { afterEach, beforeEach } from "vitest";
import type { ScriptedModelServer } from "./scripted-model-server.js";
import { tempDir } from "./cairn-cli.js";

type TempDir = ReturnType<typeof tempDir>;

export type E2eFixture = {
  /** A fresh workspace folder for each test. */
  workspace: TempDir;
  /** A fresh CAIRN_HOME for each test. */
  home: TempDir;
  /** The scripted model server the test starts (tests assign it first thing); closed after the test. */
  server: ScriptedModelServer;
};

/** The temp workspace, CAIRN_HOME and scripted-server lifecycle every end-to-end test file needs. */
export function useE2eFixture(setup?: (fixture: E2eFixture) => void): E2eFixture {
  const fixture = {} as E2eFixture;
  const started = fixture as { server?: ScriptedModelServer };
  beforeEach(() => {
    fixture.workspace = tempDir("ws");
    fixture.home = tempDir("home");
    delete started.server;
    setup?.(fixture);
  });
  afterEach(async () => {
    await started.server?.close();
    delete started.server;
    fixture.workspace.cleanup();
    fixture.home.cleanup();
  });
  return fixture;
}

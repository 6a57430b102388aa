import os from "node:os";
import path from "node:path";
import { IgnoreRules } from "../policy/ignore-rules.js";
import { resolveWorkspacePath } from "../policy/workspace.js";
import { terminalFor } from "../terminal/index.js";
import type { ToolContext } from "./tool.js";

/** A real ToolContext for tests of one tool: real workspace, real ignore rules, no host. */
export function testContext(cwd: string, overrides: Partial<ToolContext> = {}): ToolContext {
  const scratchDir = overrides.scratchDir ?? path.join(os.tmpdir(), `cairn-scratch-${process.pid}`);
  return {
    // Looked up when used, so a test can install its own with useTerminal() first.
    get terminal() {
      return terminalFor({ scratchDir });
    },
    cwd,
    signal: new AbortController().signal,
    resolvePath: (p) => resolveWorkspacePath(cwd, p).absolute,
    emitOutput: () => {},
    ignore: new IgnoreRules(cwd),
    scratchDir,
    modelSupportsImages: true,
    ...overrides,
  };
}

export { collapseCarriageReturns, stripAnsi, TerminalTextCleaner } from "./ansi.js";
export type { CommandExecutor, CommandExit, CommandRequest } from "./command-executor.js";
export { CommandOutput, defaultOutputLimits, type OutputLimits } from "./command-output.js";
export { looksLikePrompt, quotePrompt } from "./interactive-prompt.js";
export { groupAlive, processAlive, terminateGroup } from "./kill-tree.js";
export { OutputWindow, type WindowLimits, type WindowParts } from "./output-window.js";
export { defaultTiming, type Outcome, type Timing } from "./process-runner.js";
export { agentSecrets, commandEnv, pickShell } from "./shell.js";
export {
  Terminal,
  terminalFor,
  useTerminal,
  type ProcessInfo,
  type RunRequest,
  type RunResult,
  type TerminalOptions,
} from "./terminal.js";
export { stopLeftoverCommands, taskEnvName } from "./leftovers.js";

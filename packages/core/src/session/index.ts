/**
 * # Sessions: how every host opens and resumes a task
 *
 * `SessionRunner` is what a host drives: a person's session with a task (send, stop, modes,
 * restore, hand-offs, SessionEnd), and its events to render. Beneath it, `openSession` and
 * `resumeSession` do everything between a host's inputs and a running Task: settings (overrides > environment > the workspace's trusted .cairn/settings.json >
 * CAIRN_HOME/settings.json > defaults), the models, the task's store, checkpoints, MCP servers,
 * hooks, the OS sandbox, leftover commands of an interrupted run and the stored conversation.
 * Problems the person must fix are thrown as SessionError; everything else they should know is in
 * `notices` (and in the task's event stream).
 */
export { openSession, resumeSession, type OpenSessionOptions, type ResumeSessionOptions, type Session } from "./open-session.js";
export { mergeSettings, settingFromText, settingsFromEnv, type Env, type SessionOverrides } from "./overrides.js";
export { resolveSettings, resolveSettingsDiscovering, type ResolvedSettings } from "./resolve-settings.js";
export { drainRun } from "./drain.js";
export { restoreCheckpoint, type CheckpointRestore, type CheckpointRestoreRequest } from "./restore-checkpoint.js";
export { resumeMessage, type ResumedState } from "./resumed-state.js";
export { SessionRunner, type RunnerOptions, type RunnerRestore } from "./session-runner.js";
export { afterStop, withoutAddedContext } from "./stop-note.js";
export { projectConfig, revokeProjectTrust, trustProjectConfig, type ProjectConfig, type ProjectConfigFile } from "./project-config.js";
export { SessionError } from "./session-error.js";
export { readOnlySubagentTools, subagentRunner, subagentTools, type SubagentSpec } from "./subagents.js";
export { loadWorkspaceSettings } from "./workspace-settings.js";
export { mcpTaskSandbox } from "./task-sandbox.js";
export {
  applySettingsChange,
  autoApproveChoices,
  readSettingsView,
  restartMcpServer,
  type AutoApproveName,
  type ChangeResult,
  type McpServerView,
  type RuleFileView,
  type SettingsChange,
  type SettingsEditorOptions,
  type SettingsView,
} from "./settings-editor.js";

export { cairnHome, compactionStrategies, describeIssue, loadSettings, settingOptions, SettingsError, settingsSchema, type FromText, type SettingKey, type SettingOption, type Settings } from "./settings.js";
export { writeFileAtomicSync } from "../disk/atomic-write.js";
export { historyRows, listTasks, removeFromHistoryIndex, shownStatus, updateHistoryIndex, type HistoryEntry, type HistoryRow } from "./history.js";
export { DamagedTaskError, isValidTaskId, TaskNotFoundError, TaskStore, type CheckpointRecord, type LoadedConversation, type PendingResult, type TaskLink, type TaskMetadata } from "./task-store.js";
export type { TaskJournal, TaskState } from "./task-journal.js";
export { addPermissionRule, listPermissionRules, loadPermissionRules, permissionsFile, PermissionsFileError, removePermissionRule, type SavedRule } from "./permission-store.js";
export { ConfigFileError, nearestName } from "../disk/config-file.js";
export { TaskInUseError } from "./task-lock.js";
export { processRunning, thisProcess, type ProcessIdentity } from "./process-identity.js";

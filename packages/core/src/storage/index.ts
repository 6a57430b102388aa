export { cairnHome, loadSettings, SettingsError, settingsSchema, type Settings } from "./settings.js";
export { writeFileAtomicSync } from "./atomic-write.js";
export { listTasks, removeFromHistoryIndex, updateHistoryIndex, type HistoryEntry } from "./history.js";
export { DamagedTaskError, isValidTaskId, TaskNotFoundError, TaskStore, type CheckpointRecord, type LoadedConversation, type PendingResult, type TaskMetadata } from "./task-store.js";

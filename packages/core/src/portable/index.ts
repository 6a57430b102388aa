export { exportTask, type TaskExport } from "./export-task.js";
export { importTask, type ImportedTask } from "./import-task.js";
export { redactionMark, SecretRedactor } from "./secret-redaction.js";
export { parseTaskFile, TaskFileError, taskFileFormat, taskFileVersion, type ExportedTask, type TaskFile } from "./task-file.js";

export { openChecked, readChecked, readCheckedSync, type OpenedFile } from "./open-checked.js";
export { openedPath, openedPathSync } from "./opened-path.js";
export { refusalFor, type Boundary, type FileUse, type Refusal } from "./path-check.js";
export { writeChecked, type WriteOptions } from "./write-checked.js";
export { hostFilesFor, readHostTexts, readOpenedBytes, type HostTexts, type TextFiles } from "./text-files.js";
export { realPathOfName } from "./real-name.js";

/*
 * disk/: how Cairn keeps a file of its own, whole (atomic writes) and readable (JSON config files
 * with one-line errors). A leaf: storage, trust, mcp and sandbox all keep files, and none of them
 * should import another's concern to do it (storage holds the settings table, which sits above
 * sandbox, so sandbox's probe cache could not use storage's writer without a loop).
 */
export { appendWholeSync, writeFileAtomicSync } from "./atomic-write.js";
export { ConfigFileError, nearestName, parseJsonConfig, readConfigText, readJsonConfig, unknownKeyProblem } from "./config-file.js";

export { approvalCategories, approvalCategory, autoApproval, hookMayAllow, parseApprovalList, type ApprovalSettings, type AutoDecision } from "./approval.js";
export { resolveWorkspacePath } from "./workspace.js";
export { IgnoreRules, ignoreFileNames } from "./ignore-rules.js";
export { protectedFileNames, protectedFolderNames, protectedHomeEntries, protectedPath, protectedPaths, type ProtectedHit } from "./protected-paths.js";
export { callSignature, checkForLoop, defaultLoopSettings, loopWarning, narrationRefusal, type CallRecord, type LoopSettings, type LoopVerdict } from "./loop-detection.js";
export * from "./command/index.js";

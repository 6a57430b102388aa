export { blockedWriteNote, type WritableSet } from "./blocked-write.js";
export { bwrapArgs, type BwrapPlan, type Mask } from "./bwrap-args.js";
export { CommandSandbox, type SandboxConfig, type SandboxSummary, type TaskSandbox, type Wrapped } from "./command-sandbox.js";
export { credentialPaths } from "./hidden-paths.js";
export { ignoredPaths } from "./ignored-paths.js";
export { openSandbox, type OpenedSandbox } from "./open-sandbox.js";
export { findBubblewrap, probeBubblewrap, type Probe } from "./probe.js";
export {
  isSandboxMode,
  sandboxModes,
  sandboxRequest,
  sandboxSettingsSchema,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxRequest,
  type SandboxSettings,
} from "./sandbox-settings.js";

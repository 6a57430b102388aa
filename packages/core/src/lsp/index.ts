export { defaultLspTiming, LanguageServers, type EditChecks, type LspTiming } from "./language-servers.js";
export { lspSettingsSchema, type LspSettings, type ServerSettings } from "./lsp-settings.js";
export { describeNewProblems, newProblems, problemLine, toProblems, type Problem } from "./problems.js";
export { serverSpecs, specFor, type ServerSpec } from "./server-specs.js";
export { recentFiles } from "./recent-files.js";

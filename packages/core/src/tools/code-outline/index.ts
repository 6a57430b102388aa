export { formatOutline } from "./format.js";
export { loadLanguage, type LoadedLanguage } from "./grammar-loader.js";
export type { DefinitionKind, LanguageSpec } from "./language-spec.js";
export { languages, languagesForFile, sourceExtensions, type LanguageId } from "./languages.js";
export { defaultParseTimeoutMs, outlineFile, outlineSource, type OutlineEntry, type OutlineOptions, type SourceOutline } from "./outline.js";
export { maxSignatureChars } from "./signature.js";

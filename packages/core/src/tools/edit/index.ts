export { applyDiff, StreamingDiffApplier, type ApplyResult, type EditFailure, type PreviewUpdate } from "./streaming-applier.js";
export { BlockParser, parseBlocks, EXPECTED_FORMAT, type DiffBlock, type ParseFailure } from "./parse-blocks.js";
export { describeFailure } from "./failure-report.js";
export { describeSuccess } from "./success-report.js";
export type { BlockFailure, Change } from "./edit-session.js";
export type { LineSpan, Strategy } from "./match.js";
export type { SourceText } from "./line-endings.js";

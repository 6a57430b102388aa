import { EditSession, type BlockFailure, type Change } from "./edit-session.js";
import type { SourceText } from "./line-endings.js";
import { BlockParser, type DiffBlock, type ParseFailure } from "./parse-blocks.js";

export type EditFailure = {
  /** The diff's format is broken (processing stopped at that line). */
  parse?: ParseFailure;
  /** Blocks that did not apply (no match, ambiguous, overlapping, empty SEARCH), in diff order. */
  blocks: BlockFailure[];
  /** Blocks read before processing ended. */
  blockCount: number;
};

export type ApplyResult =
  | { ok: true; content: string; changes: Change[]; blockCount: number; source: SourceText }
  | { ok: false; failure: EditFailure; source: SourceText };

/** Reported each time a streamed block is complete and applies. */
export type PreviewUpdate = {
  /** The block just applied (1-based, in diff order). */
  block: number;
  blocksApplied: number;
  /** The original with every block applied so far. */
  preview: string;
  /** Where that block's new lines are in `preview`: 1-based first line and count (0 for a deletion, placed before `startLine`). */
  changedRange: { startLine: number; lineCount: number };
};

/**
 * Applies a diff while it streams in, for live diff views. Each chunk is scanned once; a block is
 * matched (against the original content) as soon as its REPLACE marker line is complete, and the
 * preview is re-rendered once per applied block, so the cost grows with the diff plus
 * (blocks × file size), never with the diff's square. Nothing touches the disk: the tool writes the
 * final content, once, when the call is complete.
 */
export class StreamingDiffApplier {
  private readonly parser = new BlockParser();
  private readonly session: EditSession;
  private readonly failures: BlockFailure[] = [];
  private readonly previews: boolean;

  constructor(original: string, options: { previews?: boolean } = {}) {
    this.session = new EditSession(original);
    this.previews = options.previews ?? true;
  }

  /** Blocks that failed so far; the edit as a whole will fail if there are any. */
  get blockFailures(): readonly BlockFailure[] {
    return this.failures;
  }

  push(chunk: string): PreviewUpdate[] {
    return this.take(this.parser.push(chunk));
  }

  /** The diff is complete: the final content with every block applied, or why the edit cannot apply. */
  finish(): ApplyResult {
    this.take(this.parser.end());
    const source = this.session.source;
    const blockCount = this.parser.blocks;
    const parse = this.parser.error;
    if (parse !== undefined || this.failures.length > 0) {
      return { ok: false, failure: { ...(parse === undefined ? {} : { parse }), blocks: [...this.failures], blockCount }, source };
    }
    const { content, changes } = this.session.render();
    return { ok: true, content, changes, blockCount, source };
  }

  private take(blocks: readonly DiffBlock[]): PreviewUpdate[] {
    const updates: PreviewUpdate[] = [];
    for (const block of blocks) {
      const outcome = this.session.add(block);
      if (!outcome.ok) {
        this.failures.push(outcome.failure);
        continue;
      }
      if (!this.previews) continue;
      const { content, changes } = this.session.render();
      const change = changes.find((c) => c.block === block.index);
      updates.push({
        block: block.index,
        blocksApplied: this.session.appliedCount,
        preview: content,
        changedRange: { startLine: (change?.new.first ?? 0) + 1, lineCount: change?.new.count ?? 0 },
      });
    }
    return updates;
  }
}

/** Applies a complete diff to `original` in memory. */
export function applyDiff(original: string, diff: string): ApplyResult {
  const applier = new StreamingDiffApplier(original, { previews: false });
  applier.push(diff);
  return applier.finish();
}

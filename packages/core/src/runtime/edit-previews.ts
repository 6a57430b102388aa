import type { IgnoreRules } from "../policy/ignore-rules.js";
import { resolveWorkspacePath } from "../policy/workspace.js";
import { StreamingDiffApplier } from "../tools/edit/index.js";
import { readCheckedSync, type TextFiles } from "../tools/files/index.js";
import type { AgentEvent } from "../events/index.js";

type Pending = { path: string; diff: string; applier?: StreamingDiffApplier; off?: true };

/**
 * Live previews of replace_in_file while its diff streams in (xml protocol): each SEARCH/REPLACE
 * block is applied in memory as soon as it is complete, for hosts that show a live diff. The file
 * on disk changes only when the call runs. Files outside the workspace or blocked by ignore rules
 * are not read before approval, so they get no preview.
 *
 * A host with its own files (an editor's buffers, ACP fs) gets none at all: the edit reads the buffer,
 * so a live diff of the disk would show a change other than the one made, and the buffer cannot be
 * read here (the stream is handled synchronously; the editor answers asynchronously). No ACP editor
 * shows edit_preview anyway; the diff it shows comes with the call's approval, from the buffer.
 */
export class EditPreviews {
  private readonly calls = new Map<string, Pending>();

  constructor(
    private readonly cwd: string,
    private readonly ignore: IgnoreRules,
    private readonly files: TextFiles | undefined,
  ) {}

  onDelta(id: string, name: string, param: string | null, text: string): AgentEvent[] {
    if (name !== "replace_in_file" || param === null || this.files !== undefined) return [];
    const pending = this.calls.get(id) ?? { path: "", diff: "" };
    this.calls.set(id, pending);
    if (pending.off) return [];
    if (param === "path") {
      pending.path += text;
      return [];
    }
    if (param !== "diff") return [];
    if (!pending.applier) {
      pending.diff += text;
      const original = this.original(pending.path.trim());
      if (original === undefined) {
        if (pending.path.trim() !== "") pending.off = true;
        return [];
      }
      pending.applier = new StreamingDiffApplier(original, { previews: true });
      text = pending.diff;
    }
    return pending.applier.push(text).map((update) => ({
      type: "edit_preview" as const,
      tool_use_id: id,
      path: pending.path.trim(),
      blocks_applied: update.blocksApplied,
      changed_range: { start_line: update.changedRange.startLine, line_count: update.changedRange.lineCount },
      preview: update.preview,
    }));
  }

  private original(path: string): string | undefined {
    if (path === "") return undefined;
    const resolved = resolveWorkspacePath(this.cwd, path);
    if (resolved.external) return undefined;
    // Through a descriptor checked on its real path: a link swapped in meanwhile is not followed.
    return readCheckedSync({ cwd: this.cwd, ignore: this.ignore }, resolved.absolute)?.toString("utf8");
  }
}

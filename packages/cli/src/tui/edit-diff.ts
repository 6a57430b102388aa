import { diffHunks, type ApprovalPreview, type DiffLine } from "@cairn/core";

/** An edit's change as shown: the lines of core's diff of the approval preview's two texts. */
export type EditDiff = {
  path: string;
  created: boolean;
  added: number;
  removed: number;
  lines: DiffLine[];
};

/**
 * The change an approval's preview describes (old_text null: a new file), or undefined when the
 * preview is not a diff. The texts are core's, computed once by the tool's preview: the file is
 * never read here, so the person sees exactly what they are approving.
 */
export function editDiff(preview: ApprovalPreview | undefined): EditDiff | undefined {
  if (preview?.type !== "diff") return undefined;
  return { path: preview.path, created: preview.old_text === null, ...diffHunks(preview.old_text ?? "", preview.new_text) };
}

/** "(+2 −1)", "(new file, 3 lines)". */
export function diffCounts(edit: EditDiff): string {
  return edit.created ? `(new file, ${edit.added} line${edit.added === 1 ? "" : "s"})` : `(+${edit.added} −${edit.removed})`;
}

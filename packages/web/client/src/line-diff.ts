// Core's line diff (pure), so the page, the terminal and the editor show an edit the same way.
export { diffHunks, type DiffLine } from "../../../core/src/tools/edit/diff-hunks.ts";

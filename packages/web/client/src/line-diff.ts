// The terminal UI's line diff (pure), so the page and the terminal show an edit the same way.
export { diffHunks, type DiffLine } from "../../../cli/src/tui/line-diff.ts";

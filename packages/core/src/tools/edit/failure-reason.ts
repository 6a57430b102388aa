import type { EditFailure } from "./streaming-applier.js";

/**
 * Why replace_in_file will refuse a diff, in a few words for a person deciding on it ("SEARCH
 * block 2 not found"); the model gets the long account (failure-report.ts) when the call runs.
 */
export function failureReason(failure: EditFailure): string {
  if (failure.parse) return `the diff is malformed${failure.parse.line > 0 ? ` at its line ${failure.parse.line}` : ""}`;
  const reasons = failure.blocks.map((f) => {
    switch (f.kind) {
      case "no-match":
        return `SEARCH block ${f.block} not found`;
      case "ambiguous":
        return `SEARCH block ${f.block} matches ${f.total} places`;
      case "overlap":
        return `SEARCH blocks ${f.other} and ${f.block} overlap`;
      case "empty-search":
        return `SEARCH block ${f.block} is empty`;
    }
  });
  const more = reasons.length > 2 ? `, and ${reasons.length - 2} more` : "";
  return reasons.slice(0, 2).join("; ") + more;
}

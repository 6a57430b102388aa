import type { ApprovalRequest } from "@cairn/core";
import { diffCounts, editDiff } from "./edit-diff.js";
import { rowsOf, truncate } from "./text-rows.js";

/** `command`: the exact text that would run; `note`: what core says about it; `problem`: why there is nothing to show. */
export type TitleLine = { text: string; tone: "command" | "note" | "problem" };

/**
 * What an approval prompt says the call would do, taken from the request's preview as core gave
 * it (the diff's texts, the command with its classifier verdict and sandbox, the URL, the MCP
 * server and tool, the paths outside the workspace). Nothing is re-read or re-derived here.
 */
export function approvalTitle(request: ApprovalRequest): { heading: string; lines: TitleLine[] } {
  const preview = request.preview;
  switch (preview?.type) {
    case "diff": {
      const edit = editDiff(preview)!;
      return { heading: `Apply this ${edit.created ? "new file" : "edit"}? ${edit.path} ${diffCounts(edit)}`, lines: [{ text: "The full diff is shown above.", tone: "note" }] };
    }
    case "diff_unavailable":
      // Why there is no diff: above all, an edit that will fail is not approved blind.
      return { heading: `Apply this edit? ${preview.path}`, lines: [{ text: preview.reason, tone: "problem" }] };
    case "command": {
      const sandbox = preview.sandbox.mode === "off" ? `no sandbox: ${preview.sandbox.reason}` : `sandbox: ${preview.sandbox.mode}, network ${preview.sandbox.network}`;
      return {
        heading: "Run this command?",
        lines: [
          { text: `$ ${preview.command}`, tone: "command" },
          ...(preview.reasons.length > 0 ? [{ text: `needs approval: ${preview.reasons.join("; ")}`, tone: "note" as const }] : []),
          { text: sandbox, tone: "note" },
        ],
      };
    }
    case "browser":
      return { heading: `Allow the browser to ${preview.action}${preview.url ? ` ${preview.url}` : ""}?`, lines: [] };
    case "mcp":
      return { heading: `Allow the MCP tool ${preview.server}/${preview.tool}?`, lines: [{ text: truncate(JSON.stringify(preview.arguments), 300), tone: "note" }] };
    case "paths":
      return { heading: `Allow ${request.summary}?`, lines: [{ text: `outside the workspace: ${preview.paths.join(", ")}`, tone: "note" }] };
  }
  if (request.category === "edit" && typeof request.input.path === "string") {
    return {
      heading: `Apply this edit? ${request.input.path}`,
      lines: [{ text: "No diff to show for this edit.", tone: "problem" }],
    };
  }
  return { heading: `Allow ${request.summary}?`, lines: [{ text: `${request.tool} ${truncate(JSON.stringify(request.input), 300)}`, tone: "note" }] };
}

/** Rows the title takes in a prompt `width` columns wide (inside its frame). */
export function approvalTitleRows(request: ApprovalRequest, width: number): number {
  const { heading, lines } = approvalTitle(request);
  return rowsOf(heading, width) + lines.reduce((n, line) => n + rowsOf(`  ${line.text}`, width), 0);
}

import type { ToolResult } from "../tools/tool.js";

/** A result's text; an empty success still tells the model something happened. */
export function toolResultText(result: ToolResult): string {
  const text = typeof result.content === "string" ? result.content : result.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
  if (text.trim() !== "") return text;
  return result.isError ? "The tool failed without a message." : "(done, no output)";
}

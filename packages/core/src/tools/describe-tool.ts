import type { AnyTool } from "./tool.js";

const exampleMarker = "\n\nExample:\n";

/**
 * A tool description is prose, optionally followed by an "Example:" section written in the
 * xml protocol. The native protocol sends the prose alone (its calls are JSON, so an xml
 * example would mislead); the xml prompt puts the example after the parameter list.
 */
export function splitDescription(tool: AnyTool): { prose: string; example: string | undefined } {
  const at = tool.description.indexOf(exampleMarker);
  if (at === -1) return { prose: tool.description.trim(), example: undefined };
  return { prose: tool.description.slice(0, at).trim(), example: tool.description.slice(at + exampleMarker.length).trim() };
}

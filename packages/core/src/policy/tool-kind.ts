/**
 * What a tool does, for approval and display. "control" ends or steers the task (completion, a
 * plan). A leaf in policy, which decides by it: tools declare it and events carry it.
 */
export type ToolKind = "read" | "edit" | "command" | "browser" | "mcp" | "interaction" | "control";

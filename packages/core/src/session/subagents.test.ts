import { describe, expect, it } from "vitest";
import { subagentTools } from "./subagents.js";

const names = (definition?: { tools?: string[] }) => subagentTools(definition).map((t) => t.name);

describe("a sub-agent's tools", () => {
  it("are read-only by default, with attempt_completion to report", () => {
    expect(names()).toEqual(["read_file", "list_files", "search_files", "list_code_definition_names", "web_fetch", "attempt_completion"]);
  });

  it("follow a definition, Claude Code's names included, but never let it ask, hand over or start sub-agents", () => {
    expect(names({ tools: ["Read", "Grep", "Bash"] })).toEqual(["read_file", "search_files", "execute_command", "attempt_completion"]);
    expect(names({ tools: ["use_subagents", "new_task", "ask_followup_question", "plan_mode_respond", "Unknown"] })).toEqual(["attempt_completion"]);
  });

  it("started from PLAN mode, are only those the parent has there: reading ones, whatever the definition lists", () => {
    const every = { tools: ["Read", "Write", "Edit", "Bash", "browser_action", "use_mcp_tool", "web_fetch"] };
    expect(subagentTools(every, "plan").map((t) => t.name)).toEqual(["read_file", "web_fetch", "attempt_completion"]);
    expect(subagentTools(every, "act").map((t) => t.name)).toEqual(["read_file", "write_to_file", "replace_in_file", "execute_command", "browser_action", "web_fetch", "attempt_completion"]);
  });
});

/**
 * Claude Code as the peers bench runs it: `claude -p` with stream-json, its Read, Edit and Bash
 * allowed (`--dangerously-skip-permissions` refuses to run as root), against the scripted model on
 * the Anthropic wire, with no traffic besides the model and a home of its own.
 */
import path from "node:path";
import type { RecordedRequest } from "../../test/support/scripted-model-server.js";
import { isolatedEnv, textTurn, toolNames, toolTurn, type Agent, type Place, type Step } from "./agent.js";

export const CLAUDE_CODE = { pkg: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude" };

export function claudeCode(bin: string, version: string): Agent {
  return {
    name: `Claude Code ${version}`,
    command: (place: Place, prompt: string) => ({
      argv: [bin, "-p", "--output-format", "stream-json", "--verbose", "--allowedTools", "Read,Edit,Bash", "--", prompt],
      env: {
        ...isolatedEnv(place),
        ANTHROPIC_BASE_URL: place.url,
        ANTHROPIC_API_KEY: "sk-ant-bench",
        CLAUDE_CONFIG_DIR: path.join(place.home, ".claude"),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
      },
    }),
    // Its loop offers the task's tools; a title or topic request offers none.
    isMainLoop: (request: RecordedRequest) => {
      const tools = toolNames(request);
      return tools.includes("Read") && tools.includes("Bash");
    },
    sideAnswer: () => textTurn("Bench task"),
    turn: (step: Step, place: Place) => {
      switch (step.kind) {
        case "read":
          return toolTurn("Read", { file_path: path.join(place.ws, step.file) });
        case "edit":
          return toolTurn("Edit", { file_path: path.join(place.ws, step.file), old_string: step.old, new_string: step.new });
        case "command":
          return toolTurn("Bash", { command: step.command, description: "Run the command" });
        case "finish":
          return textTurn(step.text);
      }
    },
  };
}

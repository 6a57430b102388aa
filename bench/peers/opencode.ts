/**
 * opencode as the peers bench runs it: `opencode run --format json` with a provider of its own
 * config (OpenAI-compatible, the scripted model's OpenAI wire), reads, edits and commands allowed,
 * no model list fetched, no update check, no sharing, a home of its own.
 */
import path from "node:path";
import type { RecordedRequest } from "../../test/support/scripted-model-server.js";
import { isolatedEnv, textTurn, toolNames, toolTurn, type Agent, type Place, type Step } from "./agent.js";

export const OPENCODE = { pkg: "opencode-ai", version: "1.18.33", bin: "opencode" };

function config(url: string): unknown {
  return {
    autoupdate: false,
    share: "disabled",
    model: "bench/scripted",
    small_model: "bench/scripted",
    permission: { read: "allow", edit: "allow", bash: "allow" },
    provider: {
      bench: {
        npm: "@ai-sdk/openai-compatible",
        name: "Scripted model",
        options: { baseURL: `${url}/v1`, apiKey: "bench" },
        models: { scripted: { name: "Scripted", tool_call: true, limit: { context: 200_000, output: 8_192 } } },
      },
    },
  };
}

export function opencode(bin: string, version: string): Agent {
  return {
    name: `opencode ${version}`,
    command: (place: Place, prompt: string) => ({
      argv: [bin, "run", "--format", "json", prompt],
      env: {
        ...isolatedEnv(place),
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config(place.url)),
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_SHARE: "1",
      },
    }),
    // Its loop offers the task's tools; the title it asks for first offers none.
    isMainLoop: (request: RecordedRequest) => {
      const tools = toolNames(request);
      return tools.includes("read") && tools.includes("bash");
    },
    sideAnswer: () => textTurn("Bench task"),
    turn: (step: Step, place: Place) => {
      switch (step.kind) {
        case "read":
          return toolTurn("read", { filePath: path.join(place.ws, step.file) });
        case "edit":
          return toolTurn("edit", { filePath: path.join(place.ws, step.file), oldString: step.old, newString: step.new });
        case "command":
          return toolTurn("bash", { command: step.command, description: "Run the command" });
        case "finish":
          return textTurn(step.text);
      }
    },
  };
}

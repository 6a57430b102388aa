/**
 * Cline's CLI as the peers bench runs it: `cline --json` in act mode with its default auto-approval,
 * its provider set beforehand (`cline auth`, untimed) to an OpenAI-compatible one at the scripted
 * model's OpenAI wire, a home of its own. It starts a hub daemon that leaves the process group: the
 * task's runner finds it by its folder, counts its CPU with the task's and kills it.
 */
import type { RecordedRequest } from "../../test/support/scripted-model-server.js";
import path from "node:path";
import { isolatedEnv, textTurn, toolNames, toolTurn, type Agent, type Place, type Step } from "./agent.js";
import { exec, lastLine } from "./install.js";

export const CLINE = { pkg: "cline", version: "3.0.65", bin: "cline" };

export function cline(bin: string, version: string): Agent {
  return {
    name: `Cline ${version}`,
    async prepare(place: Place) {
      const login = await exec(bin, ["auth", "-p", "openai", "-k", "bench", "-m", "scripted", "-b", `${place.url}/v1`], { cwd: place.ws, env: isolatedEnv(place), timeoutMs: 60_000 });
      if (login.code !== 0) throw new Error(`cline auth failed (${login.code}): ${lastLine(login.output)}`);
    },
    command: (place: Place, prompt: string) => ({ argv: [bin, "--json", "--cwd", place.ws, prompt], env: isolatedEnv(place) }),
    isMainLoop: (request: RecordedRequest) => {
      const tools = toolNames(request);
      return tools.includes("read_files") && tools.includes("run_commands");
    },
    sideAnswer: () => textTurn("Bench task"),
    turn: (step: Step, place: Place) => {
      switch (step.kind) {
        case "read":
          return toolTurn("read_files", { files: [{ path: path.join(place.ws, step.file) }] });
        case "edit":
          return toolTurn("editor", { path: path.join(place.ws, step.file), old_text: step.old, new_text: step.new });
        case "command":
          return toolTurn("run_commands", { commands: [step.command] });
        case "finish":
          return textTurn(step.text);
      }
    },
  };
}

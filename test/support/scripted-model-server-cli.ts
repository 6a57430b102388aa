/**
 * Serves a scripted model over HTTP for tests that drive Cairn as a separate process (tmux, e2e).
 *
 *   tsx test/support/scripted-model-server-cli.ts --script turns.json
 *
 * turns.json is an array of ScriptedTurn (or `{ "turns": [...] }`). Prints `{"url":"http://127.0.0.1:PORT"}`
 * as one line on stdout, then serves until SIGINT/SIGTERM.
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { startScriptedModelServer, type ScriptedTurn } from "./scripted-model-server.js";

const { values } = parseArgs({ options: { script: { type: "string" } } });
if (values.script === undefined) {
  process.stderr.write("usage: tsx test/support/scripted-model-server-cli.ts --script turns.json\n");
  process.exit(2);
}

const turns = parseScript(await readFile(values.script, "utf8"), values.script);
const server = await startScriptedModelServer({ turns });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

const stop = () => void server.close().then(() => process.exit(0));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);

function parseScript(text: string, path: string): ScriptedTurn[] {
  const script: unknown = JSON.parse(text);
  if (Array.isArray(script)) return script as ScriptedTurn[];
  if (typeof script === "object" && script !== null && "turns" in script && Array.isArray(script.turns)) {
    return script.turns as ScriptedTurn[];
  }
  throw new Error(`${path} must hold a JSON array of turns or {"turns": [...]}; see ScriptedTurn in scripted-model/types.ts`);
}

import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startModelEndpointServer, type ModelEndpointServer } from "../support/model-endpoint-server.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

// A model endpoint answers what its models take (OpenRouter's /models here); one that lies says a
// priced model is free, its context window is a trillion tokens, its name holds terminal escapes
// and a path. What it says describes the model, never the person's limits: --max-budget-usd still
// counts by the price Cairn knows, and nothing it says reaches the terminal or a path.

const fx = useE2eFixture();
let endpoint: ModelEndpointServer | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

const model = "anthropic/claude-sonnet-4.5";
const env = () => cleanEnv({ CAIRN_HOME: fx.home.dir, OPENROUTER_API_KEY: "sk-or-v1-test" });
// A million tokens in: three dollars at Claude Sonnet's price, far over a budget of one.
const costly = (turn: ScriptedTurn): ScriptedTurn => ({ ...turn, usage: { input_tokens: 1_000_000, output_tokens: 10 } });
const turns: ScriptedTurn[] = [
  costly({ content: [{ type: "tool_use", name: "read_file", input: { path: "README.md" } }] }),
  costly({ content: [{ type: "tool_use", name: "attempt_completion", input: { result: "read it" } }] }),
];

async function lyingOpenrouter(): Promise<string[]> {
  writeFileSync(path.join(fx.workspace.dir, "README.md"), "a project\n");
  fx.server = await startScriptedModelServer({ turns });
  endpoint = await startModelEndpointServer({ openrouterModels: "openrouter-models-lying.json", chat: fx.server.url });
  return ["--provider", "openrouter", "--base-url", `${endpoint.url}/api/v1`, "--model", model];
}

it("an endpoint that says a priced model is free does not hold off --max-budget-usd; the person's own price does", async () => {
  const args = await lyingOpenrouter();
  const run = await runCairn(["run", ...args, "--cwd", fx.workspace.dir, "--max-budget-usd", "1", "--json", "read the readme"], { env: env() });
  expect(endpoint!.asked).toContain("GET /api/v1/models");
  expect(run.events.at(-1), run.stderr).toMatchObject({ subtype: "error_max_budget_usd", is_error: true });
  expect(fx.server.requests).toHaveLength(1);

  // What the endpoint says of the rest stands (it is the model's to describe), and is shown plainly.
  const shown = await runCairn(["models", ...args, "--cwd", fx.workspace.dir, "--json"], { env: env() });
  const listed = JSON.parse(shown.stdout) as { models: Array<Record<string, { value: unknown; source: string }>> };
  expect(listed.models[0]).toMatchObject({ images: { value: true, source: "discovered" }, pricing: { source: "built-in" } });
  const table = await runCairn(["models", ...args, "--cwd", fx.workspace.dir], { env: env() });
  expect(table.code, table.stderr).toBe(0);
  expect(table.stdout).not.toContain("\u001b");
  // The cache is named by a hash of the endpoint, whatever ids it lists.
  expect(readdirSync(path.join(fx.home.dir, "cache", "models"))).toEqual([expect.stringMatching(/^openrouter-[0-9a-f]{16}\.json$/)]);
  expect(existsSync(path.join(fx.home.dir, "escaped"))).toBe(false);

  // The person says it is free (settings.json): then the budget has nothing to count, as they chose.
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ models: { [model]: { pricing: { input: 0, output: 0 } } } }));
  const free = await runCairn(["run", ...args, "--cwd", fx.workspace.dir, "--max-budget-usd", "1", "--json", "read the readme"], { env: env() });
  expect(free.code, free.stderr).toBe(0);
  expect(free.events.at(-1)).toMatchObject({ subtype: "success" });
});

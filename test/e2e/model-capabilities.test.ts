import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startModelEndpointServer, type ModelEndpointOptions, type ModelEndpointServer } from "../support/model-endpoint-server.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

const fx = useE2eFixture();
let endpoint: ModelEndpointServer | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/** The smallest valid PNG: 1×1, one transparent pixel. */
const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
const model = "qwen2.5vl:7b";
const done: ScriptedTurn = { content: [{ type: "text", text: '<attempt_completion><result>a pixel</result></attempt_completion>' }] };
const env = () => cleanEnv({ CAIRN_HOME: fx.home.dir });
const settings = (json: unknown) => writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify(json));

/** An Ollama-compatible endpoint: the scripted model server behind /v1, and /api/show as `ollama` says. */
async function ollama(o: Omit<ModelEndpointOptions, "chat"> = {}, turns: ScriptedTurn[] = [done]): Promise<string[]> {
  fx.server = await startScriptedModelServer({ turns });
  endpoint = await startModelEndpointServer({ ...o, chat: fx.server.url });
  return ["--provider", "ollama", "--base-url", `${endpoint.url}/v1`, "--model", model];
}

async function runWithImage(args: string[]) {
  writeFileSync(path.join(fx.workspace.dir, "shot.png"), png);
  return runCairn(["run", ...args, "--cwd", fx.workspace.dir, "--sandbox", "off", "--image", path.join(fx.workspace.dir, "shot.png"), "what is in the picture?"], { env: env() });
}

const sentPicture = () => JSON.stringify(fx.server.requests[0]?.body ?? null).includes(png.toString("base64"));

describe("an image for a model the built-in list does not know, on an Ollama endpoint", () => {
  it("is refused by default, with one line that says how to declare the model takes images", async () => {
    const args = await ollama();
    const run = await runWithImage(args);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `cairn: ${model} does not take images; leave the images out, choose a model that does (e.g. claude-sonnet-4-5, gpt-5), or, if it does, say so in settings.json: "models": {"${model}": {"images": true}}.`,
    );
    expect(fx.server.requests).toHaveLength(0);
  });

  it("is sent once settings.json says the model takes images", async () => {
    settings({ models: { [model]: { images: true } } });
    const args = await ollama();
    const run = await runWithImage(args);
    expect(run.code, run.stderr).toBe(0);
    expect(sentPicture()).toBe(true);
  });

  it("is sent when Ollama's /api/show lists vision, and the endpoint is asked once an hour, not every run", async () => {
    const args = await ollama({ ollamaShow: { [model]: "ollama-show-qwen2.5vl.json" } }, [done, done]);
    const run = await runWithImage(args);
    expect(run.code, run.stderr).toBe(0);
    expect(sentPicture()).toBe(true);
    expect(endpoint!.asked).toEqual([`POST /api/show ${model}`]);
    expect(readdirSync(path.join(fx.home.dir, "cache", "models"))).toHaveLength(1);
    const again = await runWithImage(args);
    expect(again.code, again.stderr).toBe(0);
    expect(endpoint!.asked).toHaveLength(1);
  });

  it("settings beat the endpoint: images false refuses what /api/show calls vision", async () => {
    settings({ models: { [model]: { images: false } } });
    const args = await ollama({ ollamaShow: { [model]: "ollama-show-qwen2.5vl.json" } });
    const run = await runWithImage(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${model} does not take images`);
  });

  it("an endpoint that hangs on /api/show costs a few seconds and one notice, and the run goes on", async () => {
    const args = await ollama({ ollamaShow: { [model]: "ollama-show-qwen2.5vl.json" }, hang: true });
    const run = await runCairn(["run", ...args, "--cwd", fx.workspace.dir, "--sandbox", "off", "--json", "say hi"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const notices = run.events.filter((e) => e.type === "system" && e.subtype === "notice" && String(e.message).includes("did not say what"));
    expect(notices.map((e) => e.message)).toEqual([
      `ollama at ${endpoint!.url}/v1 did not say what ${model} can do (no answer within 3 s); using settings.json's "models" and built-in guesses.`,
    ]);
  });
});

describe("native tools from settings and from the endpoint", () => {
  it("an Ollama model gets the XML protocol by default, and native tool calls when settings say nativeTools", async () => {
    const args = await ollama({}, [done]);
    const xml = await runCairn(["run", ...args, "--cwd", fx.workspace.dir, "--sandbox", "off", "say hi"], { env: env() });
    expect(xml.code, xml.stderr).toBe(0);
    expect((fx.server.requests[0]!.body as { tools?: unknown }).tools).toBeUndefined();

    settings({ models: { [model]: { nativeTools: true } } });
    await fx.server.close();
    await endpoint!.close();
    const native = await ollama({}, [{ content: [{ type: "tool_use", name: "attempt_completion", input: { result: "hi" } }] }]);
    const run = await runCairn(["run", ...native, "--cwd", fx.workspace.dir, "--sandbox", "off", "say hi"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect((fx.server.requests[0]!.body as { tools?: Array<{ function: { name: string } }> }).tools?.map((t) => t.function.name)).toContain("attempt_completion");
  });
});

describe("settings.json's models", () => {
  it("a wrong type is one line naming the file and the key", async () => {
    settings({ models: { [model]: { images: "yes" } } });
    const args = await ollama();
    const run = await runCairn(["run", ...args, "--cwd", fx.workspace.dir, "say hi"], { env: env() });
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(path.join(fx.home.dir, "settings.json"));
    expect(lines[0]).toContain(`models.${model}.images`);
  });

  it("the workspace's trusted settings describe a model too, and a wrong type there names that file and key", async () => {
    const file = path.join(fx.workspace.dir, ".cairn", "settings.json");
    mkdirSync(path.dirname(file));
    writeFileSync(file, JSON.stringify({ models: { [model]: { images: true } } }));
    const trusted = await runCairn(["trust", "--cwd", fx.workspace.dir], { env: env() });
    expect(trusted.code, trusted.stderr).toBe(0);
    const args = await ollama();
    const run = await runWithImage(args);
    expect(run.code, run.stderr).toBe(0);
    expect(sentPicture()).toBe(true);

    writeFileSync(file, JSON.stringify({ models: { [model]: { contextWindow: "big" } } }));
    expect((await runCairn(["trust", "--cwd", fx.workspace.dir], { env: env() })).code).toBe(0);
    const wrong = await runCairn(["run", ...args, "--cwd", fx.workspace.dir, "say hi"], { env: env() });
    expect(wrong.code).toBe(2);
    const lines = wrong.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(file);
    expect(lines[0]).toContain(`models.${model}.contextWindow`);
  });
});

describe("cairn models", () => {
  it("without ids, lists the models the endpoint has beside the task's, each described by the endpoint", async () => {
    const args = await ollama({ ollamaTags: "ollama-tags.json", ollamaShow: { [model]: "ollama-show-qwen2.5vl.json" } });
    const run = await runCairn(["models", ...args, "--cwd", fx.workspace.dir, "--json"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const listed = JSON.parse(run.stdout) as { models: Array<{ id: string; role?: string; images: { value: unknown; source: string } }> };
    expect(listed.models.map((m) => [m.id, m.role ?? "", m.images.value, m.images.source])).toEqual([
      [model, "the task's model", true, "discovered"],
      ["qwen2.5-coder:14b", "", false, "default"],
    ]);
    expect(endpoint!.asked).toEqual(["GET /api/tags", `POST /api/show ${model}`, "POST /api/show qwen2.5-coder:14b"]);
    // The terminal's table shows a listed name as Ollama gave it, and no escape sequence.
    const table = await runCairn(["models", ...args, "--cwd", fx.workspace.dir], { env: env() });
    expect(table.stdout).toContain("\nqwen2.5-coder:14b\n");
    expect(table.stdout).not.toContain("\u001b");
  });

  it("shows each capability and where it came from: discovered, settings, built-in, default", async () => {
    settings({ models: { [model]: { contextWindow: 32_768, pricing: { input: 0, output: 0 } }, "claude-sonnet-4-5": { images: false } } });
    const args = await ollama({ ollamaShow: { [model]: "ollama-show-qwen2.5vl.json" } });
    const run = await runCairn(["models", ...args, "--cwd", fx.workspace.dir, "--json"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const listed = JSON.parse(run.stdout) as { provider: string; models: Array<Record<string, unknown>> };
    expect(listed.provider).toBe("ollama");
    expect(listed.models[0]).toEqual({
      id: model,
      role: "the task's model",
      images: { value: true, source: "discovered" },
      contextWindow: { value: 32_768, source: "settings" },
      maxOutput: { value: 8_192, source: "default" },
      nativeTools: { value: false, source: "discovered" },
      reasoning: { value: false, source: "discovered" },
      pricing: { value: { input: 0, output: 0 }, source: "settings" },
    });
    expect(listed.models[1]).toMatchObject({ id: "claude-sonnet-4-5", images: { value: false, source: "settings" }, contextWindow: { value: 200_000, source: "built-in" } });

    const table = await runCairn(["models", ...args, "--cwd", fx.workspace.dir, model], { env: env() });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/images +yes +discovered/);
    expect(table.stdout).toMatch(/context window +32,768 +settings/);
    expect(table.stdout).toMatch(/native tools +no \(XML protocol\) +discovered/);
  });
});

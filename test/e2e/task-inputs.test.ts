import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type RecordedRequest, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

const fx = useE2eFixture((fx) => {
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const anthropic = () => ["--provider", "anthropic", "--base-url", fx.server.url];
const firstMessage = (r: RecordedRequest) => (r.body as { messages: Array<{ content: unknown }> }).messages[0]!;
const lastMessage = (r: RecordedRequest) => JSON.stringify((r.body as { messages: unknown[] }).messages.at(-1));
const taskIds = () => readdirSync(path.join(fx.home.dir, "tasks")).filter((n) => n !== "index.json");
/** The smallest valid PNG: 1×1, one transparent pixel. */
const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

describe("workflows with $ARGUMENTS and $1…", () => {
  it("puts the arguments where the workflow names them, instead of appending them", async () => {
    mkdirSync(path.join(fx.workspace.dir, ".cairnrules", "workflows"), { recursive: true });
    writeFileSync(path.join(fx.workspace.dir, ".cairnrules", "workflows", "release.md"), "Release version $1 to the $2 channel.\nNotes for the changelog: $ARGUMENTS\n");
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "released" })] });
    const run = await runCairn(["run", ...anthropic(), "--cwd", fx.workspace.dir, "/release 2.1.0 beta"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const first = JSON.stringify(firstMessage(fx.server.requests[0]!));
    expect(first).toContain("Release version 2.1.0 to the beta channel.\\nNotes for the changelog: 2.1.0 beta");
    expect(first).not.toContain("$ARGUMENTS");
    expect(first).not.toContain("Arguments: 2.1.0");
  });
});

describe("@terminal headless", () => {
  it("is the output of the task's last command, also after a resume", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        call("execute_command", { command: "echo first-output; echo BUILD-FAILED-AT-LINE-42 >&2; exit 3", requires_approval: false }),
        call("read_file", { path: "." }),
        call("ask_followup_question", { question: "Shall I fix it?" }),
        call("attempt_completion", { result: "looked at the output" }),
      ],
    });
    const first = await runCairn(["run", ...anthropic(), "--cwd", fx.workspace.dir, "--auto-approve", "read,all-commands", "build it"], { env: env() });
    expect(first.code, first.stderr).toBe(3);
    const resumed = await runCairn(["resume", taskIds()[0]!, "what does @terminal say?", ...anthropic(), "--json"], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    const asked = lastMessage(fx.server.requests[3]!);
    expect(asked).toContain("<terminal_output>");
    expect(asked).toContain("BUILD-FAILED-AT-LINE-42");
    expect(resumed.events.filter((e) => e.type === "system" && e.subtype === "notice" && String(e.message).includes("@terminal"))).toEqual([]);
  });

  it("says so in one line when the task has run no command yet", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "ok" })] });
    const run = await runCairn(["run", ...anthropic(), "--cwd", fx.workspace.dir, "--json", "explain @terminal"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.find((e) => e.type === "system" && e.subtype === "notice")).toMatchObject({ message: "@terminal was not expanded: no command output yet in this session." });
    expect(JSON.stringify(firstMessage(fx.server.requests[0]!))).toContain("[@terminal was not expanded: no command output yet in this session.]");
  });
});

describe("images", () => {
  it("an @image mention reaches a model that takes images as a picture", async () => {
    writeFileSync(path.join(fx.workspace.dir, "shot.png"), png);
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "a pixel" })] });
    const run = await runCairn(["run", ...anthropic(), "--cwd", fx.workspace.dir, "what is in @/shot.png?"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const content = firstMessage(fx.server.requests[0]!).content as Array<Record<string, unknown>>;
    expect(content).toContainEqual(expect.objectContaining({ type: "image", source: { type: "base64", media_type: "image/png", data: png.toString("base64") } }));
    expect(JSON.stringify(content)).toContain("[Image shot.png (");
  });

  it("a model that does not take images gets no picture, and the person one line saying why", async () => {
    writeFileSync(path.join(fx.workspace.dir, "shot.png"), png);
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "cannot see it" })] });
    const args = ["run", "--provider", "openai-compatible", "--base-url", `${fx.server.url}/v1`, "--model", "text-only-model", "--cwd", fx.workspace.dir, "--json", "what is in @/shot.png?"];
    const run = await runCairn(args, { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.stringify(fx.server.requests[0]!.body);
    expect(body).not.toContain("image_url");
    expect(body).not.toContain(png.toString("base64"));
    const notice = run.events.find((e) => e.type === "system" && e.subtype === "notice");
    expect(notice?.message).toBe('@/shot.png was not expanded: "shot.png" is an image, and the current model does not take images; choose one that does (e.g. claude-sonnet-4-5, gpt-5).');
  });
});

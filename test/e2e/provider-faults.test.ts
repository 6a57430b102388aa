/**
 * Faults a real provider, proxy or network produces, through the real CLI: the ones that should
 * recover do (a clean close without a finish reason, a stall), and the rest fail at once with one
 * line that says what failed and what to do (a local server not running, bad keys, a wrong model,
 * an HTML or empty answer, a host that does not resolve, credentials in a base URL).
 */
import { readdirSync, readFileSync, statSync, writeFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { cleanEnv, runCairn, xmlCall, type CliRun } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";

const fx = useE2eFixture((f) => {
  // Fast backoff so retries take milliseconds; the policy itself is unit-tested.
  writeFileSync(path.join(f.home.dir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 20, maxDelayMs: 200 } }));
});

const env = (extra: Record<string, string> = {}) => cleanEnv({ CAIRN_HOME: fx.home.dir, ...extra });
const retries = (run: CliRun) => run.events.filter((e) => e.type === "system" && e.subtype === "api_retry");
const complete = (result: string): ScriptedTurn => ({ content: [{ type: "tool_use", name: "attempt_completion", input: { result } }] });
const longText = "Let me look at the repository before changing anything in it. ".repeat(4);

async function serve(...turns: ScriptedTurn[]) {
  fx.server = await startScriptedModelServer({ turns });
  return fx.server;
}

/** `cairn run` against an OpenAI-format endpoint (openai-compatible unless another provider is given). */
function run(extra: string[], options: { provider?: string; baseUrl?: string; env?: Record<string, string>; timeoutMs?: number } = {}) {
  const args = ["run", "--provider", options.provider ?? "openai-compatible", "--model", "scripted-model", "--cwd", fx.workspace.dir];
  args.push("--base-url", options.baseUrl ?? `${fx.server.url}/v1`);
  return runCairn([...args, ...extra], { env: options.env ?? env(), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) });
}

/**
 * What a person sees when a headless run fails: exactly one error line, no stack trace, no `{}`.
 * Returns that line.
 */
function theFailureLine(result: CliRun): string {
  expect(result.stderr).not.toContain("    at ");
  expect(result.stderr).not.toContain("{}");
  expect(result.stderr).not.toMatch(/AI_[A-Za-z]+Error/);
  const lines = result.stderr.split("\n").filter((line) => line.startsWith("✗ ") || line.startsWith("cairn: "));
  expect(lines, result.stderr).toHaveLength(1);
  return lines[0]!;
}

/** A local port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile());
}

describe("a stream that closes cleanly without a finish reason", () => {
  it("is retried on openai-compatible and the task completes", async () => {
    const server = await serve(
      { content: [{ type: "text", text: longText }, { type: "tool_use", name: "attempt_completion", input: { result: "never seen" } }], cutAfterChars: 60, cutMode: "end" },
      complete("done after the proxy closed the stream"),
    );

    const result = await run(["--json", "finish the task"]);

    expect(result.code, result.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(retries(result)).toHaveLength(1);
    expect(result.events.some((e) => e.type === "stream_discarded")).toBe(true);
    expect(result.events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "done after the proxy closed the stream" });
  });

  it("is retried on ollama (xml protocol) too", async () => {
    const server = await serve(
      { content: [{ type: "text", text: `${longText}\n${xmlCall("attempt_completion", { result: "never seen" })}` }], cutAfterChars: 80, cutMode: "end" },
      { content: [{ type: "text", text: xmlCall("attempt_completion", { result: "ollama recovered" }) }] },
    );

    const result = await run(["--json", "finish the task"], { provider: "ollama" });

    expect(result.code, result.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(retries(result)).toHaveLength(1);
    expect(result.events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "ollama recovered" });
  });

  it("keeps a complete tool call and never runs the half-written one after it", async () => {
    const first = { path: "kept.txt", content: "written before the close" };
    const second = { path: "half.txt", content: "this call is cut off in the middle of its arguments" };
    const cutAt = JSON.stringify(first).length + 20;
    const server = await serve(
      {
        content: [
          { type: "tool_use", name: "write_to_file", input: first },
          { type: "tool_use", name: "write_to_file", input: second },
        ],
        chunkSize: 8,
        cutAfterChars: cutAt,
        cutMode: "end",
      },
      complete("kept the complete call"),
    );

    const result = await run(["--json", "--auto-approve", "edit", "write two files"]);

    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "kept.txt"), "utf8")).toBe("written before the close");
    expect(existsSync(path.join(fx.workspace.dir, "half.txt"))).toBe(false);
    // The model is told its reply was cut after the last complete call, and goes on from there.
    expect(JSON.stringify(server.requests[1]!.body)).toContain("cut off by a connection error");
  });
});

describe("a provider that stalls", () => {
  it("is retried after --request-timeout, before the first byte and mid-stream, and the task completes", async () => {
    const server = await serve(
      { delayMs: 120_000, content: [{ type: "text", text: "too late" }] },
      { content: [{ type: "text", text: longText }], cutAfterChars: 30, cutMode: "stall" },
      complete("done after two stalls"),
    );

    const result = await run(["--json", "--request-timeout", "1", "finish the task"]);

    expect(result.code, result.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    const retried = retries(result);
    expect(retried).toHaveLength(2);
    for (const event of retried) expect(event.error).toBe(`No response from ${server.url}/v1 for 1 s; check the provider or raise --request-timeout.`);
    expect(result.events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "done after two stalls" });
  });

  it("gives up with one line naming the URL and the flag when every attempt stalls", async () => {
    const server = await serve({ delayMs: 120_000 }, { delayMs: 120_000 }, { delayMs: 120_000 }, complete("never reached"));

    const result = await run(["--request-timeout", "1", "--retries", "2", "finish the task"], { timeoutMs: 30_000 });

    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(3);
    expect(theFailureLine(result)).toBe(`✗ No response from ${server.url}/v1 for 1 s; check the provider or raise --request-timeout.`);
  });

  it("takes the timeout from settings.json when the flag is not given", async () => {
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ requestTimeout: 1, retry: { maxRetries: 0 } }));
    const server = await serve({ delayMs: 120_000 }, complete("never reached"));

    const result = await run(["finish the task"]);

    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(theFailureLine(result)).toContain(`No response from ${server.url}/v1 for 1 s`);
  });

  it("refuses a --request-timeout that is not a number of seconds", async () => {
    await serve();
    const result = await run(["--request-timeout", "soon", "finish the task"]);
    expect(result.code).toBe(2);
    expect(theFailureLine(result)).toBe('cairn: --request-timeout needs a number of seconds above 0, got "soon".');
  });
});

describe("a local model server that is not running", () => {
  it.each([
    ["ollama", (port: number) => `✗ Connection refused: is Ollama running at http://127.0.0.1:${port}? Start it with \`ollama serve\` or pass --base-url.`],
    ["lmstudio", (port: number) => `✗ Connection refused: is LM Studio's server running at http://127.0.0.1:${port}? Start it with \`lms server start\` (or from LM Studio's Developer tab) or pass --base-url.`],
    ["openai-compatible", (port: number) => `✗ Connection refused: is the server running at http://127.0.0.1:${port}/v1? Start it or pass the right --base-url.`],
  ])("%s: fails at once with a hint and no retries", async (provider, expected) => {
    const port = await closedPort();
    const baseUrl = `http://127.0.0.1:${port}/v1`;

    const json = await run(["--json", "finish the task"], { provider, baseUrl });
    const plain = await run(["finish the task"], { provider, baseUrl });

    expect(json.code).toBe(1);
    expect(retries(json)).toHaveLength(0);
    expect(json.events.find((e) => e.type === "error")).toMatchObject({ kind: "unreachable" });
    expect(plain.code).toBe(1);
    expect(theFailureLine(plain)).toBe(expected(port));
  });
});

describe("provider errors are one line that says what to do", () => {
  it("401: names the variable that holds the key", async () => {
    const server = await serve({ fault: { status: 401 } });
    const result = await runCairn(["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", fx.workspace.dir, "go"], {
      env: env({ ANTHROPIC_API_KEY: "sk-wrong" }),
    });
    expect(result.code).toBe(1);
    expect(theFailureLine(result)).toMatch(/^✗ anthropic \(http:\/\/127\.0\.0\.1:\d+\/v1\) rejected the API key \(HTTP 401: .+\); set ANTHROPIC_API_KEY or CAIRN_API_KEY to a valid key\.$/);
  });

  it("403: names the variable and the model", async () => {
    const server = await serve({ fault: { status: 403, message: "Your key may not use this model." } });
    const result = await run(["finish the task"], { provider: "openai", env: env({ OPENAI_API_KEY: "sk-limited" }) });
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(theFailureLine(result)).toMatch(/refused the request \(HTTP 403: Your key may not use this model\.\); check that the API key in OPENAI_API_KEY or CAIRN_API_KEY may use model "scripted-model"\.$/);
  });

  it("404: names the model and the provider", async () => {
    const server = await serve({ fault: { status: 404 } });
    const result = await run(["finish the task"]);
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(theFailureLine(result)).toBe(
      `✗ Model "scripted-model" was not found at openai-compatible (HTTP 404 from ${server.url}/v1: The model does not exist or you do not have access to it.); check --model, and that --base-url is the API root.`,
    );
  });

  it("an HTML page with status 200 (a captive portal, a wrong base URL): fails at once", async () => {
    const server = await serve(
      { fault: { status: 200, body: "<!DOCTYPE html><html><body><h1>Welcome to Airport Wi-Fi</h1></body></html>", contentType: "text/html; charset=utf-8" } },
      complete("never reached"),
    );
    const result = await run(["finish the task"]);
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(theFailureLine(result)).toBe(`✗ The server at ${server.url}/v1 answered with an HTML page, not an API response; check --base-url.`);
  });

  it("an empty 200: retried like a cut stream, then one line", async () => {
    const server = await serve({ fault: { status: 200, body: "" } }, { fault: { status: 200, body: "" } });
    const result = await run(["--retries", "1", "finish the task"]);
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(theFailureLine(result)).toBe(`✗ The server at ${server.url}/v1 answered with an empty response, not an API reply; check --base-url and the provider.`);
  });

  it("a host that does not resolve: fails at once naming the host", async () => {
    await serve();
    const result = await run(["--json", "finish the task"], { baseUrl: "http://model-server.invalid/v1" });
    const plain = await run(["finish the task"], { baseUrl: "http://model-server.invalid/v1" });
    expect(result.code).toBe(1);
    expect(retries(result)).toHaveLength(0);
    expect(theFailureLine(plain)).toBe(
      "✗ Cannot resolve the host model-server.invalid of http://model-server.invalid/v1 (DNS lookup failed); check --base-url and the network connection.",
    );
  });
});

describe("a base URL with credentials in it", () => {
  const secret = "hunter2-s3cret";
  const withCredentials = (server: { url: string }) => server.url.replace("http://", `http://alice:${secret}@`) + "/v1";

  function expectNoCredentials(result: CliRun): void {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
    expect(result.stderr).not.toContain("alice");
    // settings.json is where one of the runs below was given the URL; everything Cairn wrote is checked.
    for (const file of filesUnder(fx.home.dir).filter((f) => f !== path.join(fx.home.dir, "settings.json"))) {
      expect(readFileSync(file, "utf8"), file).not.toContain(secret);
    }
  }

  it("is refused before any request, from --base-url, CAIRN_BASE_URL or settings.json, without printing them", async () => {
    const server = await serve(complete("never reached"));
    const url = withCredentials(server);

    const fromFlag = await run(["--json", "finish the task"], { baseUrl: url });
    const fromEnv = await runCairn(["run", "--provider", "openai-compatible", "--model", "m", "--cwd", fx.workspace.dir, "go"], {
      env: env({ CAIRN_BASE_URL: url }),
    });
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ provider: "openai-compatible", model: "m", baseUrl: url }));
    const fromSettings = await runCairn(["run", "--cwd", fx.workspace.dir, "go"], { env: env() });

    for (const result of [fromFlag, fromEnv, fromSettings]) {
      expect(result.code).toBe(2);
      expect(theFailureLine(result)).toBe(
        `cairn: The base URL http://***@127.0.0.1:${new URL(server.url).port}/v1 has a user name or password in it: remove them, and put the key in CAIRN_API_KEY (or the provider's own key variable) instead.`,
      );
      expectNoCredentials(result);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("positive control: the same server without credentials in the URL works", async () => {
    const server = await serve(complete("reached"));
    const result = await run(["finish the task"]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
  });
});

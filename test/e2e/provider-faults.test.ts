/**
 * Faults a real provider, proxy or network produces, through the real CLI: the ones that should
 * recover do (a clean close without a finish reason, a stall), and the rest fail at once with one
 * line that says what failed and what to do (a local server not running, bad keys, a wrong model,
 * an HTML or empty answer, a host that does not resolve, credentials in a base URL), and so do the
 * settings no retry can cure: a port fetch refuses, https:// to a plain server and http:// to a TLS
 * one, a certificate Node does not trust, a port that does not speak HTTP, a key that cannot be sent.
 */
import { readdirSync, readFileSync, statSync, writeFileSync, existsSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { cleanEnv, runCairn, xmlCall, type CliRun } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { selfSigned } from "../support/self-signed-cert.js";

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
    expect(server.requests).toHaveLength(1);
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

/** Retry notices as a person sees them on stderr without --json (`↻ model request failed …`). */
const retryNotices = (run: CliRun) => run.stderr.split("\n").filter((line) => line.includes("model request failed"));


/** A listening server whose connections are counted: each attempt Cairn makes is one connection. */
type Counted = { port: number; connections: () => number; close: () => Promise<void> };

async function counted(server: Server): Promise<Counted> {
  let connections = 0;
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** TLS in front of the scripted model server, as a reverse proxy with a self-signed certificate is. */
function tlsProxyTo(target: { url: string }): Promise<Counted> {
  const targetPort = Number(new URL(target.url).port);
  return counted(
    createTlsServer({ key: selfSigned.key, cert: selfSigned.cert }, (client) => {
      const upstream = connect(targetPort, "127.0.0.1");
      client.pipe(upstream).pipe(client);
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
    }),
  );
}

describe("settings that no retry can cure fail on the first attempt, in one line", () => {
  it.each([1, 6000, 6665])("a port fetch refuses (%i): names the port and what to do", async (port) => {
    const baseUrl = `http://127.0.0.1:${port}/v1`;
    const plain = await run(["finish the task"], { provider: "openai", baseUrl, env: env({ OPENAI_API_KEY: "sk-test" }) });

    expect(plain.code).toBe(1);
    expect(retryNotices(plain)).toEqual([]);
    expect(theFailureLine(plain)).toBe(
      `✗ Cannot use port ${port} of ${baseUrl}: Node's fetch refuses to connect to it (a "bad port", reserved for another protocol); run the server on another port, e.g. 8000, and pass that in --base-url.`,
    );
  });

  it("a port fetch refuses: --json shows one error of kind config and no api_retry", async () => {
    const json = await run(["--json", "finish the task"], { baseUrl: "http://localhost:6000/v1" });
    expect(json.code).toBe(1);
    expect(retries(json)).toHaveLength(0);
    expect(json.events.find((e) => e.type === "error")).toMatchObject({ kind: "config" });
  });

  it("https:// to a plain http server: one connection, and the http:// URL to use instead", async () => {
    const plainServer = await counted(createServer((socket) => socket.on("data", () => socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"))));
    try {
      const baseUrl = `https://127.0.0.1:${plainServer.port}/v1`;
      const result = await run(["finish the task"], { baseUrl });

      expect(result.code).toBe(1);
      expect(plainServer.connections()).toBe(1);
      expect(retryNotices(result)).toEqual([]);
      expect(theFailureLine(result)).toBe(
        `✗ ${baseUrl} does not answer in TLS, so https:// cannot work there (ERR_SSL_WRONG_VERSION_NUMBER); if it is a plain http server, pass http://127.0.0.1:${plainServer.port}/v1 to --base-url.`,
      );
    } finally {
      await plainServer.close();
    }
  });

  it("a self-signed certificate: one connection, and NODE_EXTRA_CA_CERTS, which the positive control shows works", async () => {
    const server = await serve(complete("reached through TLS"));
    const proxy = await tlsProxyTo(server);
    try {
      const baseUrl = `https://127.0.0.1:${proxy.port}/v1`;
      const refused = await run(["finish the task"], { baseUrl });

      expect(refused.code).toBe(1);
      expect(proxy.connections()).toBe(1);
      expect(server.requests).toHaveLength(0);
      expect(retryNotices(refused)).toEqual([]);
      expect(theFailureLine(refused)).toBe(
        `✗ The TLS certificate of 127.0.0.1:${proxy.port} was refused (self-signed certificate, DEPTH_ZERO_SELF_SIGNED_CERT); if the server uses a certificate of your own CA, point NODE_EXTRA_CA_CERTS at that CA's certificate file; otherwise check --base-url.`,
      );

      const caFile = path.join(fx.home.dir, "proxy-ca.pem");
      writeFileSync(caFile, selfSigned.cert);
      const trusted = await run(["finish the task"], { baseUrl, env: env({ NODE_EXTRA_CA_CERTS: caFile }) });
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(server.requests).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it("http:// to a server that speaks TLS: the request and one handshake to check, then the https:// URL", async () => {
    const server = await serve(complete("never reached"));
    const proxy = await tlsProxyTo(server);
    try {
      const baseUrl = `http://127.0.0.1:${proxy.port}/v1`;
      const result = await run(["finish the task"], { baseUrl });

      expect(result.code).toBe(1);
      // One plain request, closed by the TLS server, and the one handshake that tells why; a retry would add two more.
      expect(proxy.connections()).toBe(2);
      expect(server.requests).toHaveLength(0);
      expect(retryNotices(result)).toEqual([]);
      expect(theFailureLine(result)).toBe(
        `✗ ${baseUrl} speaks TLS, so plain http:// cannot work there (it closed the connection, UND_ERR_SOCKET); pass https://127.0.0.1:${proxy.port}/v1 to --base-url.`,
      );
    } finally {
      await proxy.close();
    }
  });

  it("a port where something other than HTTP answers: one connection, and the port to check", async () => {
    const ssh = await counted(createServer((socket) => socket.end("SSH-2.0-OpenSSH_9.6\r\n")));
    try {
      const baseUrl = `http://127.0.0.1:${ssh.port}/v1`;
      const result = await run(["finish the task"], { baseUrl });

      expect(result.code).toBe(1);
      expect(ssh.connections()).toBe(1);
      expect(retryNotices(result)).toEqual([]);
      expect(theFailureLine(result)).toBe(`✗ The server at ${baseUrl} does not answer in HTTP (HPE_INVALID_CONSTANT); check the host and port in --base-url.`);
    } finally {
      await ssh.close();
    }
  });

  it("an API key with a pasted character or line break: refused before any request, without printing the key", async () => {
    const server = await serve(complete("never reached"));
    for (const [key, problem] of [
      ["sk-pasted…key-7f3a", "the character U+2026 at position 10"],
      ["sk-first-half\nsk-second-7f3a", "a line break at position 14"],
    ] as const) {
      const result = await run(["finish the task"], { provider: "openai", env: env({ OPENAI_API_KEY: key }) });
      expect(result.code).toBe(2);
      expect(theFailureLine(result)).toBe(`cairn: The API key for openai (from OPENAI_API_KEY or CAIRN_API_KEY) has ${problem}, which cannot be sent in an HTTP header; copy the key again.`);
      expect(result.stderr + result.stdout).not.toContain("7f3a");
    }
    expect(server.requests).toHaveLength(0);

    // Positive control: the same run with a plain key reaches the server.
    const ok = await run(["finish the task"], { provider: "openai", env: env({ OPENAI_API_KEY: "sk-plain-7f3a" }) });
    expect(ok.code, ok.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
  });
});

describe("passing faults are still retried", () => {
  it("a 503 and a reset connection are retried with backoff and the task completes", async () => {
    const server = await serve({ fault: { status: 503 } }, { content: [{ type: "text", text: longText }], cutAfterChars: 20 }, complete("done after two faults"));
    const result = await run(["--json", "finish the task"]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(retries(result)).toHaveLength(2);
  });
});

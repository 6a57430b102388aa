import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { cleanEnv, runCairn, tempDir, xmlCall } from "../support/cairn-cli.js";

type Wire = "anthropic" | "openai";
type Protocol = "xml" | "native";

// Content that trips naive parsers: indentation on the first line, tag-like text, CRLF-free unicode.
const written = "  indented first line\nconst s = \"</content>\"; // ünïcödé ✓\n\treturn </path>;\n";

function turnsFor(protocol: Protocol): ScriptedTurn[] {
  if (protocol === "xml") {
    return [
      { content: [{ type: "text", text: `Let me read the notes.\n${xmlCall("read_file", { path: "notes.txt" })}` }] },
      { content: [{ type: "text", text: `Now I write the summary.\n<write_to_file>\n<path>out/summary.txt</path>\n<content>\n${written}\n</content>\n</write_to_file>` }] },
      { content: [{ type: "text", text: xmlCall("attempt_completion", { result: "Wrote out/summary.txt from the notes." }) }] },
    ];
  }
  return [
    { content: [{ type: "text", text: "Let me read the notes." }, { type: "tool_use", name: "read_file", input: { path: "notes.txt" } }] },
    { content: [{ type: "tool_use", name: "write_to_file", input: { path: "out/summary.txt", content: written } }] },
    { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Wrote out/summary.txt from the notes." } }] },
  ];
}

function providerArgs(wire: Wire, server: ScriptedModelServer): { args: string[]; env: Record<string, string> } {
  return wire === "anthropic"
    ? { args: ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", server.url], env: { ANTHROPIC_API_KEY: "sk-ant-test" } }
    : { args: ["--provider", "openai", "--model", "gpt-5", "--base-url", `${server.url}/v1`], env: { OPENAI_API_KEY: "sk-openai-test" } };
}

describe.each([
  ["anthropic", "xml"],
  ["anthropic", "native"],
  ["openai", "xml"],
  ["openai", "native"],
] as Array<[Wire, Protocol]>)("cairn run: read → write → completion (%s wire, %s protocol)", (wire, protocol) => {
  let server: ScriptedModelServer;
  let workspace: ReturnType<typeof tempDir>;
  let home: ReturnType<typeof tempDir>;

  beforeEach(async () => {
    server = await startScriptedModelServer({ turns: turnsFor(protocol) });
    workspace = tempDir("ws");
    home = tempDir("home");
    writeFileSync(path.join(workspace.dir, "notes.txt"), "hello from the notes file\n");
  });
  afterEach(async () => {
    await server.close();
    workspace.cleanup();
    home.cleanup();
  });

  it("reads, writes the file byte-exact, completes with exit 0 and reports usage", async () => {
    const { args, env } = providerArgs(wire, server);
    const run = await runCairn(
      ["run", ...args, "--protocol", protocol, "--auto-approve", "read,edit", "--cwd", workspace.dir, "--json", "--", "Summarise", "notes.txt"],
      { env: cleanEnv({ ...env, CAIRN_HOME: home.dir }) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(workspace.dir, "out/summary.txt"), "utf8")).toBe(written);

    expect(server.requests).toHaveLength(3);
    expect(server.requests.every((r) => r.wire === wire)).toBe(true);
    // The model saw the file it asked for, and the write's outcome.
    expect(JSON.stringify(server.requests[1]!.body)).toContain("hello from the notes file");
    expect(JSON.stringify(server.requests[2]!.body)).toContain("out/summary.txt");
    // The task text reached the model.
    expect(JSON.stringify(server.requests[0]!.body)).toContain("Summarise notes.txt");
    // Native sends tool schemas; xml describes tools in the system prompt instead.
    const first = server.requests[0]!.body as { tools?: Array<{ name?: string; function?: { name: string } }> };
    const toolNames = (first.tools ?? []).map((t) => t.name ?? t.function?.name);
    if (protocol === "native") expect(toolNames).toEqual(expect.arrayContaining(["read_file", "write_to_file", "attempt_completion"]));
    else {
      expect(first.tools).toBeUndefined();
      expect(JSON.stringify(first)).toContain("<read_file>");
    }
    if (wire === "anthropic") expect(server.requests[0]!.headers["x-api-key"]).toBe("sk-ant-test");
    else expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-openai-test");

    const result = run.events[run.events.length - 1]!;
    expect(result).toMatchObject({ type: "result", subtype: "success", is_error: false, num_turns: 3, result: "Wrote out/summary.txt from the notes." });
    expect((result.usage as { output_tokens: number }).output_tokens).toBeGreaterThan(0);
    expect(typeof result.total_cost_usd).toBe("number");
    const toolResults = run.events.filter((e) => e.type === "tool_call_update" && "content" in e);
    expect(toolResults.map((e) => [e.name, e.status])).toEqual([
      ["read_file", "completed"],
      ["write_to_file", "completed"],
      ["attempt_completion", "completed"],
    ]);
  });
});

describe("cairn run: plain output", () => {
  it("prints progress on stderr and only the final answer on stdout", async () => {
    const server = await startScriptedModelServer({ turns: turnsFor("native") });
    const workspace = tempDir("ws");
    const home = tempDir("home");
    try {
      writeFileSync(path.join(workspace.dir, "notes.txt"), "hello\n");
      mkdirSync(path.join(workspace.dir, "out"));
      const { args, env } = providerArgs("anthropic", server);
      const run = await runCairn(["run", ...args, "--auto-approve", "read,edit", "--cwd", workspace.dir, "Summarise notes.txt"], {
        env: cleanEnv({ ...env, CAIRN_HOME: home.dir }),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe("Wrote out/summary.txt from the notes.\n");
      expect(run.stderr).toContain("Let me read the notes.");
      expect(run.stderr).toMatch(/→ .*notes\.txt/);
      expect(run.stderr).toMatch(/✓ completed \(3 turns/);
    } finally {
      await server.close();
      workspace.cleanup();
      home.cleanup();
    }
  });
});

import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type RecordedRequest, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const xmlCall = (xml: string): ScriptedTurn => ({ content: [{ type: "text", text: xml }] });
const isSummaryRequest = (r: RecordedRequest) => JSON.stringify(r.body.system ?? "").includes("working memory of a coding agent");

/** About 10 MB of text, ending in a line a person could grep for. */
const bigText = `${"const filler = 'generated data row';\n".repeat(280_000)}// END OF BIG FILE\n`;

describe("a single 10 MB tool call", () => {
  it.each(["native", "xml"] as const)("is replaced in history by a note once applied, and the task goes on (%s)", async (protocol) => {
    writeFileSync(path.join(fx.workspace.dir, "small.txt"), "small file\n");
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ models: { "mid-model": { contextWindow: 200_000, maxOutputTokens: 8_000 } } }));
    const write =
      protocol === "native"
        ? call("write_to_file", { path: "big.txt", content: bigText })
        : xmlCall(`I will write the data.\n<write_to_file>\n<path>big.txt</path>\n<content>\n${bigText}\n</content>\n</write_to_file>`);
    const read = protocol === "native" ? call("read_file", { path: "small.txt" }) : xmlCall("<read_file>\n<path>small.txt</path>\n</read_file>");
    const done = protocol === "native" ? call("attempt_completion", { result: "wrote big.txt" }) : xmlCall("<attempt_completion>\n<result>wrote big.txt</result>\n</attempt_completion>");
    fx.server = await startScriptedModelServer({
      responder: (request) => {
        if (isSummaryRequest(request)) return { content: [{ type: "text", text: "Task: write big.txt. Done: written." }] };
        const turn = fx.server.requests.filter((r) => !isSummaryRequest(r)).length;
        return [write, read, done][turn - 1] ?? done;
      },
    });
    const run = await runCairn(
      ["run", "--provider", "anthropic", "--model", "mid-model", "--protocol", protocol, "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", "read,edit", "--json", "Write the data file."],
      { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }), timeoutMs: 240_000 },
    );
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ subtype: "success", result: "wrote big.txt" });
    // The write itself happened in full.
    expect(statSync(path.join(fx.workspace.dir, "big.txt")).size).toBe(Buffer.byteLength(bigText));
    expect(readFileSync(path.join(fx.workspace.dir, "big.txt"), "utf8").endsWith("// END OF BIG FILE\n")).toBe(true);
    // No request after the write carries the 10 MB again, summaries included; the note names the file and its size.
    const after = fx.server.requests.slice(1);
    expect(after.length).toBeGreaterThanOrEqual(2);
    for (const request of after) expect(JSON.stringify(request.body).length).toBeLessThan(200_000);
    const next = JSON.stringify(after.find((r) => !isSummaryRequest(r))!.body);
    expect(next).toMatch(/write_to_file content for big\.txt: 10,[0-9,]+ characters, sha256 [0-9a-f]{16}/);
    const boundary = run.events.find((e) => e.type === "system" && e.subtype === "compact_boundary");
    expect((boundary?.compact_metadata as { actions: string[] } | undefined)?.actions).toContain("shrink_calls");
  }, 300_000);
});

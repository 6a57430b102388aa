/**
 * Tool calls that used to fail or be cut and now recover, through the real CLI: nested tags in
 * file text (xml protocol), SEARCH lines pasted with read_file's line numbers, and XML tool blocks
 * written in prose while native function calling is on.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, xmlCall } from "../support/cairn-cli.js";

const fx = useE2eFixture();

const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const plainRun = (protocol: "xml" | "native", ...rest: string[]) =>
  runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--protocol", protocol, ...rest], { env: env() });
const run = (protocol: "xml" | "native", ...rest: string[]) => plainRun(protocol, "--json", ...rest);
const file = (name: string) => path.join(fx.workspace.dir, name);
/** A reply of raw text, streamed in small chunks so tags are split across them. */
const say = (text: string, chunkSize = 3): ScriptedTurn => ({ content: [{ type: "text", text }], chunkSize });
const complete = (result: string) => say(xmlCall("attempt_completion", { result }));
/** What the model was sent in request `i`, as text to search. */
const sent = (i: number) => JSON.stringify(fx.server.requests[i]?.body);

const writeBlock = (filePath: string, content: string) => `<write_to_file>\n<path>${filePath}</path>\n<content>\n${content}\n</content>\n</write_to_file>`;

describe("xml protocol: file text holding tags", () => {
  it("writes content holding <content>hello</content> and <path>x</path> byte for byte", async () => {
    const content = "<content>hello</content>\n<path>x</path>";
    fx.server = await startScriptedModelServer({ turns: [say(`I'll write the template.\n${writeBlock("template.xml", content)}`), complete("Wrote it.")] });
    const result = await run("xml", "--auto-approve", "read,edit", "write the template");
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(file("template.xml"), "utf8")).toBe(content);
    expect(existsSync(file("x"))).toBe(false);
  });

  it("writes content holding a complete <write_to_file> block whole, and not the nested block's file", async () => {
    const doc = [
      "# Writing files",
      "Use `<write_to_file>` like this:",
      writeBlock("nested.txt", "inner"),
      "That is all.",
    ].join("\n");
    fx.server = await startScriptedModelServer({ turns: [say(writeBlock("doc.md", doc)), complete("Documented.")] });
    const result = await run("xml", "--auto-approve", "read,edit", "document the tool");
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(file("doc.md"), "utf8")).toBe(doc);
    expect(existsSync(file("nested.txt"))).toBe(false);
  });

  it("never cuts content at a closing tag it holds: the block is reported as ambiguous, nothing is written, and a split write works", async () => {
    // The file ends an example with "</content>\n</write_to_file>" and goes on: where the block ends cannot be told.
    const whole = "the end of an example:\n</content>\n</write_to_file>\nmore of the file";
    fx.server = await startScriptedModelServer({
      turns: [
        say(writeBlock("snippet.txt", whole)),
        // What the model is told to do: write the first part, then add the rest with replace_in_file.
        say(writeBlock("snippet.txt", "the end of an example:\n</content>")),
        say(
          xmlCall("replace_in_file", {
            path: "snippet.txt",
            diff: "------- SEARCH\n</content>\n=======\n</content>\n</write_to_file>\nmore of the file\n+++++++ REPLACE",
          }),
        ),
        complete("Wrote the snippet."),
      ],
    });
    const result = await run("xml", "--auto-approve", "read,edit", "write the snippet");
    expect(result.code, result.stderr).toBe(0);
    const told = sent(1);
    expect(told).toContain("The <write_to_file> block is ambiguous");
    expect(told).toContain("nothing was written");
    expect(told).toContain("replace_in_file");
    const statuses = result.events.filter((e) => e.type === "tool_call_update" && "content" in e).map((e) => e.status);
    expect(statuses[0]).toBe("failed");
    // The ambiguous block wrote nothing: the next write creates the file.
    expect(sent(2)).toContain("Created snippet.txt");
    // Positive control: the same text, written in two parts, lands whole.
    expect(readFileSync(file("snippet.txt"), "utf8")).toBe(whole);
  });

  it("a truncated ambiguous write leaves no file", async () => {
    fx.server = await startScriptedModelServer({ turns: [say(writeBlock("cut.txt", "a\n</content>\n</write_to_file>\nb")), complete("Gave up.")] });
    const result = await run("xml", "--auto-approve", "read,edit", "write it");
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(file("cut.txt"))).toBe(false);
    expect(sent(1)).toContain("ambiguous");
  });
});

describe("replace_in_file with SEARCH lines pasted from read_file with their numbers", () => {
  it("applies the edit and tells the model to leave the numbers out", async () => {
    const original = "export function total(items) {\n  let sum = 0;\n  for (const item of items) sum += item;\n  return sum;\n}\n";
    writeFileSync(file("total.js"), original);
    const diff = [
      "------- SEARCH",
      "2 |   let sum = 0;",
      "3 |   for (const item of items) sum += item;",
      "=======",
      "2 |   let sum = 0;",
      "  if (!items) return 0;",
      "3 |   for (const item of items) sum += item;",
      "+++++++ REPLACE",
    ].join("\n");
    fx.server = await startScriptedModelServer({
      turns: [
        say(xmlCall("read_file", { path: "total.js", line_numbers: "true" })),
        say(xmlCall("replace_in_file", { path: "total.js", diff })),
        complete("Guarded against a missing list."),
      ],
    });
    const result = await run("xml", "--auto-approve", "read,edit", "guard total");
    expect(result.code, result.stderr).toBe(0);
    // read_file really offers this format, so the pasted lines are what a model would have seen.
    expect(sent(1)).toContain("2 |   let sum = 0;");
    expect(readFileSync(file("total.js"), "utf8")).toBe(original.replace("  let sum = 0;\n", "  let sum = 0;\n  if (!items) return 0;\n"));
    expect(sent(2)).toContain("line numbers");
  });
});

describe("native protocol: a tool block written as XML in the reply's text", () => {
  const prose = (name: string) => `I'll write it now.\n${writeBlock(name, "from prose")}\nDone writing.`;

  it("runs it like a function call, pairs it with a result, and tells the model to use function calls", async () => {
    fx.server = await startScriptedModelServer({
      turns: [say(prose("note.txt")), { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Wrote note.txt." } }] }],
    });
    const result = await run("native", "--auto-approve", "read,edit", "write a note");
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(file("note.txt"), "utf8")).toBe("from prose");

    const messages = fx.server.requests[1]!.body.messages as Array<{ role: string; content: unknown }>;
    const assistant = messages.at(-2)!.content as Array<{ type: string; id?: string; name?: string; input?: unknown }>;
    const use = assistant.find((p) => p.type === "tool_use");
    expect(use).toMatchObject({ name: "write_to_file", input: { path: "note.txt", content: "from prose" } });
    const user = messages.at(-1)!.content as Array<{ type: string; tool_use_id?: string; text?: string }>;
    expect(user.find((p) => p.type === "tool_result")?.tool_use_id).toBe(use!.id);
    expect(user.some((p) => p.type === "text" && p.text!.includes("call tools as function calls"))).toBe(true);
  });

  it("goes through approval like any call: without --auto-approve edit it is denied and nothing is written", async () => {
    fx.server = await startScriptedModelServer({
      turns: [say(prose("denied.txt")), { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Could not write." } }] }],
    });
    const result = await run("native", "--auto-approve", "read", "write a note");
    expect(existsSync(file("denied.txt"))).toBe(false);
    expect(result.events.filter((e) => e.type === "tool_call_update" && "content" in e).map((e) => e.status)).toContain("denied");
  });

  it("does not run a block quoted in a code fence", async () => {
    fx.server = await startScriptedModelServer({
      turns: [say(`For example:\n\`\`\`xml\n${writeBlock("example.txt", "x")}\n\`\`\``), { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Explained." } }] }],
    });
    const result = await run("native", "--auto-approve", "read,edit", "explain");
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(file("example.txt"))).toBe(false);
    expect(sent(1)).toContain("You did not use a tool");
  });

  it("stops a model that never calls a tool, naming --protocol xml", async () => {
    fx.server = await startScriptedModelServer({ responder: () => say("I would read the file first, then write the summary.") });
    const result = await plainRun("native", "summarise");
    expect(result.code).toBe(1);
    expect(fx.server.requests).toHaveLength(3);
    expect(result.stderr).toContain("the model never called a tool");
    expect(result.stderr).toContain("if it does not support function calling, run with --protocol xml");
  });
});

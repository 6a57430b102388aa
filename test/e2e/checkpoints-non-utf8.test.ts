import { readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";

/**
 * A file whose name is not UTF-8 (`f\xff.txt`, as an old Latin-1 archive leaves them): the model
 * finds text inside it with search_files, a command deletes it, and `cairn checkpoints` lists the
 * deletion and brings the file back with its exact name and bytes.
 */
const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const cli = (...args: string[]) => runCairn(args, { env: env(), timeoutMs: 60_000 });
const taskId = () => readdirSync(path.join(fx.home.dir, "tasks")).find((n) => n !== "index.json")!;

const name = Buffer.from([0x66, 0xff, 0x2e, 0x74, 0x78, 0x74]);
const file = () => Buffer.concat([Buffer.from(`${fx.workspace.dir}/`), name]);
const names = () => readdirSync(fx.workspace.dir, { encoding: "buffer" }).map((n) => n.toString("hex"));
const content = Buffer.concat([Buffer.from("first line\nthe needle-7f3a is here\n"), Buffer.from([0xe9, 0x0a])]);

describe("a file whose name is not UTF-8", () => {
  it("is found by search_files (its name escaped), checkpointed, listed in a diff once a command deletes it, and restored byte for byte", async () => {
    writeFileSync(file(), content);
    writeFileSync(path.join(fx.workspace.dir, "plain.txt"), "no match here\n");
    // The same rules hold for such names: one the ignore rules match, and a link of such a name leading out of the workspace.
    writeFileSync(path.join(fx.workspace.dir, ".cairnignore"), "secret*\n");
    writeFileSync(Buffer.concat([Buffer.from(`${fx.workspace.dir}/secret`), Buffer.from([0xff])]), "needle-7f3a IGNORED-SECRET\n");
    const outside = tempDir("outside");
    writeFileSync(path.join(outside.dir, "key.txt"), "needle-7f3a OUTSIDE-SECRET\n");
    symlinkSync(path.join(outside.dir, "key.txt"), Buffer.concat([Buffer.from(`${fx.workspace.dir}/l`), Buffer.from([0xff]), Buffer.from(".txt")]));
    fx.server = await startScriptedModelServer({
      turns: [
        call("search_files", { path: ".", regex: "needle-7f3a" }),
        call("execute_command", { command: "rm -f f*.txt", requires_approval: false }),
        call("attempt_completion", { result: "done" }),
      ],
    });
    const run = await cli("run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", "read,all-commands", "--json", "find the needle, then clean up");
    expect(run.code, run.stderr).toBe(0);

    const searched = JSON.stringify(fx.server.requests[1]!.body);
    expect(searched).toContain("Found 1 match in 1 file.");
    expect(searched).toContain(JSON.stringify("f\\xff.txt").slice(1, -1));
    expect(searched).toContain("the needle-7f3a is here");
    const told = JSON.stringify(fx.server.requests);
    expect(told).not.toContain("IGNORED-SECRET");
    expect(told).not.toContain("OUTSIDE-SECRET");
    outside.cleanup();
    expect(names()).not.toContain(name.toString("hex"));

    const id = taskId();
    const list = await cli("checkpoints", id);
    expect(list.code, list.stderr).toBe(0);
    const diff = await cli("checkpoints", "diff", id, "1");
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/^\s+deleted\s+f\\xff\.txt /m);

    const restore = await cli("checkpoints", "restore", id, "1", "--workspace");
    expect(restore.code, restore.stderr).toBe(0);
    expect(names()).toContain(name.toString("hex"));
    expect(readFileSync(file()).equals(content)).toBe(true);
    expect(readFileSync(path.join(fx.workspace.dir, "plain.txt"), "utf8")).toBe("no match here\n");
  }, 90_000);
});

import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { cleanEnv, runCairn, type CliRun } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";

/**
 * The ignore file read under another name: .cairnignore blocks `.env` and `secret/`, and the model
 * (the attacker) reaches for them by every other name it has: /proc/self/cwd, a symlink shipped in
 * the repository, `..` through an ignored folder, /proc/<pid>/root, a search, an outline, an
 * @-mention, the browser, and edits through the same names. Each attack has a positive control
 * through the very same mechanism on a file that is not ignored.
 */

const SECRET = "SECRET=marker-7f3a91-do-not-leak";
const KEY = "KEY-marker-c0ffee-in-secret-folder";
const NOTES = "NOTES-VISIBLE-4242";

const fx = useE2eFixture((f) => {
  const ws = f.workspace.dir;
  writeFileSync(path.join(ws, ".env"), `${SECRET}\n`);
  writeFileSync(path.join(ws, ".cairnignore"), ".env\nsecret/\n");
  mkdirSync(path.join(ws, "secret"));
  writeFileSync(path.join(ws, "secret", "key.txt"), `${KEY}\n`);
  writeFileSync(path.join(ws, "secret", "keys.ts"), `export function leakedKeyMarkerC0ffee(): string {\n  return "${KEY}";\n}\n`);
  writeFileSync(path.join(ws, "notes.txt"), `${NOTES}\n`);
  mkdirSync(path.join(ws, "docs"));
  // As a cloned repository ships them: relative links, one to an ignored file, one to a normal one.
  symlinkSync("../.env", path.join(ws, "docs", "cfg.txt"));
  symlinkSync("../notes.txt", path.join(ws, "docs", "ok.txt"));
  symlinkSync("../secret", path.join(ws, "docs", "vault"));
  mkdirSync(path.join(ws, "src"));
  writeFileSync(path.join(ws, "src", "app.ts"), "export function visibleAppFunction(): number {\n  return 1;\n}\n");
  symlinkSync("../secret/keys.ts", path.join(ws, "src", "leak.ts"));
  // Pages that navigate themselves to a file once loaded.
  writeFileSync(path.join(ws, "jump-secret.html"), `<html><head><meta http-equiv="refresh" content="0; url=docs/cfg.txt"></head><body>jumping</body></html>`);
  writeFileSync(path.join(ws, "jump-notes.html"), `<html><head><meta http-equiv="refresh" content="0; url=docs/ok.txt"></head><body>jumping</body></html>`);
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

/** Every file under `dir`, as text. */
function everyFile(dir: string): Array<{ file: string; text: string }> {
  const found: Array<{ file: string; text: string }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile()) found.push({ file, text: readFileSync(file, "latin1") });
  }
  return found;
}

/** The secrets are nowhere: not in stdout, not in any file under CAIRN_HOME, not in any model request. */
function expectNoLeak(run: CliRun, requests: ReadonlyArray<{ body: unknown }>, home: string): void {
  for (const secret of [SECRET, KEY, "marker-7f3a91", "c0ffee"]) {
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
    for (const { file, text } of everyFile(home)) expect(text.includes(secret), `${secret} leaked into ${file}`).toBe(false);
    for (const [i, request] of requests.entries()) expect(JSON.stringify(request.body).includes(secret), `${secret} reached model request ${i}`).toBe(false);
  }
}

/** The result the model got for each call, in order, as `status: text`. */
function results(run: CliRun): Array<{ status: unknown; content: string }> {
  return run.events.filter((e) => e.type === "tool_call_update" && "content" in e).map((e) => ({ status: e.status, content: String(e.content) }));
}

function cairn(args: string[], timeoutMs = 60_000): Promise<CliRun> {
  return runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", ...args], {
    env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
    // /proc/self/cwd of the cairn process is the workspace.
    cwd: fx.workspace.dir,
    timeoutMs,
  });
}

describe("ignored files read under another name", () => {
  it("read_file, search_files and list_code_definition_names refuse every other name of an ignored file; the same names of a normal file work", async () => {
    const ws = fx.workspace.dir;
    fx.server = await startScriptedModelServer({
      turns: [
        call("read_file", { path: "/proc/self/cwd/.env" }),
        call("read_file", { path: "./.env" }),
        call("read_file", { path: "docs/cfg.txt" }),
        call("read_file", { path: "secret/../.env" }),
        call("read_file", { path: `/proc/self/root${ws}/.env` }),
        call("read_file", { path: "docs/vault/key.txt" }),
        call("search_files", { path: ".", regex: "marker" }),
        call("search_files", { path: "docs", regex: "marker" }),
        call("search_files", { path: "docs/cfg.txt", regex: "marker" }),
        call("list_code_definition_names", { path: "src" }),
        call("list_code_definition_names", { path: "src/leak.ts" }),
        // Positive controls: the same tricks on a file that is not ignored.
        call("read_file", { path: "/proc/self/cwd/notes.txt" }),
        call("read_file", { path: "docs/ok.txt" }),
        call("read_file", { path: "secret/../notes.txt" }),
        call("search_files", { path: ".", regex: "NOTES-VISIBLE" }),
        call("attempt_completion", { result: "done" }),
      ],
    });
    const run = await cairn(["--auto-approve", "read", "find the secret"]);
    expect(run.code, run.stderr).toBe(0);
    expectNoLeak(run, fx.server.requests, fx.home.dir);

    const got = results(run);
    // Every attack was refused, and the model was told why.
    for (const [i, result] of got.slice(0, 6).entries()) {
      expect(result.status, `read ${i}: ${result.content}`).not.toBe("completed");
      expect(result.content).toMatch(/blocked by \.cairnignore/);
    }
    expect(got[6]!.content).not.toMatch(/\.env|cfg\.txt|key\.txt/); // search of the workspace: only non-ignored hits
    expect(got[7]!.content).toMatch(/^No matches/);
    expect(got[8]!.status).toBe("denied");
    expect(got[9]!.content).toContain("visibleAppFunction");
    expect(got[9]!.content).not.toContain("leakedKeyMarker");
    expect(got[10]!.status).toBe("denied");
    // Positive controls.
    for (const result of got.slice(11, 14)) {
      expect(result.status).toBe("completed");
      expect(result.content).toContain(NOTES);
    }
    expect(got[14]!.content).toContain(NOTES);
    expect(got[14]!.content).toContain("notes.txt");
  }, 90_000);

  it("an @-mention of a link to an ignored file is refused with a note; a mention of a link to a normal file is inlined", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "done" })] });
    const run = await cairn(["--auto-approve", "read", 'compare @/docs/cfg.txt with @/docs/ok.txt and @"docs/vault/key.txt"']);
    expect(run.code, run.stderr).toBe(0);
    expectNoLeak(run, fx.server.requests, fx.home.dir);
    const first = JSON.stringify(fx.server.requests[0]!.body);
    expect(first).toContain("@/docs/cfg.txt was not expanded: the path is blocked by .cairnignore");
    expect(first).toContain('@\\"docs/vault/key.txt\\" was not expanded: the path is blocked by .cairnignore');
    expect(first).toContain(NOTES);
  });

  it("edits through the other names leave the ignored file as it was; the same edits through a link to a normal file land", async () => {
    const ws = fx.workspace.dir;
    fx.server = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "docs/cfg.txt", content: "SECRET=overwritten\n" }),
        call("write_to_file", { path: "/proc/self/cwd/.env", content: "SECRET=overwritten\n" }),
        call("write_to_file", { path: "secret/../.env", content: "SECRET=overwritten\n" }),
        call("write_to_file", { path: "docs/vault/key.txt", content: "overwritten\n" }),
        // A SEARCH that does not match: had the edit run, its failure report would show the file.
        call("replace_in_file", { path: "docs/cfg.txt", diff: "------- SEARCH\nSECRET=guess\n=======\nSECRET=overwritten\n+++++++ REPLACE" }),
        call("replace_in_file", { path: "/proc/self/cwd/.env", diff: "------- SEARCH\nSECRET=guess\n=======\nSECRET=overwritten\n+++++++ REPLACE" }),
        // Positive controls: through the link to notes.txt, and through /proc/self/cwd.
        call("replace_in_file", { path: "docs/ok.txt", diff: `------- SEARCH\n${NOTES}\n=======\n${NOTES} edited\n+++++++ REPLACE` }),
        call("write_to_file", { path: "/proc/self/cwd/new.txt", content: "made through /proc\n" }),
        call("attempt_completion", { result: "done" }),
      ],
    });
    const run = await cairn(["--auto-approve", "read,edit", "overwrite the secret"]);
    expect(run.code, run.stderr).toBe(0);
    expectNoLeak(run, fx.server.requests, fx.home.dir);
    expect(readFileSync(path.join(ws, ".env"), "utf8")).toBe(`${SECRET}\n`);
    expect(readFileSync(path.join(ws, "secret", "key.txt"), "utf8")).toBe(`${KEY}\n`);
    expect(readlinkSync(path.join(ws, "docs", "cfg.txt"))).toBe("../.env");
    const got = results(run);
    for (const result of got.slice(0, 6)) expect(result.status).not.toBe("completed");
    // The controls: the link stays a link, its target is edited; /proc/self/cwd writes in the workspace.
    expect(got[6]!.status).toBe("completed");
    expect(lstatSync(path.join(ws, "docs", "ok.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(ws, "notes.txt"), "utf8")).toBe(`${NOTES} edited\n`);
    expect(got[7]!.status).toBe("completed");
    expect(readFileSync(path.join(ws, "new.txt"), "utf8")).toBe("made through /proc\n");
  });

  it("browser_action refuses file: urls of ignored files, also when a page navigates itself there; the same for a normal file works", async () => {
    const ws = fx.workspace.dir;
    const url = (relative: string) => pathToFileURL(path.join(ws, relative)).href;
    fx.server = await startScriptedModelServer({
      turns: [
        call("browser_action", { action: "launch", url: url("docs/cfg.txt") }),
        call("browser_action", { action: "launch", url: `file:///proc/self/cwd/.env` }),
        call("browser_action", { action: "launch", url: url("jump-secret.html") }),
        call("browser_action", { action: "scroll_down" }),
        // Positive controls.
        call("browser_action", { action: "launch", url: url("docs/ok.txt") }),
        call("browser_action", { action: "launch", url: url("jump-notes.html") }),
        call("browser_action", { action: "scroll_down" }),
        call("browser_action", { action: "close" }),
        call("attempt_completion", { result: "done" }),
      ],
    });
    // A model without images gets the page's text, so a leak would be text in the request.
    const run = await cairn(["--model", "text-only-model", "--auto-approve", "browser", "open the secret in the browser"], 120_000);
    expect(run.code, run.stderr).toBe(0);
    expectNoLeak(run, fx.server.requests, fx.home.dir);
    const got = results(run);
    expect(got[0]!.status).not.toBe("completed");
    expect(got[0]!.content).toMatch(/blocked by \.cairnignore/);
    expect(got[1]!.status).not.toBe("completed");
    expect(got[3]!.content).toMatch(/\[blocked\] file:\/\/.*cfg\.txt|ERR_ACCESS_DENIED|chrome-error/);
    expect(got[4]!.status).toBe("completed");
    expect(got[4]!.content).toContain(NOTES);
    expect(got[6]!.content).toContain(NOTES);
    expect(got[6]!.content).toContain("ok.txt");
  }, 150_000);

  it("list_files shows a link to an ignored file as blocked, and the listing never carries its content", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("list_files", { path: "docs" }), call("attempt_completion", { result: "done" })] });
    const run = await cairn(["--auto-approve", "read", "list docs"]);
    expect(run.code, run.stderr).toBe(0);
    const listing = results(run)[0]!.content;
    expect(listing).toContain("🔒 docs/cfg.txt -> .env");
    expect(listing).toContain("🔒 docs/vault/ -> secret/");
    expect(listing).toMatch(/^docs\/ok\.txt -> notes\.txt$/m);
    expect(statSync(path.join(fx.workspace.dir, ".env")).isFile()).toBe(true);
    expectNoLeak(run, fx.server.requests, fx.home.dir);
  });
});

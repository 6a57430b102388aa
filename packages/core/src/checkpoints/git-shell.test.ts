import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitShell } from "./git-shell.js";
import { tempWorkspace, writeFiles, type TempWorkspace } from "./test-support.js";

let tmp: TempWorkspace;
let shell: GitShell;

beforeEach(async () => {
  tmp = await tempWorkspace();
  execFileSync("git", ["init", "-q", "--bare", `${tmp.root}/shadow.git`]);
  shell = new GitShell({ gitDir: `${tmp.root}/shadow.git`, workTree: tmp.workspace }, `slow() { sleep 5; }\nfail_with() { echo "why" >&2; return "$1"; }`);
});

afterEach(async () => {
  shell.close();
  await tmp.cleanup();
});

describe("the checkpoints' git shell", () => {
  it("passes arguments through whole: quotes, newlines, spaces, globs, dashes", async () => {
    const words = ["it's", "two\nlines", "  spaced  ", "*.ts", "-n", "$HOME", "`id`", "\\"];
    const result = await shell.git(["rev-parse", "--sq-quote", ...words]);
    expect(result.code).toBe(0);
    // git quotes them back for sh; sh reading them gives the same words.
    const echoed = execFileSync("sh", ["-c", `for w in ${result.stdout.toString("utf8").trim()}; do printf '%s\\0' "$w"; done`], { encoding: "utf8" });
    expect(echoed.split("\0").slice(0, -1)).toEqual(words);
  });

  it("keeps binary output, stderr and the exit code of each command apart", async () => {
    await writeFiles(tmp.workspace, { "a b.txt": "a\n", "c\nd.txt": "c\n" });
    const failed = await shell.call("fail_with", ["3"]);
    expect(failed).toMatchObject({ code: 3, stderr: "why\n" });
    expect(failed.stdout.length).toBe(0);
    const hashed = await shell.git(["hash-object", "-w", "a b.txt"]);
    expect(hashed.code).toBe(0);
    expect(hashed.stdout.toString("utf8").trim()).toMatch(/^[0-9a-f]{40}$/);
    const listed = await shell.git(["ls-files", "-z", "--others", "--", "."]);
    expect(listed.stdout.toString("utf8").split("\0").filter(Boolean).sort()).toEqual(["a b.txt", "c\nd.txt"]);
  });

  it("gives git its input whole, NUL bytes and all, and leaves no input file behind", async () => {
    const input = Buffer.from("one\0two\nthree\0\xff", "latin1");
    const hashed = await shell.gitWithInput(["hash-object", "--stdin"], input);
    expect(hashed.code).toBe(0);
    const expected = execFileSync("git", ["hash-object", "--stdin"], { input }).toString("utf8");
    expect(hashed.stdout.toString("utf8")).toBe(expected);
    expect(readdirSync(`${tmp.root}/shadow.git`).filter((name) => name.startsWith("cairn-input"))).toEqual([]);
    // The next command reads nothing of it.
    const empty = await shell.git(["hash-object", "--stdin"]);
    expect(empty.stdout.toString("utf8")).toBe(execFileSync("git", ["hash-object", "--stdin"], { input: "" }).toString("utf8"));
  });

  it("a shell that dies fails the command running in it, and the next call starts a new one", async () => {
    const running = shell.call("slow", []);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const pid = shell.pid;
    expect(pid).toBeDefined();
    process.kill(pid!, "SIGKILL");
    await expect(running).rejects.toThrow(/git shell exited/);
    const next = await shell.git(["--version"]);
    expect(next.code).toBe(0);
    expect(next.stdout.toString("utf8")).toMatch(/^git version/);
  });
});

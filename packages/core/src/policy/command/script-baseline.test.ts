import { mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { classifyCommand } from "./classify.js";
import { loadShellParser, type ShellParser } from "./parse-shell.js";
import { ScriptBaseline } from "./script-baseline.js";

let shell: ShellParser;
let cwd: string;
const at = (...parts: string[]) => path.join(cwd, ...parts);
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(at(file)), { recursive: true });
  writeFileSync(at(file), text);
};
const manifest = (scripts: Record<string, string>, extra: Record<string, unknown> = {}) => JSON.stringify({ name: "p", scripts, ...extra }, null, 2);
const classify = (command: string, scripts: ScriptBaseline) => classifyCommand(command, { cwd, scripts }, shell);

beforeAll(async () => {
  shell = await loadShellParser();
});
beforeEach(() => {
  cwd = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-scripts-")));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

describe("a command that runs workspace scripts", () => {
  it("stays safe while the scripts are as the task found them; a dependency added to package.json changes nothing", () => {
    write("package.json", manifest({ test: "vitest run" }));
    write("Makefile", "test:\n\tnpm test\n");
    const scripts = new ScriptBaseline(cwd);
    write("package.json", manifest({ test: "vitest run" }, { devDependencies: { vitest: "^3" } }));
    for (const command of ["npm test", "npm run build", "pnpm test", "yarn test", "make", "make test", "npm ci"]) {
      expect(classify(command, scripts), command).toEqual({ risk: "safe", reasons: [] });
    }
  });

  it("asks, saying why in one line, once the task rewrote package.json's scripts, for every runner that reads them", () => {
    write("package.json", manifest({ test: "vitest run" }));
    const scripts = new ScriptBaseline(cwd);
    write("package.json", manifest({ test: "touch /tmp/pwned" }));
    for (const command of ["npm test", "npm t", "npm run test", "npm install", "pnpm test", "yarn test", "yarn", "bun run test", "node --run test", "timeout 60 npm test", "sh -c 'npm test'"]) {
      const result = classify(command, scripts);
      expect(result.risk, command).toBe("needs_approval");
      expect(result.reasons, command).toContainEqual(expect.stringMatching(/would run the scripts in package\.json, which changed during this task$/));
      expect(result.changedScripts?.map((s) => path.relative(cwd, s.file))).toEqual(["package.json"]);
    }
    // Commands that run nothing of the package's stay as they were.
    for (const command of ["npm view x", "npm ls", "npm --version", "git status"]) expect(classify(command, scripts).risk, command).toBe("safe");
  });

  it("covers the other files that decide what runs: .npmrc, Makefiles, justfiles, and a package.json the task created", () => {
    write("package.json", manifest({ test: "vitest run" }));
    write("Makefile", "test:\n\techo ok\n");
    const scripts = new ScriptBaseline(cwd);
    write(".npmrc", "script-shell=./evil.sh\n");
    expect(classify("npm test", scripts).reasons.join()).toMatch(/npm would run \.npmrc, which changed/);
    write("Makefile", "test:\n\ttouch /tmp/pwned\n");
    expect(classify("make test", scripts).reasons.join()).toMatch(/make would run Makefile, which changed/);
    expect(classify("make -C . test", scripts).risk).toBe("needs_approval");
    write("justfile", "test:\n  touch /tmp/pwned\n");
    expect(classify("just test", scripts).risk).toBe("needs_approval");
    write("sub/package.json", manifest({ test: "touch /tmp/pwned" }));
    expect(classify("cd sub && npm test", scripts).reasons.join()).toMatch(/scripts in sub\/package\.json/);
    expect(classify("npm --prefix sub test", scripts).risk).toBe("needs_approval");
    expect(classify("npm -C sub test", scripts).risk).toBe("needs_approval");
  });

  it("reads a file it had not seen by its change time: untouched since the start counts as the start, written during the task does not", () => {
    write("pkg/a/package.json", manifest({ test: "vitest run" }));
    const old = new Date(Date.now() - 60_000);
    utimesSync(at("pkg/a/package.json"), old, old); // mtime only: ctime still says when it was written
    const scripts = new ScriptBaseline(cwd, Date.now() + 10_000); // as if the task began after the file was written
    expect(classify("cd pkg/a && npm test", scripts).risk).toBe("safe");
    const resumed = new ScriptBaseline(cwd, Date.now() - 60_000); // a task that began before the file was written
    expect(classify("cd pkg/a && npm test", resumed).risk).toBe("needs_approval");
  });

  it("follows monorepo packages when a command runs in all of them", () => {
    write("package.json", manifest({ test: "npm test --workspaces" }, { workspaces: ["packages/*"] }));
    write("packages/one/package.json", manifest({ test: "vitest run" }));
    const scripts = new ScriptBaseline(cwd, Date.now() + 10_000);
    expect(classify("npm test --workspaces", scripts).risk).toBe("safe");
    write("packages/one/package.json", manifest({ test: "touch /tmp/pwned" }));
    const later = new ScriptBaseline(cwd, Date.now() - 1_000);
    expect(classify("npm test --workspaces", later).reasons.join()).toMatch(/packages\/one\/package\.json/);
    expect(classify("pnpm -r test", later).risk).toBe("needs_approval");
  });

  it("asks no more once the person accepted the changed scripts; a later change asks again", () => {
    write("package.json", manifest({ test: "vitest run" }));
    const scripts = new ScriptBaseline(cwd);
    write("package.json", manifest({ test: "vitest run --coverage" }));
    const asked = classify("npm test", scripts);
    expect(asked.risk).toBe("needs_approval");
    scripts.accept(asked.changedScripts ?? []);
    expect(classify("npm test", scripts).risk).toBe("safe");
    write("package.json", manifest({ test: "touch /tmp/pwned" }));
    expect(classify("npm test", scripts).risk).toBe("needs_approval");
  });
});

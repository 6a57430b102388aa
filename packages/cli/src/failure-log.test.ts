import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { failureLine } from "./failure-log.js";
import { reportUnexpected } from "./command-guard.js";

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("an unexpected failure", () => {
  it("shows one line and puts the stack in a log whose path it prints", () => {
    home = mkdtempSync(path.join(os.tmpdir(), "cairn-log-"));
    let stderr = "";
    const error = new TypeError("Cannot read properties of undefined (reading 'toFixed')");
    const code = reportUnexpected(error, { stdout: () => {}, stderr: (t) => (stderr += t), env: { CAIRN_HOME: home } }, ["show", "x"]);
    expect(code).toBe(1);
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
    const log = /Details are in (\S+);/.exec(stderr)?.[1];
    expect(log).toBe(path.join(home, "logs", "errors.log"));
    const logged = readFileSync(log!, "utf8");
    expect(logged).toContain('cairn "show" "x"');
    expect(logged).toMatch(/TypeError: Cannot read properties of undefined[\s\S]*\n\s+at /);
  });

  it("names the file a system error was about", () => {
    const error = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", path: "/h/tasks/t/events.jsonl" });
    expect(failureLine(error)).toBe("ENOSPC: no space left on device, write (/h/tasks/t/events.jsonl)");
  });

  it("lets no escape sequence of the message through", () => {
    const error = Object.assign(new Error("cannot open \u001b]52;c;ZWNobw==\u0007x.txt\u001b[2J"), { code: "ENOENT" });
    expect(failureLine(error)).toBe("cannot open x.txt");
  });
});


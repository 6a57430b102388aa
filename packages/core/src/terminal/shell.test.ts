import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { commandEnv, pickShell, shellInvocation } from "./shell.js";

const all = () => true;

describe("pickShell", () => {
  it("takes the user's shell when it is sh-like", () => {
    expect(pickShell({ SHELL: "/usr/bin/zsh" }, all)).toBe("/usr/bin/zsh");
    expect(pickShell({ SHELL: "/bin/dash" }, all)).toBe("/bin/dash");
  });

  it("falls back to bash for a shell with another syntax, a relative path, or none", () => {
    expect(pickShell({ SHELL: "/usr/bin/fish" }, all)).toBe("/bin/bash");
    expect(pickShell({ SHELL: "zsh" }, all)).toBe("/bin/bash");
    expect(pickShell({}, all)).toBe("/bin/bash");
  });

  it("falls back to sh without bash, and to nothing when no shell can run", () => {
    expect(pickShell({ SHELL: "/usr/bin/zsh" }, (f) => f === "/bin/sh")).toBe("/bin/sh");
    expect(pickShell({ SHELL: "/bin/bash" }, () => false)).toBeUndefined();
  });
});

describe("shellInvocation", () => {
  it("passes the command untouched and joins stderr to stdout", () => {
    const { file, args } = shellInvocation("/bin/bash", `echo "it's \\"quoted\\"" $((1+2)); echo err >&2`);
    const out = execFileSync(file, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    expect(out).toBe(`it's "quoted" 3\nerr\n`);
  });

  it("runs the command in the chosen shell", () => {
    const { file, args } = shellInvocation("/bin/bash", "echo $BASH_VERSION");
    expect(execFileSync(file, args, { encoding: "utf8" }).trim()).not.toBe("");
  });
});

describe("commandEnv", () => {
  it("keeps the user's environment and adds the non-interactive settings", () => {
    const env = commandEnv({ PATH: "/usr/bin", HOME: "/home/ann", FORCE_COLOR: "1", PAGER: "less" });
    expect(env).toMatchObject({
      PATH: "/usr/bin",
      HOME: "/home/ann",
      CI: "1",
      GIT_TERMINAL_PROMPT: "0",
      PAGER: "cat",
      GIT_PAGER: "cat",
      npm_config_yes: "true",
      DEBIAN_FRONTEND: "noninteractive",
      NO_COLOR: "1",
    });
    expect(env.FORCE_COLOR).toBeUndefined();
  });
});

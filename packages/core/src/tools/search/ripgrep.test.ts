import { execFileSync } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { locateRipgrep, ripgrepBinary, ripgrepMissingMessage, runRipgrep } from "./ripgrep.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cairn-rg-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function bundledRg(): Promise<string> {
  const binary = await ripgrepBinary();
  if (binary === undefined) throw new Error("these tests need @vscode/ripgrep's binary");
  return binary;
}

describe("locating rg", () => {
  it("uses the binary of @vscode/ripgrep's platform package when it is installed", async () => {
    const binary = await bundledRg();
    expect(binary).toMatch(/@vscode[/\\]ripgrep-[a-z0-9]+-[a-z0-9]+[/\\]bin[/\\]rg(\.exe)?$/);
    expect(execFileSync(binary, ["--version"], { encoding: "utf8" })).toMatch(/^ripgrep \d+/);
    expect(await locateRipgrep({ packageBinary: binary, pathEnv: "" })).toBe(binary);
  });

  it("falls back to an executable rg on PATH when the package's binary is missing", async () => {
    const notExecutable = path.join(dir, "first");
    const system = path.join(dir, "second");
    await mkdir(notExecutable);
    await mkdir(system);
    await writeFile(path.join(notExecutable, "rg"), "not a program");
    await chmod(path.join(notExecutable, "rg"), 0o644);
    await copyFile(await bundledRg(), path.join(system, "rg"));
    const pathEnv = [path.join(dir, "missing"), notExecutable, system].join(path.delimiter);

    expect(await locateRipgrep({ packageBinary: undefined, pathEnv })).toBe(path.join(system, "rg"));
    expect(await locateRipgrep({ packageBinary: path.join(dir, "gone", "rg"), pathEnv })).toBe(path.join(system, "rg"));
  });

  it("finds nothing when neither exists, and the message names both ways to get rg", async () => {
    await mkdir(path.join(dir, "rg")); // a folder named rg is not a program
    expect(await locateRipgrep({ packageBinary: undefined, pathEnv: dir })).toBeUndefined();
    expect(await locateRipgrep({ packageBinary: undefined, pathEnv: undefined })).toBeUndefined();
    expect(ripgrepMissingMessage).toContain("--omit=optional");
    expect(ripgrepMissingMessage).toContain("@vscode/ripgrep-");
    expect(ripgrepMissingMessage).toContain("apt install ripgrep");
  });
});

describe("running rg", () => {
  it("streams stdout lines and kills rg once the handler has enough", async () => {
    await writeFile(path.join(dir, "big.txt"), Array.from({ length: 200_000 }, (_, i) => `line ${i}`).join("\n"));
    const seen: string[] = [];
    const run = await runRipgrep(await bundledRg(), ["--no-config", "line", "big.txt"], {
      cwd: dir,
      signal: new AbortController().signal,
      onLine: (line) => {
        seen.push(line);
        return seen.length === 3 ? "stop" : "more";
      },
    });
    expect(seen).toEqual(["line 0", "line 1", "line 2"]);
    expect(run).toEqual({ exitCode: null, stopped: true, stderr: "" });
  });

  it("reports the exit code and stderr of a run that fails", async () => {
    const run = await runRipgrep(await bundledRg(), ["--no-config", "x", "missing.txt"], {
      cwd: dir,
      signal: new AbortController().signal,
      onLine: () => "more",
    });
    expect(run.exitCode).toBe(2);
    expect(run.stopped).toBe(false);
    expect(run.stderr).toContain("missing.txt");
  });

  it("kills rg when the signal aborts, even while rg is blocked", async () => {
    const fifo = path.join(dir, "pipe");
    execFileSync("mkfifo", [fifo]); // opening a FIFO with no writer blocks rg until it is killed
    const controller = new AbortController();
    const running = runRipgrep(await bundledRg(), ["--no-config", "x", fifo], {
      cwd: dir,
      signal: controller.signal,
      onLine: () => "more",
    });
    setTimeout(() => controller.abort(new Error("task stopped")), 100);
    await expect(running).rejects.toThrow("task stopped");
  });
});

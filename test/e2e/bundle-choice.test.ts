import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cairnBin, repoRoot, tempDir } from "../support/cairn-cli.js";

/**
 * bin/cairn.js runs the bundle `npm run build` makes (packages/cli/scripts/bundle.mjs) only while
 * it is newer than the last compile of both packages; otherwise the compiled modules, so a `tsc -b`
 * alone never leaves a person running yesterday's code; `cairn run` runs its own code-cached script
 * (src/code-cache.ts) on the same terms. The real bin file and loader run here in a copy of the
 * package layout whose entries say which one ran.
 */
describe("which build bin/cairn.js runs", () => {
  const dirs: Array<{ cleanup(): void }> = [];
  afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()));

  function layout() {
    const root = tempDir("bin-layout");
    dirs.push(root);
    const cli = path.join(root.dir, "packages/cli");
    const entry = (file: string, name: string) => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `export function installCrashHandlers() {}\nexport async function main() { process.stdout.write(${JSON.stringify(name)}); return 0; }\n`);
    };
    mkdirSync(path.join(cli, "bin"), { recursive: true });
    copyFileSync(cairnBin, path.join(cli, "bin/cairn.js"));
    copyFileSync(path.join(path.dirname(cairnBin), "package.json"), path.join(cli, "bin/package.json"));
    entry(path.join(cli, "dist/main.js"), "compiled");
    entry(path.join(cli, "dist/bundle/main.js"), "bundle");
    const runLoader = path.join(cli, "dist/bundle/run-loader.cjs");
    copyFileSync(path.join(repoRoot, "packages/cli/dist/bundle/run-loader.cjs"), runLoader);
    const runScript = path.join(cli, "dist/bundle/run-cached.js");
    writeFileSync(runScript, `(function (exports, require, module) { module.exports = { installCrashHandlers() {}, ranTask() { return true; }, beforeCodeCache() {}, async main() { process.stdout.write("run script"); return 0; } }; })`);
    const files = {
      bundle: path.join(cli, "dist/bundle/main.js"),
      runScript,
      runLoader,
      cliBuildInfo: path.join(cli, "tsconfig.tsbuildinfo"),
      coreBuildInfo: path.join(root.dir, "packages/core/tsconfig.tsbuildinfo"),
    };
    mkdirSync(path.dirname(files.coreBuildInfo), { recursive: true });
    writeFileSync(files.cliBuildInfo, "{}");
    writeFileSync(files.coreBuildInfo, "{}");
    const at = (file: string, secondsAgo: number) => utimesSync(file, new Date(Date.now() - secondsAgo * 1000), new Date(Date.now() - secondsAgo * 1000));
    const ran = (...argv: string[]) => execFileSync(process.execPath, [path.join(cli, "bin/cairn.js"), ...(argv.length > 0 ? argv : ["--version"])], { encoding: "utf8", env: { ...process.env, CAIRN_HOME: path.join(root.dir, "home") } });
    return { files, at, ran };
  }

  it("runs the bundle when it is newer than both packages' last compile", () => {
    const { files, at, ran } = layout();
    at(files.cliBuildInfo, 60);
    at(files.coreBuildInfo, 60);
    at(files.bundle, 10);
    expect(ran()).toBe("bundle");
  });

  it("runs the compiled modules after a compile of either package that the bundle does not include", () => {
    const { files, at, ran } = layout();
    at(files.bundle, 30);
    at(files.cliBuildInfo, 60);
    at(files.coreBuildInfo, 5);
    expect(ran()).toBe("compiled");
    at(files.coreBuildInfo, 60);
    at(files.cliBuildInfo, 5);
    expect(ran()).toBe("compiled");
  });

  it("runs the bundle of an installed package, which has no build info, and the compiled modules when there is no bundle", () => {
    const { files, at, ran } = layout();
    at(files.bundle, 10);
    rmSync(files.cliBuildInfo);
    rmSync(files.coreBuildInfo);
    expect(ran()).toBe("bundle");
    rmSync(files.bundle);
    expect(ran()).toBe("compiled");
  });

  it("runs `cairn run` and `cairn resume` from their code-cached script while that is current, other commands from the bundle", () => {
    const { files, at, ran } = layout();
    at(files.cliBuildInfo, 60);
    at(files.coreBuildInfo, 60);
    at(files.bundle, 10);
    at(files.runScript, 10);
    at(files.runLoader, 10);
    expect(ran("run", "a task")).toBe("run script");
    expect(ran("resume", "a1b2c3")).toBe("run script");
    expect(ran("history")).toBe("bundle");
    at(files.runLoader, 120); // a loader older than the compile: not the build that made the script
    expect(ran("run", "a task")).toBe("bundle");
    at(files.runLoader, 10);
    at(files.runScript, 120);
    expect(ran("run", "a task")).toBe("bundle");
  });
});

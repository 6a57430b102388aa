import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { secretRead } from "./secret-paths.js";

describe("secretRead", () => {
  let root: string;
  let home: string;
  let cwd: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "secret-paths-")));
    home = path.join(root, "home");
    cwd = path.join(root, "ws");
    mkdirSync(home);
    mkdirSync(cwd);
    writeFileSync(path.join(home, "fleet-secret"), "s\n");
    writeFileSync(path.join(home, "settings.json"), "{}\n");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("finds the secret by its path, a link to it, a hard link of it and a folder that holds it", () => {
    symlinkSync(path.join(home, "fleet-secret"), path.join(cwd, "link"));
    linkSync(path.join(home, "fleet-secret"), path.join(cwd, "hard"));
    for (const target of [path.join(home, "fleet-secret"), "link", "hard", home, root, "/"]) {
      expect(secretRead(target, { cwd, home })?.path, target).toBe(path.join(home, "fleet-secret"));
    }
  });

  it("a folder holds the secret only while it exists; the file itself is guarded even before it does (a write would make one the model knows)", () => {
    rmSync(path.join(home, "fleet-secret"));
    expect(secretRead(home, { cwd, home })).toBeUndefined();
    expect(secretRead(path.join(home, "fleet-secret"), { cwd, home })?.path).toBe(path.join(home, "fleet-secret"));
  });

  it("leaves the rest of CAIRN_HOME and the workspace alone, and everything when no home is known", () => {
    for (const target of [path.join(home, "settings.json"), cwd, "file.txt"]) expect(secretRead(target, { cwd, home })).toBeUndefined();
    expect(secretRead(path.join(home, "fleet-secret"), { cwd })).toBeUndefined();
  });
});

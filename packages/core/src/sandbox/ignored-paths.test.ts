import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ignoredPaths } from "./ignored-paths.js";

let ws: string;
let elsewhere: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-ignored-")));
  elsewhere = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-elsewhere-")));
});
afterEach(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

const write = (rel: string, text = "x") => {
  mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
  writeFileSync(path.join(ws, rel), text);
};
const masks = () => {
  const result = ignoredPaths(ws);
  if (!result.ok) throw new Error(result.reason);
  return result.masks.map((m) => `${m.kind} ${path.relative(ws, m.path) || m.path}`).sort();
};

describe("ignoredPaths", () => {
  it("is empty without ignore files", () => {
    write(".env");
    expect(masks()).toEqual([]);
  });

  it("lists matched files and folders (a folder whole, not its contents), from .cairnignore and .clineignore", () => {
    write(".env");
    write("config/.env");
    write("secrets/a.txt");
    write("secrets/deep/b.txt");
    write("src/keep.ts");
    write("build/key.pem");
    write(".cairnignore", ".env\nsecrets/\n");
    write(".clineignore", "*.pem\n");
    expect(masks()).toEqual(["dir secrets", "file .env", "file build/key.pem", "file config/.env"]);
  });

  it("masks what either file ignores: a .clineignore created with negations un-masks nothing of .cairnignore", () => {
    write(".env");
    write("secrets/a.txt");
    write("public.key");
    write("notes.txt");
    write(".cairnignore", ".env\nsecrets/\n");
    expect(masks()).toEqual(["dir secrets", "file .env"]);
    write(".clineignore", "!.env\n!secrets/\n!secrets/a.txt\n*.key\n");
    expect(masks()).toEqual(["dir secrets", "file .env", "file public.key"]);
  });

  it("skips node_modules and .git unless a rule names them", () => {
    write("node_modules/pkg/.env");
    write(".git/config");
    write(".cairnignore", ".env\n");
    expect(masks()).toEqual([]);
    write(".cairnignore", ".env\nnode_modules/\n");
    expect(masks()).toEqual(["dir node_modules"]);
  });

  it("masks a matched link at its real target, so the secret is hidden wherever it is", () => {
    writeFileSync(path.join(elsewhere, "real.env"), "secret");
    symlinkSync(path.join(elsewhere, "real.env"), path.join(ws, ".env"));
    write(".cairnignore", ".env\n");
    expect(masks()).toEqual([`file ${path.relative(ws, path.join(elsewhere, "real.env"))}`]);
  });
});

describe("ignoredPaths and hard links", () => {
  it("masks every other name of an ignored file, also of a file in an ignored folder; a hard link of a normal file stays visible", () => {
    write(".env", "SECRET");
    write("secrets/key.pem", "KEY");
    write("shared.txt", "shared");
    write(".cairnignore", ".env\nsecrets/\n");
    mkdirSync(path.join(ws, "docs"));
    linkSync(path.join(ws, ".env"), path.join(ws, "notes.txt"));
    linkSync(path.join(ws, ".env"), path.join(ws, "docs", "env.txt"));
    linkSync(path.join(ws, "secrets", "key.pem"), path.join(ws, "docs", "key.txt"));
    linkSync(path.join(ws, "shared.txt"), path.join(ws, "docs", "shared-copy.txt"));
    expect(masks()).toEqual(["dir secrets", "file .env", "file docs/env.txt", "file docs/key.txt", "file notes.txt"]);
  });

  it("masks an ignored node_modules whole without looking into it", () => {
    write("shared.txt", "shared");
    write("node_modules/pkg/index.js");
    linkSync(path.join(ws, "shared.txt"), path.join(ws, "node_modules", "pkg", "copy.txt"));
    write(".cairnignore", "node_modules/\n");
    expect(masks()).toEqual(["dir node_modules"]);
  });

  it("sees a hard link made after the last walk, wherever in the walked tree it is made", () => {
    write(".env", "SECRET");
    write("src/deep/a.ts");
    write(".cairnignore", ".env\n");
    expect(masks()).toEqual(["file .env"]);
    linkSync(path.join(ws, ".env"), path.join(ws, "src", "deep", "b.ts"));
    expect(masks()).toEqual(["file .env", "file src/deep/b.ts"]);
    rmSync(path.join(ws, "src", "deep", "b.ts"));
    expect(masks()).toEqual(["file .env"]);
  });
});

describe("ignoredPaths between commands", () => {
  it("reuses the last walk only while no folder changed: new, removed and renamed entries at any depth are seen at once", () => {
    write(".cairnignore", "*.pem\nsecret/\n");
    write("src/deep/a.ts");
    expect(masks()).toEqual([]);
    write("src/deep/key.pem");
    expect(masks()).toEqual(["file src/deep/key.pem"]);
    mkdirSync(path.join(ws, "src", "secret"));
    expect(masks()).toEqual(["dir src/secret", "file src/deep/key.pem"]);
    rmSync(path.join(ws, "src", "deep", "key.pem"));
    expect(masks()).toEqual(["dir src/secret"]);
    writeFileSync(path.join(ws, ".cairnignore"), "*.ts\n");
    expect(masks()).toEqual(["file src/deep/a.ts"]);
  });
});

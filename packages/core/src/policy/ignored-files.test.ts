import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ignoredFiles } from "./ignored-files.js";

let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-ignored-files-")));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const write = (rel: string, text = "x") => {
  mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
  writeFileSync(path.join(ws, rel), text);
};
const limits = { maxEntries: 1_000, maxMatches: 100, maxInsideIgnored: 100 };

describe("ignoredFiles", () => {
  it("finds the other names of ignored files, in ignored folders too, and says the look was complete", () => {
    write(".cairnignore", "data/\n.env\n");
    write(".env", "SECRET");
    write("data/a/key.txt", "KEY");
    linkSync(path.join(ws, ".env"), path.join(ws, "one.txt"));
    linkSync(path.join(ws, "data", "a", "key.txt"), path.join(ws, "two.txt"));
    const found = ignoredFiles(ws, limits);
    if (!found.ok) throw new Error(found.reason);
    expect(found.hardLinks.map((file) => path.relative(ws, file)).sort()).toEqual(["one.txt", "two.txt"]);
    expect(found.linkedIdentities.size).toBe(2);
    expect(found.complete).toBe(true);
  });

  it("says so when an ignored folder holds more than it looks at, instead of failing the walk", () => {
    write(".cairnignore", "data/\n");
    for (let i = 0; i < 5; i += 1) write(`data/f${i}.bin`);
    const found = ignoredFiles(ws, { ...limits, maxInsideIgnored: 3 });
    if (!found.ok) throw new Error(found.reason);
    expect(found.matched.map((m) => path.relative(ws, m.path))).toEqual(["data"]);
    expect(found.complete).toBe(false);
  });

  it("fails the walk, with a reason a person can act on, past the entry or match limits", () => {
    write(".cairnignore", "*.log\n");
    for (let i = 0; i < 5; i += 1) write(`logs/f${i}.log`);
    const tooManyMatches = ignoredFiles(ws, { ...limits, maxMatches: 3 });
    expect(tooManyMatches).toEqual({ ok: false, reason: "the ignore files match more than 3 paths" });
    const tooManyEntries = ignoredFiles(ws, { ...limits, maxEntries: 4 });
    expect(tooManyEntries).toEqual({ ok: false, reason: "the workspace has more than 4 entries to check against the ignore files" });
  });
});

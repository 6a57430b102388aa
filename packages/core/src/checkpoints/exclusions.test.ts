import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { excludeFileContent, literalPattern } from "./exclusions.js";
import { Checkpoints } from "./index.js";
import { bulkThreshold } from "./stage.js";
import { filesInCheckpoint, read, snapshotTree, tempWorkspace, writeFiles, type TempWorkspace } from "./test-support.js";

let tmp: TempWorkspace;
let ws: string;

beforeEach(async () => {
  tmp = await tempWorkspace();
  ws = tmp.workspace;
});

afterEach(async () => {
  await tmp.cleanup();
});

const open = (maxFileBytes?: number) => Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir, ...(maxFileBytes ? { maxFileBytes } : {}) });

const heavyFiles = {
  "node_modules/pkg/index.js": "module\n",
  "web/node_modules/pkg/index.js": "module\n",
  "dist/bundle.js": "bundle\n",
  "crate/target/debug/app": "binary\n",
  "py/__pycache__/m.cpython-311.pyc": "pyc\n",
  ".venv/lib/site.py": "venv\n",
  ".next/cache/x": "next\n",
  "coverage/lcov.info": "lcov\n",
  "assets/logo.PNG": "png\n",
  "assets/clip.mp4": "mp4\n",
  "release.tar.gz": "tgz\n",
  "lib/native.so": "so\n",
  "data/app.sqlite": "db\n",
  "server.log": "log\n",
  ".env": "SECRET=1\n",
  ".env.local": "SECRET=2\n",
  "config/.env.production": "SECRET=3\n",
};

describe("what checkpoints leave out", () => {
  it("leaves out heavy folders, binaries, media, archives, databases, logs and .env files", async () => {
    await writeFiles(ws, { "src/index.ts": "code\n", "assets/icon.svg": "<svg/>\n", ...heavyFiles });
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual(["assets/icon.svg", "src/index.ts"]);
  });

  it("follows the workspace's .gitignore files, including nested ones", async () => {
    await writeFiles(ws, {
      ".gitignore": "*.generated.ts\n/tmp/\n",
      "pkg/.gitignore": "local-only.txt\n!keep.generated.ts\n",
      "a.ts": "a\n",
      "a.generated.ts": "gen\n",
      "tmp/scratch.txt": "s\n",
      "pkg/local-only.txt": "l\n",
      "pkg/keep.generated.ts": "kept by negation\n",
      "pkg/other/local-only.txt": "also ignored below pkg\n",
    });
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual([".gitignore", "a.ts", "pkg/.gitignore", "pkg/keep.generated.ts"]);

    // A file already checkpointed leaves the next checkpoint once a .gitignore rule covers it.
    await writeFiles(ws, { "pkg/.gitignore": "local-only.txt\n!keep.generated.ts\na.ts\n" });
    await writeFiles(ws, { ".gitignore": "*.generated.ts\n/tmp/\n" });
    const second = await checkpoints.create("second");
    expect(filesInCheckpoint(checkpoints.gitDir, second.hash).sort()).toEqual([".gitignore", "a.ts", "pkg/.gitignore", "pkg/keep.generated.ts"]);
    await writeFiles(ws, { ".gitignore": "*.generated.ts\n/tmp/\n/a.ts\n" });
    const third = await checkpoints.create("third");
    expect(filesInCheckpoint(checkpoints.gitDir, third.hash).sort()).toEqual([".gitignore", "pkg/.gitignore", "pkg/keep.generated.ts"]);
  });

  it("never touches excluded or ignored files on restore", async () => {
    await writeFiles(ws, { ".gitignore": "ignored.txt\n", "ignored.txt": "before\n", "code.ts": "v1\n", ...heavyFiles });
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    await writeFiles(ws, { "code.ts": "v2\n", "ignored.txt": "after\n", "dist/bundle.js": "rebuilt\n", ".env": "SECRET=rotated\n", "dist/new.js": "new build\n" });
    await rm(path.join(ws, "node_modules"), { recursive: true });
    const excludedAfter = await snapshotTree(ws);

    await checkpoints.restore(first.hash);
    expect(await read(ws, "code.ts")).toBe("v1\n");
    const now = await snapshotTree(ws);
    expect({ ...now, "code.ts": "" }).toEqual({ ...excludedAfter, "code.ts": "" });
  });

  it("respects .cairnignore and .clineignore, re-read at every checkpoint", async () => {
    await writeFiles(ws, { ".cairnignore": "private/\n", ".clineignore": "*.key\n", "private/notes.md": "n\n", "id.key": "k\n", "open.md": "o\n" });
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual([".cairnignore", ".clineignore", "open.md"]);

    await writeFiles(ws, { ".cairnignore": "private/\nopen.md\n" });
    const second = await checkpoints.create("rule added");
    expect(filesInCheckpoint(checkpoints.gitDir, second.hash).sort()).toEqual([".cairnignore", ".clineignore"]);

    // A file that became ignored is left alone by a restore to a checkpoint that still had it.
    await writeFiles(ws, { "open.md": "edited while ignored\n" });
    await checkpoints.restore(first.hash);
    expect(await read(ws, "open.md")).toBe("edited while ignored\n");
    expect(await read(ws, ".cairnignore")).toBe("private/\n");
  });

  it("keeps .env files out whatever an ignore file says (a command may create a .clineignore with !.env)", async () => {
    await writeFiles(ws, { ".clineignore": "!.env\n!.env.local\n", ".env": "SECRET=1\n", ".env.local": "SECRET=2\n", "open.md": "o\n" });
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual([".clineignore", "open.md"]);
  });

  it("lets a .cairnignore negation bring a heavy folder back", async () => {
    await writeFiles(ws, { ".cairnignore": "!build/\n", "build/script.sh": "echo\n", "dist/x.js": "x\n" });
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual([".cairnignore", "build/script.sh"]);
  });

  it("leaves out files over the size limit, and takes them back when they shrink", async () => {
    await writeFiles(ws, { "small.txt": "s\n", "big.txt": "x".repeat(2000), "nested/huge.csv": "y".repeat(5000) });
    const checkpoints = await open(1000);
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual(["small.txt"]);

    await writeFiles(ws, { "small.txt": "z".repeat(1500) });
    const second = await checkpoints.create("small grew");
    expect(filesInCheckpoint(checkpoints.gitDir, second.hash)).toEqual([]);
    await writeFile(path.join(ws, "big.txt"), "now small\n");
    const third = await checkpoints.create("big shrank");
    expect(filesInCheckpoint(checkpoints.gitDir, third.hash)).toEqual(["big.txt"]);

    // Restoring a checkpoint that had small.txt leaves the oversized current file alone.
    await checkpoints.restore(first.hash);
    expect(await read(ws, "small.txt")).toBe("z".repeat(1500));
  });

  it("applies the size limit when many files change at once (the bulk `git add` path)", async () => {
    const many = Object.fromEntries(Array.from({ length: bulkThreshold + 10 }, (_, i) => [`gen/f${i}.txt`, `${i}\n`]));
    await writeFiles(ws, { ...many, "big.txt": "x".repeat(2000) });
    const checkpoints = await open(1000);
    const first = await checkpoints.create("first");
    const files = filesInCheckpoint(checkpoints.gitDir, first.hash);
    expect(files).toHaveLength(bulkThreshold + 10);
    expect(files).not.toContain("big.txt");
  });
});

describe("exclude file", () => {
  it("writes case-insensitive extension rules, literal size-limit paths and the store folder", () => {
    const content = excludeFileContent({ ignoreFiles: ["secret/\n!keep.png"], largeFiles: ["data/a[1]*.csv"], ownFolders: [".cairn/checkpoints"] });
    const lines = content.split("\n");
    expect(lines).toContain("*.[pP][nN][gG]");
    expect(lines).toContain("*.7[zZ]");
    expect(lines).toContain("node_modules/");
    expect(lines).toContain("/.cairn/checkpoints/");
    expect(lines.indexOf("!keep.png")).toBeGreaterThan(lines.indexOf("*.[pP][nN][gG]"));
    expect(lines.at(-2)).toBe("/data/a\\[1\\]\\*.csv");
  });

  it("escapes what gitignore would read as syntax", () => {
    expect(literalPattern("#notes.txt")).toBe("/#notes.txt");
    expect(literalPattern("!bang")).toBe("/!bang");
    expect(literalPattern("trailing ")).toBe("/trailing\\ ");
    expect(literalPattern("a\\b?")).toBe("/a\\\\b\\?");
  });

  it("keeps the checkpoint store out when it lives inside the workspace", async () => {
    await writeFiles(ws, { "a.txt": "a\n" });
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: path.join(ws, ".cairn", "checkpoints") });
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash)).toEqual(["a.txt"]);
    expect((await checkpoints.create("second")).changedFiles).toBe(0);
    await checkpoints.idle(); // its store is not under tmp.baseDir, which cleanup waits for
  });
});

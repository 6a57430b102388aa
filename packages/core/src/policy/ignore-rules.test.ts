import { link, open, mkdir, mkdtemp, realpath, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { IgnoreRules } from "./ignore-rules.js";

let base: string;
let ws: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-ignore-")));
  ws = path.join(base, "ws");
  await mkdir(ws);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const at = (relative: string) => path.join(ws, relative);

/** Which of `paths` (relative to the workspace) the rules block. */
function blocked(rules: IgnoreRules, paths: string[]): string[] {
  return paths.filter((p) => rules.ignores(at(p)));
}

describe("IgnoreRules", () => {
  it("blocks nothing without ignore files", () => {
    const rules = new IgnoreRules(ws);
    expect(rules.files).toEqual([]);
    expect(blocked(rules, ["a.ts", ".env", "secrets/key.pem"])).toEqual([]);
  });

  it("combines the rules of .cairnignore and .clineignore, gitignore syntax", async () => {
    await writeFile(at(".cairnignore"), "# secrets\n.env\n*.pem\n");
    await writeFile(at(".clineignore"), "private/\n");
    const rules = new IgnoreRules(ws);
    expect(rules.files).toEqual([".cairnignore", ".clineignore"]);
    expect(
      blocked(rules, [".env", "config/.env", "certs/server.pem", "private", "private/notes.md", "src/a.ts", "# secrets"]),
    ).toEqual([".env", "config/.env", "certs/server.pem", "private", "private/notes.md"]);
  });

  it("re-includes with ! negation within one file, a later rule winning there", async () => {
    await writeFile(at(".cairnignore"), "*.key\n!public.key\nlogs/*\n!logs/keep.log\n");
    const rules = new IgnoreRules(ws);
    expect(blocked(rules, ["a.key", "public.key", "logs/x.log", "logs/keep.log"])).toEqual(["a.key", "logs/x.log"]);
  });

  it("ignores what either file ignores: one file's negations never re-include what the other ignores", async () => {
    await writeFile(at(".cairnignore"), ".env\nsecret/\n*.key\n!public.key\n");
    const rules = new IgnoreRules(ws);
    const paths = [".env", "secret/a.txt", "a.key", "public.key", "notes.txt"];
    expect(blocked(rules, paths)).toEqual([".env", "secret/a.txt", "a.key"]);

    // A command creates .clineignore to un-ignore the person's files: nothing comes back.
    await writeFile(at(".clineignore"), "!.env\n!secret/\n!secret/a.txt\n!*.key\n");
    expect(blocked(rules, paths)).toEqual([".env", "secret/a.txt", "a.key"]);
    // It can only add: public.key, re-included by .cairnignore, is ignored by .clineignore.
    await writeFile(at(".clineignore"), "!.env\npublic.key\n");
    expect(blocked(rules, paths)).toEqual([".env", "secret/a.txt", "a.key", "public.key"]);
    // Deleted and created again, or .cairnignore emptied: every rule read during the task still stands.
    await rm(at(".clineignore"));
    await writeFile(at(".clineignore"), "!*\n");
    expect(blocked(rules, paths)).toEqual([".env", "secret/a.txt", "a.key", "public.key"]);
    await writeFile(at(".cairnignore"), "");
    await writeFile(at(".clineignore"), "notes.txt\n!.env\n");
    expect(blocked(rules, paths)).toEqual([".env", "secret/a.txt", "a.key", "public.key", "notes.txt"]);
    // The next task reads the files as they are: each file's rules on their own.
    expect(blocked(new IgnoreRules(ws), paths)).toEqual(["notes.txt"]);
  });

  it("applies directory patterns to the folder and everything in it, anchored ones only at the root", async () => {
    await writeFile(at(".cairnignore"), "build/\n/secrets/\ndocs/internal/\n");
    const rules = new IgnoreRules(ws);
    expect(
      blocked(rules, [
        "build",
        "build/out.js",
        "packages/a/build/out.js",
        "secrets",
        "secrets/deep/key.txt",
        "packages/secrets/key.txt",
        "docs/internal/plan.md",
        "docs/public.md",
        "mybuild/x.js",
      ]),
    ).toEqual(["build", "build/out.js", "packages/a/build/out.js", "secrets", "secrets/deep/key.txt", "docs/internal/plan.md"]);
  });

  it("applies a rule added during the task at once, and keeps it when the file changes again", async () => {
    const rules = new IgnoreRules(ws);
    expect(rules.ignores(at("a.txt"))).toBe(false);

    await writeFile(at(".cairnignore"), "a.txt\n");
    expect(rules.ignores(at("a.txt"))).toBe(true);

    // Same size, so only the modification time tells the change apart.
    await writeFile(at(".cairnignore"), "b.txt\n");
    const later = new Date(Date.now() + 5_000);
    await utimes(at(".cairnignore"), later, later);
    expect(blocked(rules, ["a.txt", "b.txt"])).toEqual(["a.txt", "b.txt"]);

    await writeFile(at(".cairnignore"), "b.txt\nc.txt\n");
    expect(blocked(rules, ["a.txt", "b.txt", "c.txt", "d.txt"])).toEqual(["a.txt", "b.txt", "c.txt"]);

    await rm(at(".cairnignore"));
    expect(blocked(rules, ["a.txt", "b.txt", "c.txt", "d.txt"])).toEqual(["a.txt", "b.txt", "c.txt"]);
    expect(rules.files).toEqual([".cairnignore"]);
    // The next task (a new instance) reads the files as the person left them.
    expect(blocked(new IgnoreRules(ws), ["a.txt", "b.txt", "c.txt"])).toEqual([]);
  });

  describe("keeps the rules the task began with, whatever happens to the files", () => {
    beforeEach(async () => {
      await mkdir(at("meta"));
      await writeFile(at("meta/cairnignore"), ".env\n");
      await symlink("meta/cairnignore", at(".cairnignore"));
      await writeFile(at(".clineignore"), "private/\n");
    });

    it("deleting the symlinked .cairnignore or the .clineignore removes no rule", async () => {
      const rules = new IgnoreRules(ws);
      await rm(at(".cairnignore"));
      await rm(at(".clineignore"));
      expect(blocked(rules, [".env", "private/a.md", "src/a.ts"])).toEqual([".env", "private/a.md"]);
      expect(rules.files).toEqual([".cairnignore", ".clineignore"]);
    });

    it("emptying a file, rewriting it with negations or pointing the link elsewhere removes no rule", async () => {
      const rules = new IgnoreRules(ws);
      await writeFile(at("meta/cairnignore"), "");
      await writeFile(at(".clineignore"), "!private/\n!.env\n");
      expect(blocked(rules, [".env", "private/a.md"])).toEqual([".env", "private/a.md"]);
      await writeFile(at("meta/other"), "!.env\nnotes.md\n");
      await rm(at(".cairnignore"));
      await symlink("meta/other", at(".cairnignore"));
      // The new file's rule applies at once; the old ones hold.
      expect(blocked(rules, [".env", "private/a.md", "notes.md", "src/a.ts"])).toEqual([".env", "private/a.md", "notes.md"]);
    });

    it("holds the rules for commands' masks while a run holds them, and lets go after it", async () => {
      const { ignoredFiles } = await import("./ignored-files.js");
      await writeFile(at(".env"), "SECRET=1\n");
      const limits = { maxEntries: 1_000, maxMatches: 100, maxInsideIgnored: 100 };
      const masked = () => (ignoredFiles(ws, limits) as { matched: { path: string }[] }).matched.map((m) => path.relative(ws, m.path));
      const rules = new IgnoreRules(ws);
      const release = rules.holdForCommands();
      await rm(at(".cairnignore"));
      expect(masked()).toContain(".env");
      // A rule the person adds during the run is held too, once a command's start has read it.
      await writeFile(at(".clineignore"), "private/\nnotes.md\n");
      await writeFile(at("notes.md"), "n\n");
      expect(masked()).toContain("notes.md");
      await writeFile(at(".clineignore"), "");
      expect(masked()).toEqual(expect.arrayContaining([".env", "notes.md"]));
      release();
      expect(masked()).toEqual([]);
    });
  });

  it("never matches the workspace itself or paths outside it, but does match names starting with ..", async () => {
    await writeFile(at(".cairnignore"), "*\n");
    const rules = new IgnoreRules(ws);
    expect(rules.ignores(ws)).toBe(false);
    expect(rules.ignores(base)).toBe(false);
    expect(rules.ignores(path.join(base, "other", "file.txt"))).toBe(false);
    expect(rules.ignores(path.resolve(ws, "..", "sibling.txt"))).toBe(false);
    expect(rules.ignores("/etc/passwd")).toBe(false);
    expect(rules.ignores(at("..env"))).toBe(true);
    expect(rules.ignores(at("src/a.ts"))).toBe(true);
  });

  it("ignores a folder named like an ignore file", async () => {
    await mkdir(at(".cairnignore"));
    const rules = new IgnoreRules(ws);
    expect(rules.files).toEqual([]);
    expect(rules.ignores(at("a.txt"))).toBe(false);
  });

  describe("judges a path by the file it names, not by how it is written", () => {
    beforeEach(async () => {
      await writeFile(at(".cairnignore"), ".env\nsecret/\n");
      await writeFile(at(".env"), "SECRET=1\n");
      await mkdir(at("secret"));
      await writeFile(at("secret/key.txt"), "key\n");
      await writeFile(at("notes.txt"), "notes\n");
      await mkdir(at("docs"));
    });

    it("blocks symlinks shipped in the repository that lead to an ignored file or folder", async () => {
      await symlink("../.env", at("docs/cfg.txt"));
      await symlink("../secret", at("docs/vault"));
      await symlink(at("secret/key.txt"), at("docs/abs-key"));
      await symlink("../notes.txt", at("docs/ok.txt"));
      const rules = new IgnoreRules(ws);
      expect(blocked(rules, ["docs/cfg.txt", "docs/vault", "docs/vault/key.txt", "docs/vault/new.txt", "docs/abs-key", "docs/ok.txt", "notes.txt"])).toEqual([
        "docs/cfg.txt",
        "docs/vault",
        "docs/vault/key.txt",
        "docs/vault/new.txt",
        "docs/abs-key",
      ]);
    });

    it("blocks a dangling link whose target would be an ignored file", async () => {
      await rm(at(".env"));
      await symlink("../.env", at("docs/cfg.txt"));
      expect(new IgnoreRules(ws).ignores(at("docs/cfg.txt"))).toBe(true);
    });

    it("blocks the kernel's names of the workspace: /proc/<pid>/root, /proc/self/fd and /dev/fd", async () => {
      const rules = new IgnoreRules(ws);
      expect(rules.ignores(`/proc/${process.pid}/root${ws}/.env`)).toBe(true);
      expect(rules.ignores(`/proc/self/root${ws}/secret/key.txt`)).toBe(true);
      expect(rules.ignores(`/proc/self/root${ws}/notes.txt`)).toBe(false);
      const handle = await open(at(".env"), "r");
      const control = await open(at("notes.txt"), "r");
      try {
        expect(rules.ignores(`/proc/self/fd/${handle.fd}`)).toBe(true);
        expect(rules.ignores(`/dev/fd/${handle.fd}`)).toBe(true);
        expect(rules.ignores(`/dev/fd/${control.fd}`)).toBe(false);
      } finally {
        await handle.close();
        await control.close();
      }
    });

    it("blocks .. through an ignored folder, and through a symlinked folder, by where it lands", async () => {
      await mkdir(at("a/b"), { recursive: true });
      await symlink(at("a/b"), at("docs/b-link"));
      const rules = new IgnoreRules(ws);
      expect(rules.ignores(path.join(ws, "secret", "..", ".env"))).toBe(true);
      expect(rules.ignores(`${ws}/secret/../notes.txt`)).toBe(false);
      // The kernel resolves docs/b-link/.. to a/, not docs/: written as a string, it is a/../.env.
      expect(rules.ignores(`${ws}/docs/b-link/../../.env`)).toBe(true);
    });

    it("still blocks by the written path when the real one differs (a link named like an ignored file)", async () => {
      await symlink("notes.txt", at(".env-link"));
      await writeFile(at(".cairnignore"), ".env-link\n");
      const rules = new IgnoreRules(ws);
      expect(rules.ignores(at(".env-link"))).toBe(true);
      expect(rules.ignores(at("notes.txt"))).toBe(false);
    });

    it("treats a workspace reached through a symlinked path the same", async () => {
      const alias = path.join(base, "ws-alias");
      await symlink(ws, alias);
      const rules = new IgnoreRules(alias);
      expect(rules.ignores(path.join(alias, ".env"))).toBe(true);
      expect(rules.ignores(path.join(ws, ".env"))).toBe(true);
      expect(rules.ignores(path.join(ws, "notes.txt"))).toBe(false);
    });
  });

  describe("judges a file with other names (hard links) by its identity", () => {
    beforeEach(async () => {
      await writeFile(at(".cairnignore"), ".env\nsecret/\n");
      await writeFile(at(".env"), "SECRET=1\n");
      await mkdir(at("secret"));
      await writeFile(at("secret/key.txt"), "key\n");
      await writeFile(at("shared.txt"), "shared\n");
      await mkdir(at("docs"));
    });

    it("a hard link of an ignored file, or of a file in an ignored folder, is that file; a hard link of a normal file is not", async () => {
      await link(at(".env"), at("notes.txt"));
      await link(at("secret/key.txt"), at("docs/key-copy.txt"));
      await link(at("shared.txt"), at("docs/shared-copy.txt"));
      const rules = new IgnoreRules(ws);
      expect(rules.ignores(at("notes.txt"))).toBe(false); // no rule names it...
      expect(rules.ignoresLinked(await stat(at("notes.txt")))).toBe("ignored"); // ...but it is .env
      expect(rules.ignoresLinkedAt(at("docs/key-copy.txt"))).toBe("ignored");
      expect(rules.ignoresLinkedAt(at("docs/shared-copy.txt"))).toBeUndefined();
      expect(rules.ignoresLinkedAt(at("shared.txt"))).toBeUndefined();
      expect(rules.ignoresLinkedAt(at("missing.txt"))).toBeUndefined();
    });

    it("sees a link made after the first look (a moment later), and forgets it at the next task once the ignore rule is gone", async () => {
      await link(at("shared.txt"), at("shared-copy.txt"));
      const rules = new IgnoreRules(ws);
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        expect(rules.ignoresLinkedAt(at("shared.txt"))).toBeUndefined(); // walks, finding .env with one link
        await link(at(".env"), at("docs/later.txt"));
        vi.setSystemTime(Date.now() + 1_500);
        expect(rules.ignoresLinkedAt(at("docs/later.txt"))).toBe("ignored");
      } finally {
        vi.useRealTimers();
      }
      await writeFile(at(".cairnignore"), "secret/\n");
      // The rule holds for this task; the next task (a new instance) no longer has it.
      expect(rules.ignoresLinkedAt(at("docs/later.txt"))).toBe("ignored");
      expect(new IgnoreRules(ws).ignoresLinkedAt(at("docs/later.txt"))).toBeUndefined();
    });
  });
});

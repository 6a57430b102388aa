import { describe, expect, it } from "vitest";
import { blockedWriteNote } from "./blocked-write.js";

const set = { workspace: "/home/p/ws", readOnlyWorkspace: false, writable: ["/home/p/.npm"] };

describe("blockedWriteNote", () => {
  it("explains a read-only file system error, naming the way to allow it", () => {
    const note = blockedWriteNote("sh: 1: cannot create /etc/x: Read-only file system\n", set);
    expect(note).toMatch(/sandbox blocked a write outside the workspace and \/tmp/);
    expect(note).toMatch(/--sandbox off/);
    expect(blockedWriteNote("Error: EROFS: read-only file system, open '/usr/lib/x'", set)).toBeDefined();
  });

  it("explains a permission error on a path outside the writable set, not one inside it", () => {
    expect(blockedWriteNote("mkdir: cannot create directory '/opt/app': Permission denied", set)).toBeDefined();
    expect(blockedWriteNote("bash: ./run.sh: Permission denied", set)).toBeUndefined();
    expect(blockedWriteNote("touch: cannot touch '/home/p/ws/locked': Permission denied", set)).toBeUndefined();
    expect(blockedWriteNote("EACCES: permission denied, open '/home/p/.npm/_cacache/x'", set)).toBeUndefined();
    expect(blockedWriteNote("EACCES: permission denied, open '/tmp/x'", set)).toBeUndefined();
  });

  it("says .git is read-only and who can run git when a git write or a rename of .git is blocked", () => {
    const lines = [
      "fatal: Unable to create '/home/p/ws/.git/index.lock': Read-only file system",
      "fatal: cannot lock ref 'refs/heads/x': Unable to create '/home/p/ws/.git/refs/heads/x.lock': Read-only file system",
      "mv: cannot move '.git' to 'x': Device or resource busy",
      "sh: 1: cannot create .git/commondir: Read-only file system",
    ];
    for (const line of lines) expect(blockedWriteNote(`${line}\n`, set), line).toMatch(/\.git is read-only in the OS sandbox.*run it themselves, or run Cairn with --sandbox off/);
    expect(blockedWriteNote("mv: cannot move 'a' to 'b': Device or resource busy", set)).toBeUndefined();
    expect(blockedWriteNote("touch: cannot touch '/etc/.gitconfig': Read-only file system", set)).not.toMatch(/\.git is read-only/);
  });

  it("says nothing for ordinary output", () => {
    expect(blockedWriteNote("all tests passed\n", set)).toBeUndefined();
  });

  it("in read-only mode says the workspace is read-only too", () => {
    expect(blockedWriteNote("cannot create new.txt: Read-only file system", { ...set, readOnlyWorkspace: true })).toMatch(/workspace is read-only too/);
  });
});

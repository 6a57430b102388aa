import { describe, expect, it } from "vitest";
import { refusedWrite } from "./write-refused.js";

describe("refusedWrite", () => {
  it("finds Node's, npm's and Python's words for a write the sandbox refused, with the path where one is named", () => {
    expect(refusedWrite("Error: EROFS: read-only file system, open '/home/me/notes/a.json'")).toEqual({ code: "EROFS", path: "/home/me/notes/a.json" });
    const npm = "npm error code EROFS\nnpm error syscall open\nnpm error rofs Invalid response body: EROFS: read-only file system, open '/root/.npm/_cacache/tmp/x'";
    expect(refusedWrite(npm)).toEqual({ code: "EROFS", path: "/root/.npm/_cacache/tmp/x" });
    expect(refusedWrite("OSError: [Errno 30] Read-only file system: '/srv/data/db.sqlite'")).toEqual({ code: "EROFS", path: "/srv/data/db.sqlite" });
    expect(refusedWrite("PermissionError: [Errno 13] Permission denied: \"/etc/app.conf\"")).toEqual({ code: "EACCES", path: "/etc/app.conf" });
    expect(refusedWrite("npm error code EROFS")).toEqual({ code: "EROFS", path: undefined });
    // A missing folder counts only in a hidden one (CAIRN_HOME: the server sees just its own state folder there).
    const missing = "ENOENT: no such file or directory, open '/home/me/.cairn/mcp-state/mem/memory.jsonl'";
    expect(refusedWrite(missing, ["/home/me/.cairn"])).toEqual({ code: "ENOENT", path: "/home/me/.cairn/mcp-state/mem/memory.jsonl" });
    expect(refusedWrite(missing)).toBeUndefined();
    expect(refusedWrite(missing, ["/home/me/.cairn"], ["/home/me/.cairn/mcp-state/mem"])).toBeUndefined();
  });

  it("says nothing of output without a refused write", () => {
    expect(refusedWrite("Knowledge Graph MCP Server running on stdio")).toBeUndefined();
    expect(refusedWrite("")).toBeUndefined();
    expect(refusedWrite("GitHub API error: permission denied for this token")).toBeUndefined();
  });
});

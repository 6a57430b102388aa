import { describe, expect, it } from "vitest";
import { branchProblem, refProblem, repoProblem } from "./git-target.js";

describe("repoProblem", () => {
  it("takes the shapes a person gives: an absolute path, file/git/http(s)/ssh URLs, user@host:path", () => {
    for (const repo of ["/srv/repos/api", "/home/p/my repo", "file:///srv/api.git", "git://host/api.git", "https://github.com/acme/api.git", "ssh://git@host:22/api.git", "git+ssh://host/api", "git@github.com:acme/api.git", "host:api.git", "ssh://[::1]/r"]) {
      expect(repoProblem(repo), repo).toBeUndefined();
    }
  });

  it("refuses what git would read as an option or a program: a leading -, <transport>::, ssh hosts and users starting with -, other schemes, control characters, relative paths", () => {
    for (const repo of ["--upload-pack=touch /tmp/x;", "-u@h:", "ext::sh -c touch% /tmp/x", "fd::3", "EXT::x", "ssh://-oProxyCommand=touch%20x/p", "ssh://-x@host/p", "-oProxyCommand=x@host:p", "ftp://h/p", "/srv/a\nb", "/srv/\x1b]52;c;eA==\x07", "relative/path", ""]) {
      expect(repoProblem(repo), repo).toMatch(/^repository ".*" .+; a fleet job's repository is an absolute path/s);
    }
  });
});

describe("refProblem", () => {
  it("takes branches, tags, commits and rev expressions; refuses options and what no rev looks like", () => {
    for (const ref of ["main", "v1.2.0", "release/2024", "HEAD~2", "main^", "@", "main@{1}", "0123abcd"]) expect(refProblem(ref), ref).toBeUndefined();
    for (const ref of ["--output=/tmp/x", "-n", "a b", "HEAD:secret", "x\x1b[2J", "", "a".repeat(300)]) expect(refProblem(ref), ref).toBeDefined();
  });
});

describe("branchProblem", () => {
  it("a job's branch is cairn/<job id>, nothing else", () => {
    expect(branchProblem("cairn/3f9c2a71be")).toBeUndefined();
    for (const branch of ["main", "--upload-pack=x", "cairn/--x", "cairn/a..b", "cairn/a b", "cairn/x.lock", "cairn/a/../../b"]) expect(branchProblem(branch), branch).toBeDefined();
  });
});

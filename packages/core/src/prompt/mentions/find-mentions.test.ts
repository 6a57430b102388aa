import { describe, expect, it } from "vitest";
import { findMentions } from "./find-mentions.js";

function raws(text: string): string[] {
  return findMentions(text).map((m) => m.raw);
}

describe("findMentions", () => {
  it("finds every kind, in order", () => {
    expect(findMentions('Fix @/src/app.ts using @/docs/ and @"notes/my file.md", see @https://example.com/a?b=1 @git-changes @a1b2c3d @terminal @problems')).toEqual([
      { kind: "path", raw: "@/src/app.ts", path: "src/app.ts", folder: false },
      { kind: "path", raw: "@/docs/", path: "docs", folder: true },
      { kind: "path", raw: '@"notes/my file.md"', path: "notes/my file.md", folder: false },
      { kind: "url", raw: "@https://example.com/a?b=1", url: "https://example.com/a?b=1" },
      { kind: "git-changes", raw: "@git-changes" },
      { kind: "commit", raw: "@a1b2c3d", hash: "a1b2c3d" },
      { kind: "terminal", raw: "@terminal" },
      { kind: "problems", raw: "@problems" },
    ]);
  });

  it("leaves sentence punctuation and unmatched brackets out of paths and URLs", () => {
    expect(raws("Look at @/src/app.ts, then @/lib/x.ts.")).toEqual(["@/src/app.ts", "@/lib/x.ts"]);
    expect(raws("(see @https://en.wikipedia.org/wiki/Foo_(bar))")).toEqual(["@https://en.wikipedia.org/wiki/Foo_(bar)"]);
    expect(raws("(see @/src/app.ts)")).toEqual(["@/src/app.ts"]);
    expect(raws("Is it @/README.md?")).toEqual(["@/README.md"]);
  });

  it("e-mail addresses, user@host and escaped @ are not mentions", () => {
    expect(raws("Mail a@b.com or ops@example.org; ssh git@github.com:/x; \\@/src/app.ts")).toEqual([]);
    expect(raws("https://x.org/@/user and foo@terminal")).toEqual([]);
  });

  it("nothing inside inline code or fenced blocks is a mention", () => {
    const text = [
      "Run `cat @/secret.txt` and ``echo @problems``",
      "```sh",
      "curl @https://example.com",
      "```",
      "~~~",
      "@git-changes",
      "~~~",
      "but @/real.ts counts",
    ].join("\n");
    expect(raws(text)).toEqual(["@/real.ts"]);
    expect(raws("```\nunclosed @/a.ts")).toEqual([]);
    expect(raws("a lone ` then @/b.ts")).toEqual(["@/b.ts"]);
  });

  it("keywords and hashes need a word boundary; repeated targets count once", () => {
    expect(raws("@terminals @problems-list @git-changes2 @abc12 @a1b2c3d-x @ABCDEF0")).toEqual(["@ABCDEF0"]);
    expect(findMentions("@ABCDEF0")[0]).toMatchObject({ hash: "abcdef0" });
    expect(raws("@/a.ts and @/a.ts again, @terminal @terminal")).toEqual(["@/a.ts", "@terminal"]);
    expect(raws('@"" and @"  "')).toEqual([]);
    expect(findMentions("@/")).toEqual([{ kind: "path", raw: "@/", path: "", folder: true }]);
  });
});

import { describe, expect, it } from "vitest";
import { cutAround, MatchCollector } from "./collect-matches.js";
import { formatMatches } from "./format-matches.js";

// Lines in the shape `rg --json` prints them (rg 13 and 15 agree on these).
const begin = (path: string) => JSON.stringify({ type: "begin", data: { path: { text: path } } });
const line = (type: "match" | "context", path: string, number: number, text: string, start = 0) =>
  JSON.stringify({
    type,
    data: {
      path: { text: path },
      lines: { text: `${text}\n` },
      line_number: number,
      absolute_offset: 0,
      submatches: type === "match" ? [{ match: { text: "x" }, start, end: start + 1 }] : [],
    },
  });
const summary = JSON.stringify({ data: { stats: { matches: 1 } }, type: "summary" });

function collector(options: { keepLimit?: number; countLimit?: number; blocked?: string[] } = {}) {
  return new MatchCollector({
    cwd: "/ws",
    isBlocked: (absolute) => (options.blocked ?? []).includes(absolute),
    keepLimit: options.keepLimit ?? 300,
    countLimit: options.countLimit ?? 3000,
    maxLineChars: 40,
  });
}

function render(c: MatchCollector): string {
  return formatMatches(c.collected.files, {
    display: (absolute) => absolute.replace("/ws/", ""),
    context: 1,
    maxChars: 10_000,
  }).text;
}

describe("MatchCollector", () => {
  it("keeps the context after the last kept match but not the context before an unkept one", () => {
    const c = collector({ keepLimit: 2 });
    const feed = [
      begin("./a.ts"),
      line("match", "./a.ts", 1, "x one"),
      line("context", "./a.ts", 2, "after one"),
      line("context", "./a.ts", 4, "before two"),
      line("match", "./a.ts", 5, "x two"),
      line("context", "./a.ts", 6, "after two"),
      line("context", "./a.ts", 7, "before three"),
      line("match", "./a.ts", 8, "x three"),
      line("context", "./a.ts", 9, "after three"),
      begin("./b.ts"),
      line("context", "./b.ts", 1, "before four"),
      line("match", "./b.ts", 2, "x four"),
      summary,
    ];
    for (const text of feed) expect(c.onLine(text)).toBe("more");
    expect(render(c)).toBe(
      ["a.ts", "│----", "│1 >| x one", "│2  | after one", "│----", "│4  | before two", "│5 >| x two", "│6  | after two", "│----"].join("\n"),
    );
    expect(c.collected).toMatchObject({ totalMatches: 4, totalFiles: 2, sawSummary: true });
    // Past the cap only lines that could still border a kept match are held in memory.
    expect(c.collected.files.flatMap((file) => file.lines.map((l) => l.number))).toEqual([1, 2, 4, 5, 6, 7]);
  });

  it("drops every line of a blocked file, from the count too", () => {
    const c = collector({ blocked: ["/ws/secret.txt"] });
    for (const text of [
      begin("secret.txt"),
      line("match", "secret.txt", 1, "x secret"),
      begin("open.txt"),
      line("match", "open.txt", 1, "x open"),
    ]) {
      c.onLine(text);
    }
    expect(render(c)).not.toContain("secret");
    expect(c.collected).toMatchObject({ totalMatches: 1, totalFiles: 1 });
  });

  it("asks to stop at the count limit", () => {
    const c = collector({ keepLimit: 1, countLimit: 3 });
    c.onLine(begin("a.ts"));
    expect([1, 2, 3].map((n) => c.onLine(line("match", "a.ts", n, "x")))).toEqual(["more", "more", "stop"]);
  });

  it("decodes non-UTF-8 lines and paths, skips lines that are not JSON, and reads other key orders", () => {
    const c = collector();
    c.onLine(JSON.stringify({ type: "begin", data: { path: { bytes: Buffer.from("caf\xe9.txt", "latin1").toString("base64") } } }));
    c.onLine('{"type":"match", broken');
    c.onLine(
      JSON.stringify({
        data: { path: { text: "x" }, lines: { bytes: Buffer.from("x\xff\n", "latin1").toString("base64") }, line_number: 3, submatches: [] },
        type: "match",
      }),
    );
    // The path keeps its byte (the tool opens the file by it and shows it as caf\xe9.txt); a line's text is for reading only.
    expect(render(c)).toBe(["caf\udce9.txt", "│----", "│3 >| x\ufffd", "│----"].join("\n"));
    expect(c.collected.totalMatches).toBe(2); // the broken line still counts as a match from its prefix
  });

  it("cuts a long matching line around its match, counting rg's byte offset in characters", () => {
    const c = collector();
    const text = `${"é".repeat(100)}x${"b".repeat(100)}`;
    c.onLine(begin("a.ts"));
    c.onLine(line("match", "a.ts", 1, text, Buffer.byteLength("é".repeat(100))));
    expect(render(c).split("\n")[2]).toBe(`│1 >| …${"é".repeat(10)}x${"b".repeat(29)}…`);
  });
});

describe("cutAround", () => {
  it("keeps short text and marks each cut side", () => {
    expect(cutAround("short", 2, 10)).toBe("short");
    expect(cutAround("0123456789abcdef", 0, 8)).toBe("01234567…");
    expect(cutAround("0123456789abcdef", 15, 8)).toBe("…89abcdef");
    expect(cutAround("0123456789abcdef", 8, 8)).toBe("…6789abcd…");
  });
});

import { describe, expect, it } from "vitest";
import { XmlStreamParser, type BlockAmbiguity, type XmlParseEvent, type XmlToolSpec } from "./stream-parser.js";

const TOOLS: XmlToolSpec[] = [
  { name: "read_file", params: ["path", "start_line", "end_line"] },
  { name: "write_to_file", params: ["path", "content"], rawParams: ["content"] },
  { name: "replace_in_file", params: ["path", "diff"], rawParams: ["diff"] },
  { name: "execute_command", params: ["command", "requires_approval"] },
  { name: "attempt_completion", params: ["result", "command"] },
];
const RAW = new Map(TOOLS.map((t) => [t.name, new Set(t.rawParams ?? [])]));

type ToolEnd = { name: string; params: Record<string, string>; truncated?: true; ambiguous?: BlockAmbiguity };
type Parsed = { text: string; starts: string[]; tools: ToolEnd[] };

/** Feeds the chunks and checks the invariants every chunking must keep; returns what a consumer would keep. */
function parse(chunks: readonly string[]): Parsed {
  const parser = new XmlStreamParser(TOOLS);
  const events: XmlParseEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.end());

  let text = "";
  const starts: string[] = [];
  const tools: ToolEnd[] = [];
  const streamed = new Map<string, string>();
  for (const e of events) {
    switch (e.type) {
      case "text":
        expect(e.text).not.toBe("");
        text += e.text;
        break;
      case "tool-start":
        expect(e.index).toBe(starts.length);
        starts.push(e.name);
        break;
      case "param-delta": {
        expect(e.index).toBe(starts.length - 1);
        const key = `${e.index}:${e.param}`;
        streamed.set(key, (e.restart ? "" : (streamed.get(key) ?? "")) + e.text);
        break;
      }
      case "tool-end": {
        expect(e.index).toBe(tools.length);
        expect(e.name).toBe(starts[e.index]);
        for (const [param, value] of Object.entries(e.params)) {
          const deltas = streamed.get(`${e.index}:${param}`) ?? "";
          if (RAW.get(e.name)?.has(param)) expect(deltas).toBe(value);
          else {
            expect(deltas.trimEnd()).toBe(value);
            expect(deltas).toBe(deltas.trimStart());
          }
        }
        tools.push({ name: e.name, params: e.params, ...(e.truncated ? { truncated: e.truncated } : {}), ...(e.ambiguous ? { ambiguous: e.ambiguous } : {}) });
        break;
      }
    }
  }
  expect(tools.length).toBe(starts.length);
  return { text, starts, tools };
}

/** Deterministic RNG (mulberry32) so random chunkings are reproducible. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomChunks(message: string, random: () => number, maxSize: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < message.length; ) {
    const size = 1 + Math.floor(random() * maxSize);
    chunks.push(message.slice(i, i + size));
    i += size;
  }
  return chunks;
}

const lines = (...l: string[]): string => l.join("\n");
const tool = (name: string, params: Record<string, string>, truncated?: true, ambiguous?: BlockAmbiguity): ToolEnd => ({
  name,
  params,
  ...(truncated ? { truncated } : {}),
  ...(ambiguous ? { ambiguous } : {}),
});

type Case = { name: string; message: string; text: string; tools: ToolEnd[] };

const TS_CONTENT = [
  'export const CLOSE = "</content>";',
  'export const END = "</write_to_file>";',
  "// a template: <content>{body}</content> then <path>x</path>",
].join("\n");

const ATOM_CONTENT = ["<entry>", '  <content type="html">hi</content>', "</entry>"].join("\n");

/** A file that documents the tool: complete blocks at line starts, a mention mid-line. */
const NESTED = lines(
  "# Writing files",
  "Use `<write_to_file>` to write one:",
  "<write_to_file>",
  "<path>x.txt</path>",
  "<content>",
  "hi",
  "</content>",
  "</write_to_file>",
  "or on one line:",
  "<write_to_file><path>y</path><content>2</content></write_to_file>",
  "That is all.",
);

const NESTED_DIFF = lines(
  "------- SEARCH",
  "old",
  "=======",
  "<replace_in_file>",
  "<path>a</path>",
  "<diff>",
  "x",
  "</diff>",
  "</replace_in_file>",
  "+++++++ REPLACE",
);

const DIFF = ["------- SEARCH", 'const END = "</diff>";', "=======", 'const END = "</diff>\\n";', "+++++++ REPLACE"].join("\n");

const CASES: Case[] = [
  {
    name: "prose then a call",
    message: lines("I'll read it first.", "<read_file>", "<path>src/a.ts</path>", "</read_file>"),
    text: "I'll read it first.\n",
    tools: [tool("read_file", { path: "src/a.ts" })],
  },
  {
    name: "several calls with prose between; trimmed params",
    message: lines(
      "First the file.",
      "<read_file>",
      "<path> src/a.ts </path>",
      "<start_line>",
      "10",
      "</start_line>",
      "</read_file>",
      "",
      "Then the tests:",
      "<execute_command>",
      "<command>npm test</command>",
      "<requires_approval>false</requires_approval>",
      "</execute_command>",
      "Waiting.",
    ),
    text: "First the file.\n\n\nThen the tests:\n\nWaiting.",
    tools: [
      tool("read_file", { path: "src/a.ts", start_line: "10" }),
      tool("execute_command", { command: "npm test", requires_approval: "false" }),
    ],
  },
  {
    name: "write_to_file content containing </content>, </write_to_file>, <content> and <path>",
    message: lines("Writing the constants.", "<write_to_file>", "<path>src/tags.ts</path>", "<content>", TS_CONTENT, "</content>", "</write_to_file>", "Done."),
    text: "Writing the constants.\n\nDone.",
    tools: [tool("write_to_file", { path: "src/tags.ts", content: TS_CONTENT })],
  },
  {
    name: "XML content whose </content> is followed by a newline and another tag",
    message: lines("<write_to_file>", "<path>feed.xml</path>", "<content>", ATOM_CONTENT, "</content>", "</write_to_file>"),
    text: "",
    tools: [tool("write_to_file", { path: "feed.xml", content: ATOM_CONTENT })],
  },
  {
    name: "a second </content> later: the first is content",
    message: lines("<write_to_file>", "<path>a.txt</path>", "<content>", "x</content>", "</content>", "</write_to_file>"),
    text: "",
    tools: [tool("write_to_file", { path: "a.txt", content: "x</content>" })],
  },
  {
    name: "</content> followed by <content> (the same param) is content",
    message: lines("<write_to_file>", "<path>a.txt</path>", "<content>", "a</content>", "<content>b", "</content>", "</write_to_file>"),
    text: "",
    tools: [tool("write_to_file", { path: "a.txt", content: "a</content>\n<content>b" })],
  },
  {
    name: "</content> followed by another param's opening tag ends the value",
    message: lines("<write_to_file>", "<content>", "body", "</content>", "  <path>p.ts</path>", "</write_to_file>"),
    text: "",
    tools: [tool("write_to_file", { content: "body", path: "p.ts" })],
  },
  {
    name: "content holding <content>hello</content> and <path>x</path>: the value ends at the last </content>",
    message: lines("<write_to_file>", "<path>a.txt</path>", "<content>", "<content>hello</content>", "<path>x</path>", "</content>", "</write_to_file>"),
    text: "",
    tools: [tool("write_to_file", { path: "a.txt", content: "<content>hello</content>\n<path>x</path>" })],
  },
  {
    name: "params after the content: a <path> between two </content> is content, the one after the last is the param",
    message: lines("<write_to_file>", "<content>", "A", "</content>", "<path>x</path>", "</content>", "<path>real.txt</path>", "</write_to_file>"),
    text: "",
    tools: [tool("write_to_file", { content: "A\n</content>\n<path>x</path>", path: "real.txt" })],
  },
  {
    name: "unknown elements between the content and </tool> are ignored",
    message: lines("<write_to_file>", "<path>p</path>", "<content>", "c", "</content>", "<task_progress>- [x] <b>one</b></task_progress>", "</write_to_file>"),
    text: "",
    tools: [tool("write_to_file", { path: "p", content: "c" })],
  },
  {
    name: "content holding complete <write_to_file> blocks is kept whole",
    message: lines("Here:", "<write_to_file>", "<path>doc.md</path>", "<content>", NESTED, "</content>", "</write_to_file>", "Done."),
    text: "Here:\n\nDone.",
    tools: [tool("write_to_file", { path: "doc.md", content: NESTED })],
  },
  {
    name: "a diff holding a complete <replace_in_file> block is kept whole",
    message: lines("<replace_in_file>", "<path>r.md</path>", "<diff>", NESTED_DIFF, "</diff>", "</replace_in_file>"),
    text: "",
    tools: [tool("replace_in_file", { path: "r.md", diff: NESTED_DIFF })],
  },
  {
    name: "closing tags in the content without their opening tag: ambiguous, never cut silently",
    message: lines("<write_to_file>", "<path>snippet.txt</path>", "<content>", "the end of an example:", "</content>", "</write_to_file>", "more of the file", "</content>", "</write_to_file>", "<read_file>", "<path>z</path>", "</read_file>"),
    text: "\nmore of the file\n</content>\n</write_to_file>\n",
    tools: [
      tool("write_to_file", { path: "snippet.txt", content: "the end of an example:" }, undefined, { param: "content", tag: "</content>", where: "after-block" }),
      tool("read_file", { path: "z" }),
    ],
  },
  {
    name: "a stray </write_to_file> after the block: ambiguous",
    message: lines("<write_to_file>", "<path>s</path>", "<content>", "a", "</content>", "</write_to_file>", "b", "</write_to_file>"),
    text: "\nb\n</write_to_file>",
    tools: [tool("write_to_file", { path: "s", content: "a" }, undefined, { param: "content", tag: "</write_to_file>", where: "after-block" })],
  },
  {
    name: "a <write_to_file> opening a line in the content, never closed: ambiguous and truncated",
    message: lines("<write_to_file>", "<path>n.md</path>", "<content>", "<write_to_file> is the tool", "</content>", "</write_to_file>", "ok"),
    text: "",
    tools: [
      tool(
        "write_to_file",
        { path: "n.md", content: "<write_to_file> is the tool\n</content>\n</write_to_file>\nok" },
        true,
        { param: "content", tag: "<write_to_file>", where: "unclosed-nested" },
      ),
    ],
  },
  {
    name: "replace_in_file diff with SEARCH/REPLACE markers and </diff> inside",
    message: lines("Fixing the marker.", "<replace_in_file>", "<path>src/x.ts</path>", "<diff>", DIFF, "</diff>", "</replace_in_file>"),
    text: "Fixing the marker.\n",
    tools: [tool("replace_in_file", { path: "src/x.ts", diff: DIFF })],
  },
  {
    name: "execute_command with </command> in the command",
    message: lines(
      "<execute_command>",
      "<command>printf '</command>\\n' > tag.txt && cat tag.txt</command>",
      "<requires_approval>false</requires_approval>",
      "</execute_command>",
      "<attempt_completion>",
      '<command>echo "</command>"</command>',
      "<result>done</result>",
      "</attempt_completion>",
    ),
    text: "\n",
    tools: [
      tool("execute_command", { command: "printf '</command>\\n' > tag.txt && cat tag.txt", requires_approval: "false" }),
      tool("attempt_completion", { command: 'echo "</command>"', result: "done" }),
    ],
  },
  {
    name: "content whose first line is indented, with blank lines kept",
    message: lines("<write_to_file>", "<path>a.py</path>", "<content>", "", "    return 1", "", "  # end", "", "</content>", "</write_to_file>"),
    text: "",
    tools: [tool("write_to_file", { path: "a.py", content: "\n    return 1\n\n  # end\n" })],
  },
  {
    name: "empty content, with and without framing newline",
    message: lines("<write_to_file>", "<path>a</path>", "<content></content>", "</write_to_file>", "<write_to_file>", "<path>b</path>", "<content>", "</content>", "</write_to_file>"),
    text: "\n",
    tools: [tool("write_to_file", { path: "a", content: "" }), tool("write_to_file", { path: "b", content: "" })],
  },
  {
    name: "CRLF message: framing \\r\\n removed, inner \\r\\n kept",
    message: "I'll write it.\r\n<write_to_file>\r\n<path>w.txt</path>\r\n<content>\r\nline1\r\n  line2\r\n</content>\r\n</write_to_file>\r\nok",
    text: "I'll write it.\r\n\r\nok",
    tools: [tool("write_to_file", { path: "w.txt", content: "line1\r\n  line2" })],
  },
  {
    name: "a lone \\r is content",
    message: "<write_to_file>\n<path>r</path>\n<content>\ra\r</content>\n</write_to_file>",
    text: "",
    tools: [tool("write_to_file", { path: "r", content: "\ra\r" })],
  },
  {
    name: "tags in inline code are prose",
    message: lines("Use `<read_file>` to read and ``<write_to_file>`` to write; `a` <b>.", "``<read_file>`` too", "<read_file>", "<path>a</path>", "</read_file>"),
    text: "Use `<read_file>` to read and ``<write_to_file>`` to write; `a` <b>.\n``<read_file>`` too\n",
    tools: [tool("read_file", { path: "a" })],
  },
  {
    name: "a stray backtick only makes the rest of its line code",
    message: lines("A stray ` backtick <read_file>", "<read_file>", "<path>b</path>", "</read_file>"),
    text: "A stray ` backtick <read_file>\n",
    tools: [tool("read_file", { path: "b" })],
  },
  {
    name: "fenced code block with tags in it is prose",
    message: lines("For example:", "```xml", "<div>", "<read_file>", "<path>x</path>", "</read_file>", "```", "Now for real:", "<read_file>", "<path>y</path>", "</read_file>"),
    text: lines("For example:", "```xml", "<div>", "<read_file>", "<path>x</path>", "</read_file>", "```", "Now for real:", ""),
    tools: [tool("read_file", { path: "y" })],
  },
  {
    name: "fenced code block starting with prose is prose",
    message: lines("```", "Call it like this: <read_file>", "```", "Ok."),
    text: lines("```", "Call it like this: <read_file>", "```", "Ok."),
    tools: [],
  },
  {
    name: "longer fence is not closed by a shorter one",
    message: lines("````md", "```", "<read_file>", "<path>q</path>", "</read_file>", "```", "````", ""),
    text: lines("````md", "```", "<read_file>", "<path>q</path>", "</read_file>", "```", "````", ""),
    tools: [],
  },
  {
    name: "a call wrapped in a ```xml fence: the fence is framing",
    message: lines("Let me look.", "```xml", "<read_file>", "<path>a.ts</path>", "</read_file>", "```", "Then I'll decide."),
    text: "Let me look.\n\nThen I'll decide.",
    tools: [tool("read_file", { path: "a.ts" })],
  },
  {
    name: "two indented calls in one fence, unclosed at the end of the message",
    message: lines("```", "  <read_file>", "  <path>a</path>", "  </read_file>", "", "<read_file>", "<path>b</path>", "</read_file>", "```"),
    text: "\n\n\n",
    tools: [tool("read_file", { path: "a" }), tool("read_file", { path: "b" })],
  },
  {
    name: "a call in a ~~~ fence",
    message: lines("~~~", "<read_file>", "<path>t</path>", "</read_file>", "~~~", "next"),
    text: "\nnext",
    tools: [tool("read_file", { path: "t" })],
  },
  {
    name: "unknown tags and <thinking> are prose",
    message: lines("<thinking>I should read <div> first; <foo_bar>x</foo_bar></thinking>", "<read_file>", "<path>a</path>", "</read_file>"),
    text: "<thinking>I should read <div> first; <foo_bar>x</foo_bar></thinking>\n",
    tools: [tool("read_file", { path: "a" })],
  },
  {
    name: "a tool tag with attributes is prose; a call mid-line is a call",
    message: '<read_file path="a">x</read_file> and then:<read_file><path>b</path></read_file>done',
    text: '<read_file path="a">x</read_file> and then:done',
    tools: [tool("read_file", { path: "b" })],
  },
  {
    name: "unknown param tags are ignored; a repeated param: the last wins",
    message: lines("<write_to_file>", "<task_progress>- [x] read <b>it</b></task_progress>", "<path>old.ts</path>", "<path>new.ts</path>", "<content>x</content>", "</write_to_file>"),
    text: "",
    tools: [tool("write_to_file", { path: "new.ts", content: "x" })],
  },
  {
    name: "truncated inside the last param",
    message: lines("Writing.", "<write_to_file>", "<path>big.ts</path>", "<content>", "line 1", "line 2 is cut"),
    text: "Writing.\n",
    tools: [tool("write_to_file", { path: "big.ts", content: "line 1\nline 2 is cut" }, true)],
  },
  {
    name: "truncated inside the param's closing tag",
    message: lines("<write_to_file>", "<path>a</path>", "<content>", "abc", "</cont"),
    text: "",
    tools: [tool("write_to_file", { path: "a", content: "abc" }, true)],
  },
  {
    name: "truncated after the param's closing tag",
    message: lines("<write_to_file>", "<path>a</path>", "<content>", "abc", "</content>", "</write_"),
    text: "",
    tools: [tool("write_to_file", { path: "a", content: "abc" }, true)],
  },
  {
    name: "truncated between params",
    message: lines("<read_file>", "<path>a</path>", ""),
    text: "",
    tools: [tool("read_file", { path: "a" }, true)],
  },
  {
    name: "truncated right after the opening tag; a half tag in prose is text",
    message: "Use <read_fi or <read_file>",
    text: "Use <read_fi or ",
    tools: [tool("read_file", {}, true)],
  },
  {
    name: "truncated in prose: held text is flushed",
    message: lines("Look:", "```xml", "  "),
    text: lines("Look:", "```xml", "  "),
    tools: [],
  },
];

describe("XmlStreamParser", () => {
  describe.each(CASES)("$name", ({ message, text, tools }) => {
    it("parses the message in one push", () => {
      const parsed = parse([message]);
      expect(parsed.text).toBe(text);
      expect(parsed.tools).toEqual(tools);
    });

    it("gives the same result split at every offset, in 1-char chunks and in random chunks", () => {
      const whole = parse([message]);
      for (let at = 0; at <= message.length; at++) {
        expect(parse([message.slice(0, at), message.slice(at)]), `split at ${at}`).toEqual(whole);
      }
      expect(parse([...message]), "1-char chunks").toEqual(whole);
      const random = rng(message.length);
      for (let run = 0; run < 30; run++) {
        expect(parse(randomChunks(message, random, 1 + (run % 12))), `random run ${run}`).toEqual(whole);
      }
    });
  });

  describe("emits promptly", () => {
    it("holds back only a possible tag in prose", () => {
      const parser = new XmlStreamParser(TOOLS);
      expect(parser.push("Hello <")).toEqual([{ type: "text", text: "Hello " }]);
      expect(parser.push("read")).toEqual([]);
      expect(parser.push("me> world")).toEqual([{ type: "text", text: "<readme> world" }]);
      expect(parser.push("<read_file>")).toEqual([{ type: "tool-start", index: 0, name: "read_file" }]);
    });

    it("streams content, holding a trailing newline and a possible closing tag", () => {
      const parser = new XmlStreamParser(TOOLS);
      const delta = (text: string): XmlParseEvent => ({ type: "param-delta", index: 0, name: "write_to_file", param: "content", text });
      parser.push("<write_to_file>\n<path>a</path>\n");
      expect(parser.push("<content>\nline one\nline two")).toEqual([delta("line one\nline two")]);
      expect(parser.push("\n")).toEqual([]);
      expect(parser.push("x</content>")).toEqual([delta("\nx")]);
      expect(parser.push("  ")).toEqual([]);
      expect(parser.push("y")).toEqual([delta("</content>  y")]);
      expect(parser.push("\n</content>\n</write_to_file>")).toEqual([]);
      expect(parser.end()).toEqual([
        { type: "tool-end", index: 0, name: "write_to_file", params: { path: "a", content: "line one\nline two\nx</content>  y" } },
      ]);
    });

    it("reports a block with file text at the next block or at the end, and one without at once", () => {
      const parser = new XmlStreamParser(TOOLS);
      parser.push("<write_to_file>\n<path>a</path>\n<content>\nx\n</content>\n</write_to_file>\nNext:\n");
      const next = parser.push("<read_file><path>b</path></read_file>");
      expect(next.map((e) => e.type)).toEqual(["tool-end", "tool-start", "param-delta", "tool-end"]);
      expect(next[0]).toMatchObject({ index: 0, name: "write_to_file", params: { path: "a", content: "x" } });
      expect(next[3]).toMatchObject({ index: 1, name: "read_file", params: { path: "b" } });
      expect(parser.end()).toEqual([]);
    });

    it("marks a block wrapped in a fence", () => {
      const parser = new XmlStreamParser(TOOLS);
      const events = [...parser.push("```xml\n<read_file><path>a</path></read_file>\n```\n<read_file><path>b</path></read_file>"), ...parser.end()];
      expect(events.filter((e) => e.type === "tool-end").map((e) => [e.params.path, e.fenced])).toEqual([
        ["a", true],
        ["b", undefined],
      ]);
    });

    it("holds a fence's opening line until its content decides", () => {
      const parser = new XmlStreamParser(TOOLS);
      expect(parser.push("Look:\n```xml\n")).toEqual([{ type: "text", text: "Look:\n" }]);
      expect(parser.push("<read_file>")).toEqual([{ type: "tool-start", index: 0, name: "read_file" }]);
      const code = new XmlStreamParser(TOOLS);
      code.push("```ts\n");
      expect(code.push("const x = 1;")).toEqual([{ type: "text", text: "```ts\nconst x = 1;" }]);
    });

    it("marks a repeated param's first delta as a restart", () => {
      const parser = new XmlStreamParser(TOOLS);
      const events = parser.push("<read_file><path>a</path><path>b</path></read_file>");
      expect(events.filter((e) => e.type === "param-delta")).toEqual([
        { type: "param-delta", index: 0, name: "read_file", param: "path", text: "a" },
        { type: "param-delta", index: 0, name: "read_file", param: "path", text: "b", restart: true },
      ]);
    });
  });

  it("gives the same result under any chunking for random messages built from tricky fragments", () => {
    const fragments = [
      "<", ">", "</", "<read_file>", "</read_file>", "<path>", "</path>", "<content>", "</content>",
      "<write_to_file>", "</write_to_file>", "<execute_command>", "</execute_command>", "<command>", "</command>",
      "<div>", "\n", "\r\n", "\r", " ", "\t", "`", "``", "```", "```xml\n", "~~~\n", "abc", "x y",
    ];
    const random = rng(42);
    for (let n = 0; n < 400; n++) {
      const message = Array.from({ length: 5 + Math.floor(random() * 40) }, () => fragments[Math.floor(random() * fragments.length)]).join("");
      const whole = parse([message]);
      expect(parse([...message]), JSON.stringify(message)).toEqual(whole);
      for (let run = 0; run < 4; run++) {
        expect(parse(randomChunks(message, random, 1 + run * 3)), JSON.stringify(message)).toEqual(whole);
      }
    }
  });

  it("reads a large message in 1-char chunks in linear time", () => {
    const body = "const s = `</content>` + '<path>';\n".repeat(10_000);
    const message = `Writing.\n<write_to_file>\n<path>big.ts</path>\n<content>\n${body}</content>\n</write_to_file>\n`;
    const parser = new XmlStreamParser(TOOLS);
    const started = performance.now();
    let content = "";
    for (const ch of message) {
      for (const e of parser.push(ch)) if (e.type === "param-delta" && e.param === "content") content += e.text;
    }
    parser.end();
    // Linear work is ~50 ms here; re-parsing the message per chunk would take minutes.
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(content).toBe(body.slice(0, -1));
  });

  it("rejects unusable specs and use after end(), saying what to do", () => {
    expect(() => new XmlStreamParser([{ name: "read file", params: [] }])).toThrow(/cannot be written as an XML tag/);
    expect(() => new XmlStreamParser([{ name: "a", params: ["b<"] }])).toThrow(/cannot be written as an XML tag/);
    expect(() => new XmlStreamParser([{ name: "a", params: [] }, { name: "a", params: [] }])).toThrow(/listed twice/);
    expect(() => new XmlStreamParser([{ name: "a", params: ["b"], rawParams: ["c"] }])).toThrow(/not in its params/);
    expect(() => new XmlStreamParser([{ name: "a", params: ["b", "c"], rawParams: ["b", "c"] }])).toThrow(/at most one/);
    const parser = new XmlStreamParser(TOOLS);
    parser.end();
    expect(() => parser.push("x")).toThrow(/create a new parser/);
  });
});

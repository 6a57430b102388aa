import type { AgentEvent } from "@cairn/core";
import { describe, expect, it } from "vitest";
import { markdownLines, renderMarkdown, replyPartLines } from "./markdown-terminal.js";
import { EventPresenter } from "./present-events.js";
import { replyOverflow } from "./reply-overflow.js";
import { SessionView } from "./session-view.js";
import { charWidth } from "./text-rows.js";

// eslint-disable-next-line no-control-regex
const sgrOnly = /\u001b\[[0-9;]*m/g;
const plain = (text: string) => text.replace(sgrOnly, "");
const width = (line: string) => [...plain(line)].reduce((sum, c) => sum + charWidth(c), 0);

const sample = "## Plan\n\n**greet** the `user`:\n\n1. one\n2. two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```ts\nconst x: number = 1;\n```";

describe("markdown in the terminal", () => {
  it("shows the blocks without their markup: heading, strong, code span, ordered list, table, highlighted code", () => {
    const out = renderMarkdown(sample, { width: 60, colour: true });
    const text = plain(out);
    expect(text).not.toMatch(/##|\*\*|```|\|---/);
    expect(text).toContain("Plan");
    expect(text).toContain("greet the user:");
    expect(text).toMatch(/1\. one\n2\. two/);
    expect(text).toMatch(/│ a +│ b +│\n├/);
    expect(text).toContain("const x: number = 1;");
    // Colour: the keyword and the number of the code, the heading.
    expect(out).toContain("\u001b[35mconst\u001b[0m");
    expect(out).toContain("\u001b[33m1\u001b[0m");
    expect(out).toContain("\u001b[1;36mPlan\u001b[0m");
  });

  it("nested lists, quotes, rules, links with their URL, task items", () => {
    const text = plain(renderMarkdown("- a\n  - b\n    1. c\n- [x] done\n\n> quoted\n\n---\n\nsee [docs](https://example.com/d) or <https://example.org>", { width: 70, colour: false }));
    expect(text).toContain("• a\n  ◦ b\n    1. c\n• [x] done");
    expect(text).toContain("│ quoted");
    expect(text).toContain("─".repeat(70));
    expect(text).toContain("see docs (https://example.com/d) or https://example.org");
  });

  it("raw HTML is shown as the text it is", () => {
    const text = plain(renderMarkdown('<script>alert(1)</script>\n\nhi <img src=x onerror="alert(1)"> &amp; there', { width: 80, colour: false }));
    expect(text).toContain("<script>alert(1)</script>");
    expect(text).toContain('hi <img src=x onerror="alert(1)"> & there');
  });

  it("carries no escape sequence of the model's, anywhere: prose, code, a table, a link", () => {
    const evil = ["\u001b]52;c;c2VjcmV0\u0007", "\u001b[2J", "\u009b31m", "\u001b]0;title\u001b\\", "\u001bP1$q\u001b\\", "\r", "\b", "\u202e"];
    const md = evil.map((e, i) => `para ${i} ${e} **b${e}** \`c${e}\`\n\n| h${e} |\n|---|\n| v${e} |\n\n[l${e}](https://x.y/${e})\n\n\`\`\`ts\nconst s = "${e}";\n\`\`\``).join("\n\n");
    const out = renderMarkdown(md, { width: 60, colour: true });
    // Only the renderer's own colours are left; nothing of the model's survives them.
    // eslint-disable-next-line no-control-regex
    expect(out.replace(sgrOnly, "")).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(out).not.toContain("c2VjcmV0");
  });

  it("nor one spelled as character references (&#27; &#x1b; &#155; &#7;), which the parser decodes", () => {
    const refs = ["&#27;[2J", "&#x1b;]52;c;c2VjcmV0&#7;", "&#155;31m", "&#x9d;0;title&#x9c;", "&#8238;"];
    const md = refs.map((r) => `# h ${r}\n\npara ${r} **b ${r}** [l ${r}](https://x.y/) ${r}\n\n| h ${r} |\n|---|\n| v ${r} |\n\n> q ${r}\n\n- i ${r}`).join("\n\n");
    const out = renderMarkdown(md, { width: 60, colour: true });
    // eslint-disable-next-line no-control-regex
    expect(out.replace(sgrOnly, "")).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(plain(out)).toContain("(https://x.y/)");
  });

  it("NO_COLOR: no colour codes, the words and markers stay", () => {
    const out = renderMarkdown(sample, { width: 60, colour: false });
    expect(out).not.toMatch(/\u001b\[[0-9;]*3[0-7][;m]/);
    expect(plain(out)).toContain("const x: number = 1;");
  });

  it("wraps to the width: prose, a long URL, code; a table too wide is shown row by row", () => {
    const md = `${"word ".repeat(40)}\n\nhttps://example.com/${"x".repeat(70)}\n\n\`\`\`\n${"y".repeat(90)}\n\`\`\`\n\n| name | description |\n|---|---|\n| alpha | ${"long ".repeat(20)}|`;
    const lines = markdownLines(md, { width: 30, colour: true });
    for (const line of lines) expect(width(line)).toBeLessThanOrEqual(30);
    const text = lines.map(plain).join("\n");
    expect(text).toContain("name: alpha");
    expect(text).toMatch(/description: long long/);
  });

  it("colours a language by its fence name or alias, loaded on first use; any other name leaves the code plain", () => {
    expect(renderMarkdown("```py\nimport os\n```", { width: 40, colour: true })).toContain("\u001b[35mimport\u001b[0m");
    expect(renderMarkdown("```rs\nfn main() {}\n```", { width: 40, colour: true })).toContain("\u001b[35mfn\u001b[0m");
    for (const name of ["../../../etc/passwd", "constructor", "__proto__", "toString", "nosuchlanguage"]) {
      const out = renderMarkdown(`\`\`\`${name}\nconst x = 1;\n\`\`\``, { width: 60, colour: true });
      expect(out, name).toContain("  const x = 1;");
    }
  });

  it("an unclosed code fence (mid-stream) is code to the end, not prose", () => {
    const text = plain(renderMarkdown("Here:\n\n```py\nx = '**not bold**'\n# not a heading", { width: 60, colour: true }));
    expect(text).toContain("x = '**not bold**'");
    expect(text).toContain("# not a heading");
    expect(text).not.toContain("```");
  });
});

describe("a streamed reply cut into the history", () => {
  it("never splits a table; cuts a code block between lines and carries its fence", () => {
    const table = `| a | b |\n|---|---|\n${Array.from({ length: 30 }, (_, i) => `| ${i} | x |`).join("\n")}\n`;
    expect(replyOverflow(table, 80, 5, undefined).done).toBe("");
    const code = `Intro\n\n\`\`\`ts\n${Array.from({ length: 30 }, (_, i) => `const v${i} = ${i};`).join("\n")}\n`;
    const cut = replyOverflow(code, 80, 5, undefined);
    expect(cut.done).not.toBe("");
    expect(cut.fence).toBe("```ts");
    const again = replyOverflow(`${cut.rest}more();\n\`\`\`\n\nafter\n`, 80, 2, cut.fence);
    expect(again.fence).toBeUndefined();
  });

  it("the parts, each rendered, read as the whole reply: every code line as code, one label, no fences", () => {
    const view = new SessionView({ frameMs: 0, columns: 80, rows: 24 });
    const presenter = new EventPresenter(view);
    const delta = (text: string): AgentEvent => ({ type: "text_delta", message_id: "m1", text });
    const codeLines = Array.from({ length: 40 }, (_, i) => `let n${i} = ${i}; // **${i}**`);
    const reply = `# Title\n\nSome text.\n\n\`\`\`ts\n${codeLines.join("\n")}\n\`\`\`\n\n| k | v |\n|---|---|\n| 1 | 2 |\n\nDone.`;
    // In small pieces, as a model streams.
    for (let at = 0; at < reply.length; at += 7) presenter.apply(delta(reply.slice(at, at + 7)));
    presenter.flushReply();
    view.flush();
    const parts = view.getSnapshot().history.filter((i) => i.kind === "assistant");
    expect(parts.length).toBeGreaterThan(1);
    const shown = parts.map((p) => plain(replyPartLines(p.text, p.fence, { width: 78, colour: true }).join("\n"))).join("\n");
    for (const line of codeLines) expect(shown).toContain(line);
    expect(shown).not.toContain("```");
    expect(shown.match(/^ts$/gm)).toHaveLength(1);
    expect(shown).toMatch(/│ k +│ v +│/);
    // Blocks are a blank line apart across the parts too, and no code block is empty.
    expect(shown).toMatch(/^Title\n\nSome text\.\n\nts\n  let n0 = 0;/);
    expect(shown).toMatch(/┘\n\nDone\.$/);
  });
});

describe("a finished task's result", () => {
  it("is rendered as markdown beside its mark; cairn's own error results stay as written", async () => {
    process.env.FORCE_COLOR = "0";
    const { renderToString } = await import("ink");
    const { createElement } = await import("react");
    const { HistoryItemView } = await import("./history-item.js");
    const { ThemeContext, themeFor } = await import("./theme.js");
    const draw = (item: Parameters<typeof HistoryItemView>[0]["item"]) =>
      plain(renderToString(createElement(ThemeContext.Provider, { value: themeFor({}) }, createElement(HistoryItemView, { item, width: 60 })), { columns: 60 }));
    expect(draw({ key: 1, kind: "result", subtype: "success", text: "Done:\n\n- **greet** fixed\n- `npm test` passes", detail: "2 turns" })).toBe("\n✓ Done:\n\n  • greet fixed\n  • npm test passes\n  2 turns");
    expect(draw({ key: 2, kind: "result", subtype: "error_during_execution", text: "no match for **/*.ts", detail: "1 turn" })).toContain("✗ no match for **/*.ts");
  });
});

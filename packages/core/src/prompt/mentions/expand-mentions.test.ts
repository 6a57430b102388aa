import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IgnoreRules } from "../../policy/ignore-rules.js";
import { expandMentions, type MentionContext } from "./expand-mentions.js";

let base: string;
let ws: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mentions-")));
  ws = path.join(base, "ws");
  await mkdir(ws);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function files(entries: Record<string, string | Buffer>) {
  for (const [name, content] of Object.entries(entries)) {
    const target = path.join(ws, name);
    await mkdir(name.endsWith("/") ? target : path.dirname(target), { recursive: true });
    if (!name.endsWith("/")) await writeFile(target, content);
  }
}

function expand(text: string, extra: Partial<MentionContext> = {}) {
  return expandMentions(text, { cwd: ws, ignore: new IgnoreRules(ws), ...extra });
}

describe("expandMentions: files and folders", () => {
  it("inlines a mentioned file after the person's words, which stay first and intact", async () => {
    await files({ "src/app.ts": "export const answer = 42;\n" });
    const text = "Explain @/src/app.ts, please.";
    const result = await expand(text);
    expect(result.text).toBe(`${text}\n\n<file_content path="src/app.ts">\nexport const answer = 42;\n</file_content>`);
    expect(result.mentioned).toEqual(["src/app.ts"]);
    expect(result.notes).toEqual([]);
  });

  it("an image becomes a picture for a model that takes images, and is refused in one line for one that does not", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    await mkdir(path.join(ws, "shots"));
    await writeFile(path.join(ws, "shots", "ui.png"), png);
    const seen = await expand("What is wrong in @/shots/ui.png?", { modelSupportsImages: true });
    expect(seen.images).toEqual([{ type: "image", mediaType: "image/png", data: png.toString("base64") }]);
    expect(seen.text).toContain("[Image shots/ui.png (16 B), attached to this message]");
    const refusedHere = await expand("What is wrong in @/shots/ui.png?");
    expect(refusedHere.images).toEqual([]);
    expect(refusedHere.notes).toEqual(['@/shots/ui.png was not expanded: "shots/ui.png" is an image, and the current model does not take images; choose one that does (e.g. claude-sonnet-4-5, gpt-5).']);
  });

  it("a quoted path with spaces, a file or a folder", async () => {
    await files({ "my notes/todo list.md": "- ship it\n", "my notes/old/": "" });
    const result = await expand('Read @"my notes/todo list.md" and @"my notes/"');
    expect(result.text).toContain('<file_content path="my notes/todo list.md">\n- ship it\n</file_content>');
    expect(result.text).toContain('<folder_content path="my notes/">\nold/\ntodo list.md\n</folder_content>');
    expect(result.mentioned).toEqual(["my notes/todo list.md", "my notes/"]);
  });

  it("lists a folder one level deep, folders with a slash, blocked entries marked", async () => {
    await files({ "pkg/b.ts": "", "pkg/A.md": "", "pkg/lib/deep.ts": "", "pkg/.env": "SECRET=1", ".cairnignore": ".env\n" });
    const result = await expand("What is in @/pkg/ ?");
    expect(result.text).toContain(
      '<folder_content path="pkg/">\n🔒 .env\nA.md\nb.ts\nlib/\n[🔒 = blocked by .cairnignore: the name is shown, its contents cannot be read]\n</folder_content>',
    );
    expect(result.text).not.toContain("deep.ts");
    expect(result.text).not.toContain("SECRET");
  });

  it("caps a folder listing", async () => {
    const entries = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`many/f${String(i).padStart(2, "0")}.txt`, ""]));
    await files(entries);
    const result = await expand("@/many/", { limits: { folderEntries: 10 } });
    expect(result.text).toContain("f09.txt\n[… and 2 more entries. Use list_files to see them.]");
    expect(result.text).not.toContain("f10.txt");
    expect(result.notes).toEqual(["@/many/: listed the first 10 of 12 entries."]);
  });

  it("caps a big file at 100 KB at a line break, with a note", async () => {
    const line = `${"x".repeat(73)}\n`; // 102400 is not a multiple of 74, so the cut must seek a line break
    await files({ "big.log": line.repeat(4000) }); // 289 KB
    const result = await expand("@/big.log");
    const block = /<file_content path="big.log">\n([\s\S]*)<\/file_content>/.exec(result.text)?.[1] ?? "";
    const shown = `${block.split("\n[Showing")[0] as string}\n`;
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(100 * 1024);
    expect(Buffer.byteLength(shown)).toBeGreaterThan(99 * 1024);
    expect(shown).toMatch(/^(x{73}\n)+$/); // whole lines only
    expect(block).toContain("[Showing the first 100 KB of 289 KB. Use read_file with start_line/end_line for the rest.]");
    expect(result.notes).toEqual(["@/big.log: showing the first 100 KB of 289 KB."]);
  });

  it("a missing file, a binary file: a note, the mention left as text", async () => {
    await files({ "tool.bin": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]) });
    const result = await expand("Compare @/nope.ts with @/tool.bin");
    expect(result.text).toBe(
      'Compare @/nope.ts with @/tool.bin\n\n[@/nope.ts was not expanded: there is no file or folder "nope.ts" in the workspace.]\n\n[@/tool.bin was not expanded: "tool.bin" is a binary file (8 B).]',
    );
    expect(result.notes).toHaveLength(2);
    expect(result.mentioned).toEqual(["tool.bin"]);
  });
});

describe("expandMentions: the workspace boundary", () => {
  it("refuses paths outside the workspace, through .. or a symlink", async () => {
    await writeFile(path.join(base, "outside.txt"), "OUTSIDE-SECRET");
    await symlink(path.join(base, "outside.txt"), path.join(ws, "link.txt"));
    await symlink(base, path.join(ws, "up"));
    const result = await expand("@/../outside.txt @/link.txt @/up/outside.txt @/up/");
    expect(result.text).not.toContain("OUTSIDE-SECRET");
    expect(result.text).not.toContain("<folder_content");
    expect(result.notes).toEqual([
      "@/../outside.txt was not expanded: the path is outside the workspace, and mentions only read inside it.",
      "@/link.txt was not expanded: the path is outside the workspace, and mentions only read inside it.",
      "@/up/outside.txt was not expanded: the path is outside the workspace, and mentions only read inside it.",
      "@/up/ was not expanded: the path is outside the workspace, and mentions only read inside it.",
    ]);
    expect(result.mentioned).toEqual([]);
  });

  it("an absolute-looking @/ path is still workspace-relative", async () => {
    const result = await expand("@/etc/hostname");
    expect(result.notes).toEqual(['@/etc/hostname was not expanded: there is no file or folder "etc/hostname" in the workspace.']);
  });

  it("refuses files and folders blocked by .cairnignore", async () => {
    await files({ ".cairnignore": "secrets/\n*.key\n", "secrets/db.txt": "PASSWORD", "id.key": "PRIVATE", "ok.txt": "fine" });
    const result = await expand("@/secrets/db.txt @/secrets/ @/id.key @/ok.txt");
    expect(result.text).not.toContain("PASSWORD");
    expect(result.text).not.toContain("PRIVATE");
    expect(result.text).toContain('<file_content path="ok.txt">\nfine\n</file_content>');
    expect(result.notes).toEqual([
      "@/secrets/db.txt was not expanded: the path is blocked by .cairnignore.",
      "@/secrets/ was not expanded: the path is blocked by .cairnignore.",
      "@/id.key was not expanded: the path is blocked by .cairnignore.",
    ]);
  });

  it("mentions in code and e-mail addresses are left alone", async () => {
    await files({ "a.ts": "A-CONTENT" });
    const text = "Write to me@a.ts about `@/a.ts`\n```\n@/a.ts\n```";
    const result = await expand(text);
    expect(result).toEqual({ text, mentioned: [], notes: [], images: [] });
  });
});

describe("expandMentions: @terminal and @problems", () => {
  it("@terminal takes the latest output from the host, its end when long", async () => {
    const result = await expand("Why did this fail? @terminal", { latestTerminalOutput: () => "\u001b[31mError: boom\u001b[0m\n" });
    expect(result.text).toContain("<terminal_output>\nError: boom\n</terminal_output>");

    const long = `${"early line\n".repeat(5000)}LAST LINE`;
    const capped = await expand("@terminal", { latestTerminalOutput: () => long, limits: { terminalBytes: 1024 } });
    expect(capped.text).toMatch(/<terminal_output>\n\[Earlier output cut; showing the last 1 KB of 54 KB\.\]\n(early line\n)+LAST LINE\n<\/terminal_output>/);
    expect(capped.notes).toEqual(["@terminal: showing the last 1 KB of the output."]);
  });

  it("@terminal without output or without a host callback: a note", async () => {
    expect((await expand("@terminal", { latestTerminalOutput: () => undefined })).notes).toEqual(["@terminal was not expanded: no command output yet in this session."]);
    expect((await expand("@terminal")).notes).toEqual(["@terminal was not expanded: this host does not share terminal output."]);
  });

  it("@problems runs the configured checker in the workspace", async () => {
    await files({ "check.sh": 'echo "src/a.ts(3,1): error TS2322: Type mismatch" >&2\necho "cwd=$(pwd)"\nexit 2\n' });
    const result = await expand("Fix @problems", { problemsCommand: "sh check.sh" });
    expect(result.text).toContain('<workspace_diagnostics command="sh check.sh" exit_code="2">');
    expect(result.text).toContain("src/a.ts(3,1): error TS2322: Type mismatch");
    expect(result.text).toContain(`cwd=${ws}`);
    expect(result.notes).toEqual([]);
  });

  it("@problems with a clean result, without a command, with a timeout, with a cap", async () => {
    expect((await expand("@problems", { problemsCommand: "true" })).text).toContain('exit_code="0">\nNo problems reported.\n</workspace_diagnostics>');

    const unset = await expand("@problems");
    expect(unset.notes).toEqual([expect.stringContaining('Set "problemsCommand" in settings.json')]);

    const started = Date.now();
    const slow = await expand("@problems", { problemsCommand: "echo started; sleep 20", limits: { problemsTimeoutMs: 300 } });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(slow.text).toContain("started\n[The command did not finish within 0.3 s and was stopped; the output above is partial.]");
    expect(slow.notes).toEqual(['@problems: "echo started; sleep 20" timed out after 0.3 s.']);

    const noisy = await expand("@problems", { problemsCommand: "seq 1 100000", limits: { problemsBytes: 1000 } });
    expect(noisy.text).toContain("\n1\n2\n3\n");
    expect(noisy.text).not.toContain("99999");
    expect(noisy.text).toMatch(/\[Output cut at 1000 B of \d+ KB\.\]/);
  });
});

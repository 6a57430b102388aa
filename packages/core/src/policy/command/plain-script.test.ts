import { beforeAll, describe, expect, it } from "vitest";
import { analyseCommand, shellParserFor } from "./analyse.js";
import { classifyCommand } from "./classify.js";
import { checkCommand } from "./check-command.js";
import { loadShellParser, NeedsParser, plainShell, type ShellParser } from "./parse-shell.js";
import type { CommandAnalysis } from "./segments.js";
import { readPlainScript } from "./plain-script.js";
import { segmentText } from "./forms.js";

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

/** Deterministic RNG (mulberry32), so a failing case can be reproduced. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Words of the plain alphabet that tree-sitter might read differently from plain words: assignment
 * look-alikes, numbers, lone punctuation, reserved words, declaration builtins, and the wrappers
 * and builtins that carry other commands (their scripts are analysed again).
 */
const words = [
  "ls", "-la", "git", "status", "--short", "npm", "test", "--", "--run", "echo", "ok", "cat", "package.json", "./x.sh", "/bin/rm", "rm", "-rf", "/",
  "a=b", "A=1", "A+=1", "_x=", "1A=2", "a.b=c", "=", "==", "=x", "--format=%H", "PROMPT_COMMAND=x", "ENV=1",
  "0", "1", "2", "42", "%1", "@", ":", ".", "..", "+", ",", "-", "a,b", "x:y", "user@host",
  "if", "then", "done", "in", "time", "coproc", "esac", "export", "unset", "local",
  "sh", "bash", "-c", "eval", "sudo", "env", "xargs", "find", "-exec", "alias", "a=ls", "trap", "EXIT", "source", "timeout", "5", "nice", "exec",
  "command", "builtin", "ssh", "host", "watch", "su", "tee", "git", "-C", "sed", "-i", "awk", "python3", "node", "-e", "make", "-j4", "cd", "app",
  // Quoted text: spaces, operators, patterns and code inside quotes, quotes next to words, empty quotes.
  '"ok"', "'a b'", '"x y"z', 'a"b"', "'$(id)'", '""', "''", '"a=b"', 'A="x y"', "A='$(id)'", "A=''", '"if"', "'done'", '"--"', "-m",
  '"fix: it (again)"', "'{a,b}'", "{a,'b'}", '"*.ts"', "'#x'", '"-"', '"rm"', "'rm -rf /'", "'ls; rm x'", "'sudo rm -rf /'", '"a"\'b\'', '"=="',
  "'print(1)'", "'s/a/b/'", '"|"', "'&&'", '"echo hi > /etc/x"', "'a\\b'", "'`id`'", '"~/x"',
  // Redirects: of a file, a descriptor, /dev/null; glued to words, quoted targets, before the name.
  "2>&1", ">&2", "1>&2", "> out", ">out", ">> log", "2>/dev/null", "> /dev/null", "< in.txt", "<in", "1>f", '>"q f"', "2> done", ">&1", "0<x",
  "9>f", "> 'x y'", ">>/dev/null", "2>>err", ">&-", "&>f", ">|f", "<<<x", "a>b",
];
const separators = [" ", " ", " ", " ", " ", " ", "  ", " && ", "&&", " || ", "||", " | ", "|", "; ", ";", " & ", "\t", " ;; ", "|&"];

function randomCommand(next: () => number): string {
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  let text = pick(words);
  const length = 1 + Math.floor(next() * 7);
  for (let i = 0; i < length; i++) text += pick(separators) + pick(words);
  if (next() < 0.05) text += pick([";", " |", " &&", " &"]);
  return text;
}

/** The analysis of a plain command, with and without the parser: each must be tree-sitter's. */
function expectSameReading(command: string): boolean {
  if (readPlainScript(command) === undefined) return false;
  const parsed = analyseCommand(shell, command, { parsePlain: true });
  expect({ command, analysis: analyseCommand(shell, command) }).toEqual({ command, analysis: parsed });
  // Without a parser, unless a script it carries is not plain (`bash -c if`): shellParserFor gives it one.
  const unparsed = needsNoParser(command);
  if (unparsed !== undefined) expect({ command, analysis: unparsed }).toEqual({ command, analysis: parsed });
  return parsed.ok;
}

function needsNoParser(command: string): CommandAnalysis | undefined {
  try {
    return analyseCommand(plainShell, command);
  } catch (error) {
    if (error instanceof NeedsParser) return undefined;
    throw error;
  }
}

describe("plain scripts", () => {
  it("read to tree-sitter's analysis: random scripts of the plain alphabet, wrappers and reserved words", () => {
    const next = rng(26);
    let plain = 0;
    let refused = 0;
    for (let i = 0; i < 30_000; i++) {
      const command = randomCommand(next);
      if (readPlainScript(command) === undefined) continue;
      plain++;
      if (!expectSameReading(command)) refused++;
    }
    // Enough of both kinds that the comparison means something.
    expect(plain).toBeGreaterThan(1200);
    expect(refused).toBeGreaterThan(25);
  });

  it("read to tree-sitter's analysis: every word of up to three characters, in every place a word stands", () => {
    const alphabet = [..."aZ0_./:@%+,=-"];
    const all = [...alphabet];
    for (const a of alphabet) for (const b of alphabet) all.push(a + b, ...alphabet.map((c) => a + b + c));
    let plain = 0;
    for (const w of all) {
      for (const command of [w, `${w} q`, `ls ${w}`, `A=1 ${w} q`, `${w} a=b`, `${w} A=1 q`, `A=${w} ls`, `ls | ${w}`, `ls && ${w} q`, `${w}||ls`, `${w}|ls`, `${w};ls`]) {
        if (readPlainScript(command) !== undefined) plain++;
        expectSameReading(command);
      }
    }
    expect(plain).toBeGreaterThan(10_000);
  });

  it("read to tree-sitter's analysis: every chain of up to seven commands (which one reads a pipe)", () => {
    const operators = ["&&", "||", "|", ";"];
    let chains = [["c0"]];
    for (let n = 1; n < 7; n++) {
      chains = chains.flatMap((chain) => operators.map((op) => [...chain, op, `c${n}`]));
      for (const chain of chains) expectSameReading(chain.join(n % 2 === 0 ? "" : " "));
    }
  });

  it("read to tree-sitter's analysis: random text of every printable character, tabs, line breaks and non-ASCII, and random joins of shell fragments", () => {
    const next = rng(7);
    const pick = <T,>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
    const characters = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), "\t", "\n", "é"];
    const fragments = ["ls", "echo", '"', "'", ">", "2>&1", "|", "&&", ";", "a=b", "-x", "$x", "`", "\\", "*", "#", "~", "{a,b}", "(", ")", "<", ">>", " ", '"a b"', "'c d'", "1", "2", "&", "!", "=="];
    let plain = 0;
    for (let i = 0; i < 20_000; i++) {
      const length = 1 + Math.floor(next() * 9);
      const command = i % 2 === 0 ? `echo ${Array.from({ length }, () => pick(characters)).join("")}` : Array.from({ length }, () => pick(fragments)).join("");
      if (readPlainScript(command) === undefined) continue;
      plain++;
      expectSameReading(command);
    }
    expect(plain).toBeGreaterThan(2_000);
  });

  it("reads the commands models start with", () => {
    const read = (command: string) => readPlainScript(command)?.map((s) => `${[...s.assignments, ...s.words].map((w) => w.source).join(" ")}:${s.stdin}`);
    expect(read("ls -la")).toEqual(["ls -la:inherited"]);
    expect(read("cd app && npm test -- --run")).toEqual(["cd app:inherited", "npm test -- --run:inherited"]);
    expect(read("git log --format=%H -n 5|head -3; CI=1 make -j4")).toEqual(["git log --format=%H -n 5:inherited", "head -3:pipe", "CI=1 make -j4:inherited"]);
    expect(read('grep -rn "TODO (later)" src | head -20')).toEqual(['grep -rn "TODO (later)" src:inherited', "head -20:pipe"]);
    expect(read('git commit -m "Fix the parser: quotes" && git log -n 1')).toEqual(['git commit -m "Fix the parser: quotes":inherited', "git log -n 1:inherited"]);
    for (const command of ['echo "ok" 2>&1', "npm test 2>&1", "ls > out.txt", "make 2>/dev/null", "cat < in.txt", "echo x >&2", "a >> log"]) {
      expect(read(command)).toEqual([`${command.split(/ \d?[<>]/)[0]}:inherited`]);
    }
    const redirected = readPlainScript("npm test 2>&1 | tail -30 > 'last run.txt'");
    expect(redirected?.map((s) => [s.text, s.redirects.map((r) => `${r.descriptor ?? ""}${r.operator}${r.target.pieces[0]?.kind === "lit" ? r.target.pieces[0].text : ""}`)])).toEqual([
      ["npm test 2>&1", ["2>&1"]],
      ["tail -30 > 'last run.txt'", [">last run.txt"]],
    ]);
  });

  it("read to tree-sitter's analysis: every script of up to four characters of quotes, redirects and separators, in every place a word stands", () => {
    const alphabet = [..."a012&><\"' =-|"];
    let scripts = [""];
    const all: string[] = [];
    for (let n = 1; n <= 4; n++) {
      scripts = scripts.flatMap((s) => alphabet.map((c) => s + c));
      all.push(...scripts);
    }
    let plain = 0;
    for (const w of all) {
      for (const command of [w, `ls ${w}`, `ls ${w} q`, `A=${w} ls`, `ls x${w}`]) {
        if (expectSameReading(command) || readPlainScript(command) !== undefined) plain++;
      }
    }
    expect(plain).toBeGreaterThan(5_000);
  });

  it("leaves to the parser what is not plain", () => {
    for (const command of [
      "ls *.ts", "echo $HOME", 'echo "$HOME"', 'echo "a\\"b"', 'echo "hi!"', "echo 'x", "ls;", "a & b", "a\tb", "echo done", "export A=1", "PROMPT_COMMAND=x ls",
      "a.b=c ls", "~/x", "ls # c", "a\nb", "{ ls; }", "", '"ls" -la', "> f ls", "echo a > f b", "ls >&-", "ls &>/dev/null", "cat <<EOF", "ls 2>&1x",
      "echo a>b", "ls >", 'A="$(id)" ls', "echo 'é'",
    ]) {
      expect(readPlainScript(command)).toBeUndefined();
    }
  });

  it("are judged without a parser, the commands their wrappers run included", () => {
    const options = { cwd: "/work/app" };
    expect(classifyCommand("ls -la", options, plainShell)).toEqual({ risk: "safe", reasons: [] });
    expect(classifyCommand("sudo rm -rf /", options, plainShell).risk).toBe("needs_approval");
    expect(classifyCommand("mapfile -C x y", options, plainShell)).toMatchObject({ risk: "needs_approval", reasons: [expect.stringContaining("runs code Cairn cannot check")] });
    const deny = { allow: [], deny: ["rm", "rm *"], allowRedirects: true };
    expect(checkCommand("bash -c rm", deny, plainShell)).toMatchObject({ allowed: false });
    expect(checkCommand("bash -c ls", deny, plainShell)).toEqual({ allowed: true });
    const analysis = analyseCommand(plainShell, "sudo timeout 5 rm -rf /");
    expect(analysis.ok && analysis.segments.map(segmentText)).toEqual(["sudo timeout 5 rm -rf /", "timeout 5 rm -rf /", "rm -rf /"]);
  });
});

describe("shellParserFor", () => {
  it("needs no parser for a plain command, and the parser for any other, or for a plain one carrying a script that is not", async () => {
    expect(await shellParserFor("cd app && npm test")).toBe(plainShell);
    expect(await shellParserFor("echo $(id)")).toBe(shell);
    // `bash -c if`: the command is plain, the script it carries is not.
    expect(await shellParserFor("bash -c if")).toBe(shell);
    expect(analyseCommand(await shellParserFor("bash -c if"), "bash -c if")).toMatchObject({ ok: false, kind: "unparseable" });
  });
});

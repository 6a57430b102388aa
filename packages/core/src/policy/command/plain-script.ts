import { lit, type Word } from "./words.js";

/** A redirect of a plain script: `> out.txt`, `>> log`, `< in`, `2>/dev/null`, `2>&1`, `>&2`. */
export type PlainRedirect = { operator: ">" | ">>" | "<" | ">&"; descriptor?: string; target: Word };

/**
 * One simple command of a plain script: leading NAME=value words, the command's words, the redirects
 * after them, whether a pipe feeds it, and its text (the words through the last redirect).
 */
export type PlainStatement = { assignments: Word[]; words: Word[]; redirects: PlainRedirect[]; stdin: "pipe" | "inherited"; text: string };

/** Characters bash takes literally outside quotes (no expansion, pattern, operator or comment). */
const unquoted = /[\w./:@%+,=-]/;
/** Characters taken literally inside double quotes: printable ASCII but `"`, `\`, `$`, `` ` `` and `!`. */
const doubleQuoted = /[ #%&'()*+,\-./0-9:;<=>?@A-Z[\]^_a-z{|}~]/;
/** Inside single quotes every character is literal; printable ASCII, the space included, but `'`. */
const singleQuoted = /[ -&(-~]/;

/** NAME=value or NAME+=value; tree-sitter-bash reads `_=x` as a word. */
const assignment = /^([A-Za-z]\w*|_\w+)\+?=/;

/**
 * Words that make a script not plain wherever they stand: bash's reserved words, which tree-sitter
 * reads by context, and declaration builtins, whose arguments may be assignments.
 */
const parserWords = new Set([
  "if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "function", "select", "time", "coproc",
  "export", "declare", "local", "readonly", "typeset", "unset",
]);
/** Variables bash runs as code: assigning them is refused, in the parser's wording. */
const codeVariables = new Set(["PROMPT_COMMAND", "BASH_ENV", "ENV"]);

type Token =
  | { kind: "separator"; text: "&&" | "||" | "|" | ";" }
  | { kind: "word"; word: Word; start: number; end: number }
  | { kind: "redirect"; redirect: PlainRedirect; start: number; end: number };

/** What reading stopped at: text no plain script has, or the end of text that may still become one. */
type Stop = "not plain" | "incomplete";

/**
 * Whether a command streamed so far may still be a plain script: it holds nothing a plain script
 * lacks (an unquoted `$`, `*`, `(`, a tab, a line break…), though a quote or a word may be open.
 */
export function plainSoFar(text: string): boolean {
  return tokens(text) !== "not plain";
}

/**
 * Reads a script that needs no parser: simple commands joined by `&&`, `||`, `|` or `;`, whose words
 * are made of letters, digits, `_ . / : @ % + , = -` and quoted text with nothing to expand
 * (`"…"` without `$`, `` ` ``, `\` or `!`; `'…'`), followed by redirects of a file or a descriptor
 * (`> f`, `>> f`, `< f`, `2>/dev/null`, `2>&1`, `>&2`). That covers `ls -la`, `cd app && npm test`,
 * `grep -rn "TODO" src | head -20`, `npm test 2>&1 | tail -30`, `git commit -m "Fix the parser"`.
 * Each word's value is its text with the quotes removed, as bash runs it. The statements are those
 * tree-sitter-bash would find, in order; anything else (a tab, a trailing `;`, `&`, a reserved word,
 * a redirect before or between the words, `a=b` or a quote where a command name belongs) is
 * undefined, and the script is parsed. plain-script.test.ts holds the two readings side by side.
 */
export function readPlainScript(text: string): PlainStatement[] | undefined {
  const read = tokens(text);
  if (typeof read === "string" || read.length === 0) return undefined;
  const statements: PlainStatement[] = [];
  let current: Token[] = [];
  let stdin: PlainStatement["stdin"] = "inherited";
  let pipes = 0;
  const end = (): boolean => {
    const found = current.length === 0 ? undefined : statement(current, stdin, text);
    if (found === undefined) return false;
    statements.push(found);
    current = [];
    return true;
  };
  for (const token of read) {
    if (token.kind === "separator") {
      if (!end()) return undefined;
      // tree-sitter-bash reads `a | b | c && d` as `a | (b | c && d)`, so d reads the pipe: its reading decides.
      if (pipes >= 2 && token.text !== "|" && token.text !== ";") return undefined;
      pipes = token.text === "|" ? pipes + 1 : 0;
      stdin = token.text === "|" ? "pipe" : "inherited";
      continue;
    }
    const word = token.kind === "word" ? token.word : token.redirect.target;
    if (parserWords.has(word.source)) return undefined;
    // `==`, tree-sitter-bash's test operator, is a syntax error in its reading of a command.
    if (word.source.includes("==")) return undefined;
    current.push(token);
  }
  return end() ? statements : undefined;
}

function statement(tokens: readonly Token[], stdin: PlainStatement["stdin"], text: string): PlainStatement | undefined {
  const assignments: Word[] = [];
  const words: Word[] = [];
  const redirects: PlainRedirect[] = [];
  for (const token of tokens) {
    if (token.kind === "redirect") {
      // A redirect before the command's name, or words after one (`echo a > f b`), is read by the
      // parser; so is `- 2> f`, where tree-sitter-bash loses the `-`.
      if (words.length === 0 || (words.at(-1)?.source === "-" && token.redirect.descriptor !== undefined)) return undefined;
      redirects.push(token.redirect);
      continue;
    }
    if (token.kind !== "word" || redirects.length > 0) return undefined;
    const name = words.length === 0 ? assignment.exec(token.word.source)?.[1] : undefined;
    if (name === undefined) {
      words.push(token.word);
      continue;
    }
    if (codeVariables.has(name)) return undefined;
    // x='a[$(cmd)]' runs cmd when x is used in arithmetic: the parser's reading refuses it.
    if (/[$`]/.test(token.word.source)) return undefined;
    assignments.push(token.word);
  }
  const first = tokens[0];
  const last = tokens.at(-1);
  const name = words[0]?.source;
  // A bare `A=` before `|` or `||` trips tree-sitter-bash; a plain script runs a command.
  if (name === undefined || first === undefined || last === undefined || first.kind === "separator" || last.kind === "separator") return undefined;
  // tree-sitter-bash reads `a.b=c`, `user@host` or `x:y` where a command name belongs as broken
  // assignments or variables, and `- a=b` as the assignment alone; a quoted name it reads as a
  // string: its reading decides.
  if (/[=@:%"']/.test(name) || name === "-") return undefined;
  return { assignments, words, redirects, stdin, text: text.slice(first.start, last.end) };
}

/** The script's tokens, or where reading stopped. Spaces separate them; nothing else may. */
function tokens(text: string): Token[] | Stop {
  const found: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " ") {
      i++;
      continue;
    }
    if (c === "&" || c === "|" || c === ";") {
      const pair = text.slice(i, i + 2);
      if (pair === "&&" || pair === "||") {
        found.push({ kind: "separator", text: pair });
        i += 2;
        continue;
      }
      if (c === "&") return i + 1 === text.length ? "incomplete" : "not plain"; // `&` runs in the background
      if (c === "|" && text[i + 1] === "&") return "not plain";
      found.push({ kind: "separator", text: c });
      i++;
      continue;
    }
    const redirect = readRedirect(text, i);
    if (redirect !== undefined) {
      if (typeof redirect === "string") return redirect;
      found.push(redirect);
      i = redirect.end;
      continue;
    }
    const word = readWord(text, i);
    if (typeof word === "string") return word;
    found.push(word);
    i = word.end;
  }
  return found;
}

/** A redirect at `start` (`>`, `>>`, `<`, `>&N`, each after an optional descriptor digit), undefined when none starts there. */
function readRedirect(text: string, start: number): (Token & { kind: "redirect" }) | Stop | undefined {
  let i = start;
  const descriptor = /\d/.test(text[i] ?? "") && /[<>]/.test(text[i + 1] ?? "") ? text[i++] : undefined;
  // tree-sitter-bash reads `0>f` as the word 0 and `>f`: its reading decides.
  if (descriptor === "0") return "not plain";
  const c = text[i];
  if (c !== ">" && c !== "<") return undefined;
  const next = text[i + 1];
  if (next === undefined) return "incomplete";
  if (c === "<" && /[<>&]/.test(next)) return "not plain"; // here-documents, here-strings, <>, <&
  if (c === "<" && descriptor !== undefined) return "not plain"; // tree-sitter-bash reads `0<x` as the word 0 and `<x`
  if (c === ">" && next === "|") return "not plain";
  if (c === ">" && next === "&") {
    // Only a descriptor: `>&file` and `>&-` are left to the parser.
    const digit = text[i + 2];
    if (digit === undefined) return "incomplete";
    if (!/\d/.test(digit)) return "not plain";
    const after = text[i + 3];
    if (after !== undefined && !/[ ;&|]/.test(after)) return "not plain";
    const target: Word = { pieces: [lit(digit)], source: digit };
    return { kind: "redirect", redirect: { operator: ">&", ...(descriptor === undefined ? {} : { descriptor }), target }, start, end: i + 3 };
  }
  const operator = c === ">" && next === ">" ? ">>" : c;
  i += operator.length;
  while (text[i] === " ") i++;
  if (i === text.length) return "incomplete";
  if (/[<>&|;]/.test(text[i]!)) return "not plain";
  const word = readWord(text, i);
  if (typeof word === "string") return word;
  return { kind: "redirect", redirect: { operator, ...(descriptor === undefined ? {} : { descriptor }), target: word.word }, start, end: word.end };
}

/** A word at `start`: unquoted characters and quoted text, up to a space or a separator. */
function readWord(text: string, start: number): (Token & { kind: "word" }) | Stop {
  let value = "";
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "&" || c === "|" || c === ";") break;
    if (c === '"' || c === "'") {
      const allowed = c === '"' ? doubleQuoted : singleQuoted;
      const close = text.indexOf(c, i + 1);
      const inside = text.slice(i + 1, close < 0 ? text.length : close);
      for (const d of inside) if (!allowed.test(d)) return "not plain";
      if (close < 0) return "incomplete";
      value += inside;
      i = close + 1;
      continue;
    }
    // `a>b` is a word and a redirect to bash; the parser reads it.
    if (!unquoted.test(c)) return "not plain";
    value += c;
    i++;
  }
  return { kind: "word", word: { pieces: value === "" ? [] : [lit(value)], source: text.slice(start, i) }, start, end: i };
}

import { literalWord, type Word } from "./words.js";

/** One simple command of a plain script: leading NAME=value words, the command's words, and whether a pipe feeds it. */
export type PlainStatement = { assignments: Word[]; words: Word[]; stdin: "pipe" | "inherited" };

/** The characters of a plain script: word characters that bash takes literally, spaces, and the separators `&&`, `||`, `|`, `;`. */
const plainText = /^[\w.\/:@%+,= ;&|-]*$/;
const token = /[^ ;&|]+|&&|\|\||[;&|]/g;

/** Whether text (a command, or the part of one streamed so far) holds only the characters of a plain script. */
export function plainCharacters(text: string): boolean {
  return plainText.test(text);
}

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

/**
 * Reads a script that needs no parser: simple commands of words made only of letters, digits and
 * `_ . / : @ % + , = -`, joined by `&&`, `||`, `|` or `;` (`ls -la`, `git status`, `cd app && npm
 * test`). Such words have no quotes, expansions, patterns, redirects or comments: each is its own
 * text, as bash runs it. The statements are those tree-sitter-bash would find, in order; anything
 * else (a tab, a trailing `;`, `&`, a reserved word, `a=b` where a command name belongs) is
 * undefined, and the script is parsed. plain-script.test.ts holds the two readings side by side.
 */
export function readPlainScript(text: string): PlainStatement[] | undefined {
  if (text === "" || !plainText.test(text)) return undefined;
  const statements: PlainStatement[] = [];
  let current: string[] = [];
  let stdin: PlainStatement["stdin"] = "inherited";
  let pipes = 0;
  const end = (): boolean => {
    const read = current.length === 0 ? undefined : statement(current, stdin);
    if (read === undefined) return false;
    statements.push(read);
    current = [];
    return true;
  };
  for (const [piece] of text.matchAll(token)) {
    if (piece === "&") return undefined;
    if (piece === "&&" || piece === "||" || piece === "|" || piece === ";") {
      if (!end()) return undefined;
      // tree-sitter-bash reads `a | b | c && d` as `a | (b | c && d)`, so d reads the pipe: its reading decides.
      if (pipes >= 2 && piece !== "|" && piece !== ";") return undefined;
      pipes = piece === "|" ? pipes + 1 : 0;
      stdin = piece === "|" ? "pipe" : "inherited";
      continue;
    }
    // `==`, tree-sitter-bash's test operator, is a syntax error in its reading of a command.
    if (parserWords.has(piece) || piece.includes("==")) return undefined;
    current.push(piece);
  }
  return end() ? statements : undefined;
}

function statement(pieces: readonly string[], stdin: PlainStatement["stdin"]): PlainStatement | undefined {
  let first = 0;
  for (; first < pieces.length; first++) {
    const name = assignment.exec(pieces[first] ?? "")?.[1];
    if (name === undefined) break;
    if (codeVariables.has(name)) return undefined;
  }
  const words = pieces.slice(first);
  const name = words[0];
  // A bare `A=` before `|` or `||` trips tree-sitter-bash; a plain script runs a command.
  if (name === undefined) return undefined;
  // tree-sitter-bash reads `a.b=c`, `user@host` or `x:y` where a command name belongs as broken
  // assignments or variables, and `- a=b` as the assignment alone: its reading decides.
  if (/[=@:%]/.test(name) || name === "-") return undefined;
  return { assignments: pieces.slice(0, first).map(literalWord), words: words.map(literalWord), stdin };
}

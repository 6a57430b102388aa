import type { Node } from "web-tree-sitter";
import { carriedCode } from "./carried-code.js";
import { findForbiddenCharacter } from "./char-check.js";
import { unescapeBackquoted } from "./decode.js";
import { evaluatingBuiltin } from "./evaluating-builtins.js";
import { refuseEvaluation } from "./evaluation.js";
import { loadShellParser, NeedsParser, plainShell, type ShellParser } from "./parse-shell.js";
import { readPlainScript } from "./plain-script.js";
import { Unanalysable, type CommandAnalysis, type Redirect, type Segment } from "./segments.js";
import { groupAdjacent, WordReader } from "./word-reader.js";
import { unwrap, type Unwrapped } from "./wrappers.js";
import { displayWords, staticValue, type Word } from "./words.js";

/** sh -c, eval, $(…), backquotes and wrappers nested deeper than this are refused. */
export const maxNesting = 12;
/** Syntax trees deeper than this are refused rather than walked. */
const maxTreeDepth = 400;
const maxLength = 200_000;

/** What the analysis found; `parsePlain`: plain scripts are parsed too (the tests that hold both readings side by side). */
type Output = { segments: Segment[]; redirects: Redirect[]; parsePlain: boolean };
/** What tree-sitter-bash nests inside a redirect but belongs elsewhere (see Walker.redirect). */
type Spill = { continuations: Node[]; words: Node[] };
type Stdin = Segment["stdin"];

/**
 * Parses a command with tree-sitter-bash and lists every simple command it would run: those in
 * chains, pipes, lists, groups, subshells, control flow and function bodies, in $(…), backquotes
 * and <(…)/>(…), in arguments, assignments, redirect targets and heredocs, and the commands
 * wrappers run (see wrappers.ts). Anything it cannot follow is a failed analysis. A plain script
 * (plain-script.ts) is read without the parser, to the same segments.
 */
export function analyseCommand(shell: ShellParser, command: string, options: { parsePlain?: boolean } = {}): CommandAnalysis {
  const out: Output = { segments: [], redirects: [], parsePlain: options.parsePlain === true };
  try {
    analyseScript(shell, command, 0, [], out);
    return { ok: true, segments: out.segments, redirects: out.redirects };
  } catch (error) {
    if (error instanceof Unanalysable) return { ok: false, ...error.detail };
    throw error;
  }
}

/**
 * The parser a command's analysis needs: none when the command and every script it carries (sh -c,
 * eval, …) are plain (plain-script.ts), else tree-sitter-bash, loaded by the first command that
 * needs it. `ls -la` or `cd app && npm test` runs without waiting for the parser to load.
 */
export async function shellParserFor(command: string): Promise<ShellParser> {
  try {
    analyseCommand(plainShell, command);
    return plainShell;
  } catch (error) {
    if (error instanceof NeedsParser) return loadShellParser();
    throw error;
  }
}

function analyseScript(shell: ShellParser, script: string, depth: number, via: string[], out: Output): void {
  if (depth > maxNesting) {
    throw new Unanalysable({ kind: "too-deep", problem: `it nests commands more than ${maxNesting} levels deep (sh -c, eval, $(…), wrappers)` });
  }
  if (script.length > maxLength) throw new Unanalysable({ kind: "too-long", problem: `it is longer than ${maxLength} characters` });
  const text = script.replace(/^[ \t\n]+|[ \t\n]+$/g, "");
  if (text.includes("\0")) throw new Unanalysable({ kind: "character", problem: "it contains a NUL character, which can hide a second command" });
  const plain = out.parsePlain ? undefined : readPlainScript(text);
  if (plain !== undefined) {
    for (const { assignments, words, redirects: written, stdin, text } of plain) {
      const statement = firstLine(text);
      const redirects = written.map(({ operator, descriptor, target }): Redirect => {
        const redirect: Redirect = { operator, harmless: isHarmless(operator, staticValue(target)), statement, target };
        if (descriptor !== undefined) redirect.descriptor = descriptor;
        return redirect;
      });
      out.redirects.push(...redirects);
      const input = redirects.some((r) => inputOperators.has(r.operator)) ? "redirect" : stdin;
      addSegment(shell, out, { assignments, words, via, stdin: input, redirects, programFromStdin: false, runsGeneratedProgram: false }, depth);
    }
    return;
  }
  shell.withTree(text, (root) => {
    if (root.hasError) throw new Unanalysable({ kind: "unparseable", problem: `it could not be parsed as bash (${syntaxErrorAt(root, text)})` });
    const forbidden = findForbiddenCharacter(root, text, maxTreeDepth);
    if (forbidden?.kind === "too-deep") throw new Unanalysable({ kind: "too-deep", problem: "its syntax is nested too deeply" });
    if (forbidden !== undefined) {
      throw new Unanalysable({ kind: "character", problem: `it contains ${forbidden.description} outside quotes, which can hide a second command` });
    }
    new Walker(shell, text, depth, via, out).statement(root, "inherited", 0);
  });
}

function syntaxErrorAt(root: Node, text: string): string {
  const bad = firstError(root);
  if (bad === undefined) return "syntax error";
  if (bad.isMissing) return `missing "${bad.type}" at character ${bad.startIndex + 1}`;
  const near = text.slice(bad.startIndex, bad.startIndex + 20).split("\n")[0] ?? "";
  return near === "" ? "unexpected end of command" : `syntax error near "${near}"`;
}

function firstError(root: Node): Node | undefined {
  let node = root;
  for (;;) {
    if (node.isError || node.isMissing) return node;
    const next = node.children.find((c) => c.hasError || c.isMissing);
    if (next === undefined) return node === root ? undefined : node;
    node = next;
  }
}

/** Node types that group statements; their named children are statements. */
const groupTypes = new Set([
  "program", "list", "compound_statement", "subshell", "do_group", "if_statement", "elif_clause", "else_clause",
  "while_statement", "negated_command", "function_definition", "case_statement", "case_item", "for_statement",
]);
/** Children of control-flow nodes that are words or expressions rather than statements. */
const expressionFields = new Set(["value", "variable", "name", "initializer", "condition_expression", "update"]);
const reservedWords = new Set(["{", "}", "(", ")", "!", "[[", "]]", "if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "function", "select"]);
const redirectTypes = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);
const inputOperators = new Set(["<", "<<", "<<-", "<<<", "<&"]);

/** Redirects tree-sitter-bash put on a whole list or pipeline, waiting for the command bash gives them to. */
type Attached = { redirects: Redirect[]; words: Node[] };

class Walker {
  readonly #words: WordReader;
  /** By node id: the last command of a list or pipeline and the redirects written after it (see redirected). */
  readonly #attached = new Map<number, Attached>();

  constructor(
    readonly shell: ShellParser,
    readonly text: string,
    readonly depth: number,
    readonly via: string[],
    readonly out: Output,
  ) {
    this.#words = new WordReader(text, maxTreeDepth, {
      substitution: (node, inDoubleQuotes) => this.substitution(node, inDoubleQuotes),
    });
  }

  statement(node: Node, stdin: Stdin, treeDepth: number): void {
    if (treeDepth > maxTreeDepth) throw new Unanalysable({ kind: "too-deep", problem: "its syntax is nested too deeply" });
    const next = treeDepth + 1;
    const type = node.type;
    const attached = this.#attached.get(node.id);
    if (attached !== undefined) {
      this.#attached.delete(node.id);
      return this.attach(node, stdin, attached, next);
    }
    if (type === "comment") return;
    if (type === "command") return this.command(node, stdin, []);
    if (type === "pipeline") return this.pipeline(node, stdin, next);
    if (type === "redirected_statement") return this.redirected(node, stdin, next);
    if (type === "variable_assignment" || type === "variable_assignments") return this.assignments(node, stdin);
    if (type === "declaration_command" || type === "unset_command") return this.declaration(node, stdin);
    if (type === "test_command") return this.#words.scan(node, 0);
    if (redirectTypes.has(type)) return this.redirectOnly(node);
    if (type === "c_style_for_statement") {
      refuseEvaluation(node);
      for (const child of node.namedChildren) {
        if (child.type === "do_group" || child.type === "compound_statement") this.statement(child, stdin, next);
        else this.#words.scan(child, 0);
      }
      return;
    }
    if (!groupTypes.has(type)) {
      throw new Unanalysable({ kind: "unanalysable", problem: `it uses a shell construct Cairn does not check ("${type}")`, segment: firstLine(node.text) });
    }
    node.children.forEach((child, i) => {
      if (!child.isNamed) return;
      const field = node.fieldNameForChild(i);
      if (field !== null && expressionFields.has(field)) {
        this.#words.scan(child, 0); // for-loop values, case patterns, function names: words, not commands
        return;
      }
      this.statement(child, stdin, next);
    });
  }

  private pipeline(node: Node, stdin: Stdin, treeDepth: number): void {
    let afterPipe = false;
    for (const child of node.children) {
      if (!child.isNamed) {
        if (child.type === "|" || child.type === "|&") afterPipe = true;
        continue;
      }
      this.statement(child, afterPipe ? "pipe" : stdin, treeDepth);
    }
  }

  private redirected(node: Node, stdin: Stdin, treeDepth: number): void {
    const body = node.childForFieldName("body");
    // tree-sitter-bash reads `a && b > f` and `a | b > f` as the whole list or pipeline redirected;
    // bash gives the redirects to its last command (`a && (b > f)`), and so does the analysis.
    let last = body;
    while (last !== null && (last.type === "list" || last.type === "pipeline")) last = last.lastNamedChild;
    const statement = firstLine(this.text.slice((last ?? node).startIndex, node.endIndex));
    const redirects: Redirect[] = [];
    const spill: Spill = { continuations: [], words: [] };
    const before = this.out.redirects.length;
    node.children.forEach((child, i) => {
      if (node.fieldNameForChild(i) === "redirect") redirects.push(...this.redirect(child, statement, spill));
    });
    if (last !== null && last !== body && body !== null) {
      // Listed with the command they belong to, in the order they are written.
      this.out.redirects.splice(before);
      this.#attached.set(last.id, { redirects, words: spill.words });
      this.statement(body, stdin, treeDepth);
      // Checked all the same should the walk not have come to that command.
      if (this.#attached.delete(last.id)) this.out.redirects.push(...redirects);
      for (const continuation of spill.continuations) this.statement(continuation, stdin, treeDepth);
      return;
    }
    const bodyStdin = redirects.some((r) => inputOperators.has(r.operator)) ? "redirect" : stdin;
    if (body?.type === "command") this.command(body, bodyStdin, redirects, spill.words);
    else if (spill.words.length > 0) {
      throw new Unanalysable({ kind: "unanalysable", problem: "it has words after a redirect of a compound command", segment: statement });
    } else if (body !== null) this.statement(body, bodyStdin, treeDepth);
    for (const continuation of spill.continuations) this.statement(continuation, stdin, treeDepth);
  }

  /** The last command of a list or pipeline, with the redirects written after the list or pipeline. */
  private attach(node: Node, stdin: Stdin, { redirects, words }: Attached, treeDepth: number): void {
    this.out.redirects.push(...redirects);
    const input = redirects.some((r) => inputOperators.has(r.operator)) ? "redirect" : stdin;
    if (node.type === "command") return this.command(node, input, redirects, words);
    if (words.length > 0) {
      throw new Unanalysable({ kind: "unanalysable", problem: "it has words after a redirect of a compound command", segment: redirects[0]?.statement ?? "" });
    }
    this.statement(node, input, treeDepth);
  }

  /** A redirect with no command, such as `> file` or `$(< file)`. */
  private redirectOnly(node: Node): void {
    const spill: Spill = { continuations: [], words: [] };
    this.redirect(node, firstLine(node.text), spill);
    if (spill.words.length > 0) throw new Unanalysable({ kind: "unanalysable", problem: "it has words after a redirect with no command", segment: node.text });
    for (const continuation of spill.continuations) this.statement(continuation, "inherited", 0);
  }

  /**
   * Reads one redirect into `this.out.redirects`. tree-sitter-bash puts what follows a heredoc's
   * `<<EOF` on the same line (`| sh`, `&& ls`, more redirects) inside the heredoc node, and the
   * words after `> file` (which bash passes to the command: `echo a > f b` is `echo a b > f`)
   * inside the redirect: those go to `spill`.
   */
  private redirect(node: Node, statement: string, spill: Spill): Redirect[] {
    const found: Redirect[] = [];
    if (node.type === "heredoc_redirect") {
      const operator = node.children.find((c) => c.type === "<<" || c.type === "<<-")?.type ?? "<<";
      let input: string | undefined = "";
      node.children.forEach((child, i) => {
        const field = node.fieldNameForChild(i);
        if (field === "redirect") found.push(...this.redirect(child, statement, spill));
        else if (child.type === "heredoc_body") input = this.heredocBody(node, child);
        else if (child.isNamed && child.type !== "heredoc_start" && child.type !== "heredoc_end") spill.continuations.push(child);
      });
      const redirect: Redirect = { operator, harmless: false, input, statement };
      this.out.redirects.push(redirect);
      return [redirect, ...found];
    }
    if (node.type === "herestring_redirect") {
      const parts = node.namedChildren;
      const target = this.#words.words(parts)[0];
      const value = staticValue(target);
      const redirect: Redirect = { operator: "<<<", harmless: false, input: value === undefined ? undefined : `${value}\n`, statement };
      if (target !== undefined) redirect.target = target;
      this.out.redirects.push(redirect);
      return [redirect];
    }
    if (node.type !== "file_redirect") {
      throw new Unanalysable({ kind: "unanalysable", problem: `it uses a redirect Cairn does not check ("${node.type}")`, segment: statement });
    }
    let operator = "";
    let descriptor: string | undefined;
    const targetNodes: Node[] = [];
    node.children.forEach((child, i) => {
      const field = node.fieldNameForChild(i);
      if (field === "descriptor") descriptor = child.text;
      else if (field === "destination") targetNodes.push(child);
      else if (!child.isNamed) operator += child.type;
      else throw new Unanalysable({ kind: "unanalysable", problem: `it uses a redirect Cairn does not check ("${node.text}")`, segment: statement });
    });
    const [first, ...extra] = groupAdjacent(targetNodes);
    const lastExtra = extra.at(-1)?.at(-1);
    if (lastExtra?.type === "number" && node.nextSibling?.startIndex === lastExtra.endIndex) {
      // `>& f 0>&1`: tree-sitter reads the 0 as a word, bash as the descriptor of the next redirect.
      throw new Unanalysable({ kind: "unanalysable", problem: `its redirects are ambiguous ("${node.text}${node.nextSibling.text}")`, segment: statement });
    }
    for (const group of extra) spill.words.push(...group);
    const target = first === undefined ? undefined : this.#words.words(first)[0];
    const redirect: Redirect = { operator, harmless: isHarmless(operator, staticValue(target)), statement };
    if (descriptor !== undefined) redirect.descriptor = descriptor;
    if (target !== undefined) redirect.target = target;
    this.out.redirects.push(redirect);
    return [redirect];
  }

  /** The text a heredoc feeds, when fixed: quoted delimiter, or no $, ` or \ in the body. */
  private heredocBody(redirect: Node, body: Node): string | undefined {
    for (const child of body.namedChildren) this.#words.scan(child, 0);
    const start = redirect.children.find((c) => c.type === "heredoc_start")?.text ?? "";
    const quotedDelimiter = /['"\\]/.test(start);
    if (quotedDelimiter) return body.text;
    if (body.namedChildren.some((c) => c.type !== "heredoc_content") || /[$`\\]/.test(body.text)) return undefined;
    return body.text;
  }

  command(node: Node, stdin: Stdin, outer: Redirect[], trailingWords: Node[] = []): void {
    const assignments: Word[] = [];
    const wordNodes: Node[] = [];
    const redirects = [...outer];
    const statement = firstLine(node.text);
    node.children.forEach((child, i) => {
      const field = node.fieldNameForChild(i);
      if (child.type === "variable_assignment") assignments.push(this.#words.assignment(child));
      else if (field === "name") wordNodes.push(...child.children);
      else if (field === "argument") wordNodes.push(child);
      else if (field === "redirect" || redirectTypes.has(child.type)) {
        const spill: Spill = { continuations: [], words: [] };
        redirects.push(...this.redirect(child, statement, spill));
        if (spill.continuations.length > 0) throw new Unanalysable({ kind: "unanalysable", problem: "it has a heredoc Cairn cannot follow", segment: statement });
        wordNodes.push(...spill.words);
      }
      else if (child.type !== "comment") {
        throw new Unanalysable({ kind: "unanalysable", problem: `it uses a shell construct Cairn does not check ("${child.type}")`, segment: statement });
      }
    });
    const words = [...this.#words.words(wordNodes), ...trailingWords.length > 0 ? this.#words.words(trailingWords) : []];
    this.add({ assignments, words, via: this.via, stdin, redirects, programFromStdin: false, runsGeneratedProgram: false }, this.depth);
  }

  private assignments(node: Node, stdin: Stdin): void {
    const list = node.type === "variable_assignment" ? [node] : node.namedChildren;
    const assignments = list.map((a) => this.#words.assignment(a));
    this.add({ assignments, words: [], via: this.via, stdin, redirects: [], programFromStdin: false, runsGeneratedProgram: false }, this.depth);
  }

  /** export/declare/local/readonly/typeset/unset: a command whose arguments may be assignments. */
  private declaration(node: Node, stdin: Stdin): void {
    const words: Word[] = [];
    for (const child of node.children) {
      if (!child.isNamed) words.push({ pieces: [{ kind: "lit", text: child.type }], source: child.text });
      else if (child.type === "variable_assignment") words.push(this.#words.assignment(child));
      else words.push(...this.#words.words([child]));
    }
    this.add({ assignments: [], words, via: this.via, stdin, redirects: [], programFromStdin: false, runsGeneratedProgram: false }, this.depth);
  }

  private add(segment: Segment, depth: number): void {
    addSegment(this.shell, this.out, segment, depth);
  }

  /** $(…), `…`, <(…) and >(…): the commands inside are segments of their own. */
  private substitution(node: Node, inDoubleQuotes: boolean): void {
    const open = node.children[0]?.type ?? "";
    if (open === "`") {
      const inner = node.text.slice(1, -1);
      if (inDoubleQuotes && inner.includes('\\"')) {
        throw new Unanalysable({ kind: "unanalysable", problem: 'it has \\" inside backquotes inside double quotes, which shells read differently; use $(…)', segment: node.text });
      }
      analyseScript(this.shell, unescapeBackquoted(inner), this.depth + 1, [...this.via, "`…`"], this.out);
      return;
    }
    const label = open === "$(" ? "$(…)" : `${open}…)`;
    const walker = new Walker(this.shell, this.text, this.depth + 1, [...this.via, label], this.out);
    if (walker.depth > maxNesting) {
      throw new Unanalysable({ kind: "too-deep", problem: `it nests commands more than ${maxNesting} levels deep (sh -c, eval, $(…), wrappers)` });
    }
    for (const child of node.namedChildren) walker.statement(child, "inherited", 0);
  }
}

/** Records a segment and, when it is a wrapper, the commands it runs. */
function addSegment(shell: ShellParser, out: Output, segment: Segment, depth: number): void {
  if (depth > maxNesting) {
    throw new Unanalysable({ kind: "too-deep", problem: `it nests commands more than ${maxNesting} levels deep (sh -c, eval, $(…), wrappers)` });
  }
  const name = staticValue(segment.words[0]);
  if (name !== undefined && reservedWords.has(name)) {
    // `time { rm x; }` and `coproc { …; }` are compound commands to bash; tree-sitter-bash reads
    // them as words, so a reserved word in command position is refused.
    throw new Unanalysable({ kind: "unanalysable", problem: `it uses the shell keyword "${name}" in a place Cairn cannot follow (such as time { …; } or coproc { …; })`, segment: displayWords(segment.words) });
  }
  const hidden = evaluatingBuiltin(segment.words) ?? carriedCode(segment.words);
  if (hidden !== undefined) throw new Unanalysable({ kind: "opaque", problem: hidden, segment: displayWords(segment.words) });
  const inner = unwrap(segment.words);
  if (inner !== undefined && "problem" in inner) {
    throw new Unanalysable({ kind: "unanalysable", problem: inner.problem, segment: displayWords(segment.words) });
  }
  segment.programFromStdin = inner?.programFromStdin === true;
  segment.runsGeneratedProgram = runsGeneratedProgram(segment, inner);
  out.segments.push(segment);
  if (inner === undefined) return;
  const via = [...segment.via, inner.via];
  for (const words of inner.commands) {
    addSegment(shell, out, { assignments: [], words, via, stdin: segment.stdin, redirects: segment.redirects, programFromStdin: false, runsGeneratedProgram: false }, depth + 1);
  }
  for (const script of inner.scripts) analyseScript(shell, script, depth + 1, via, out);
  if (inner.programFromStdin) {
    for (const redirect of segment.redirects.filter((r) => r.operator.startsWith("<<"))) {
      if (redirect.input === undefined) {
        throw new Unanalysable({ kind: "unanalysable", problem: `the script fed to ${inner.via} has expansions, so it cannot be checked`, segment: redirect.statement });
      }
      analyseScript(shell, redirect.input, depth + 1, via, out);
    }
  }
}

/** `… | sh`, `sh < <(…)`, `bash <(…)`, `source <(…)`: the program comes from another command. */
function runsGeneratedProgram(segment: Segment, inner: Unwrapped | undefined): boolean {
  if (inner === undefined || "problem" in inner) return false;
  const substituted = (word: Word | undefined): boolean => word?.pieces.some((p) => p.kind === "any" && /^(\$\(|<\(|>\(|`)/.test(p.source)) === true;
  if (inner.programFromStdin) {
    if (segment.stdin === "pipe") return true;
    if (segment.redirects.some((r) => r.operator === "<" && substituted(r.target))) return true;
  }
  return substituted(inner.programFile);
}

function isHarmless(operator: string, target: string | undefined): boolean {
  if (operator === ">&-" || operator === "<&-") return true;
  if ((operator === ">&" || operator === "<&") && target !== undefined && /^(\d+|-)$/.test(target)) return true;
  return target === "/dev/null" && [">", ">>", "<", "&>", "&>>", ">|"].includes(operator);
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}


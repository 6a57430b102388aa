import type { Node } from "web-tree-sitter";
import { decodeAnsiC, decodeDoubleQuoted, decodeUnquoted } from "./decode.js";
import { refuseEvaluation } from "./evaluation.js";
import { Unanalysable } from "./segments.js";
import { lit, type Piece, type Word } from "./words.js";

export type WordHooks = {
  /** Called for every $(…), `…`, <(…) and >(…) found in a word or expression. */
  substitution(node: Node, inDoubleQuotes: boolean): void;
};

/** Nodes that are commands; finding one where a word or expression belongs means the tree is not what we think. */
const statementTypes = new Set([
  "command", "pipeline", "list", "subshell", "compound_statement", "redirected_statement", "if_statement",
  "while_statement", "for_statement", "c_style_for_statement", "case_statement", "function_definition",
  "negated_command", "declaration_command", "unset_command",
]);

/** Turns word nodes into Words (quote removal, holes for what the shell computes). */
export class WordReader {
  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly hooks: WordHooks,
  ) {}

  /**
   * Words from sibling nodes. tree-sitter-bash sometimes splits one shell word into siblings
   * (`$"x"` is `$` then a string), so nodes that touch are one word.
   */
  words(nodes: readonly Node[]): Word[] {
    return groupAdjacent(nodes).map((group) => this.word(group));
  }

  private word(group: Node[]): Word {
    const first = group[0];
    const last = group.at(-1);
    const source = first === undefined || last === undefined ? "" : this.text.slice(first.startIndex, last.endIndex);
    const pieces = this.concatenated(group, false, 0);
    // {a,b} and {1..3} make several words out of one: any text at all.
    if (braceExpansion.test(group.map(shape).join(""))) return { pieces: [{ kind: "any", source }], source };
    return { pieces: mergeLiterals(pieces), source };
  }

  /** NAME=value, NAME+=value, NAME[i]=value: one word; refuses values holding code text. */
  assignment(node: Node): Word {
    const pieces: Piece[] = [];
    node.children.forEach((child, i) => {
      const field = node.fieldNameForChild(i);
      if (field === "name") {
        this.scan(child, 0); // a[i]=…: the subscript is arithmetic
        if (codeVariables.has(child.text)) {
          throw new Unanalysable({ kind: "unanalysable", problem: `it sets ${child.text}, whose value bash runs as code later`, segment: node.text });
        }
        pieces.push(lit(child.text));
      } else if (field === "value") {
        const value = this.concatenated([child], false, 0);
        const literal = value.map((p) => (p.kind === "lit" ? p.text : "")).join("");
        if (literal.includes("$(") || literal.includes("`")) {
          // x='a[$(cmd)]' runs cmd when x is later used in arithmetic, ${x@P} or a prompt.
          throw new Unanalysable({ kind: "unanalysable", problem: "it assigns text containing $( or a backquote, which bash can run later (arithmetic, prompts)", segment: node.text });
        }
        pieces.push(...value);
      } else if (!child.isNamed) {
        pieces.push(lit(child.type));
      } else {
        throw new Unanalysable({ kind: "unanalysable", problem: `it uses an assignment Cairn does not check ("${node.text}")`, segment: node.text });
      }
    });
    return { pieces: mergeLiterals(pieces), source: node.text };
  }

  /** Finds substitutions inside expressions ([[ … ]], $((…)), ${…}, subscripts, case patterns). */
  scan(node: Node, depth: number, inDoubleQuotes = false): void {
    if (depth > this.maxDepth) throw new Unanalysable({ kind: "too-deep", problem: "its syntax is nested too deeply" });
    if (node.type === "command_substitution" || node.type === "process_substitution") {
      this.hooks.substitution(node, inDoubleQuotes);
      return;
    }
    refuseEvaluation(node);
    if (statementTypes.has(node.type)) {
      throw new Unanalysable({ kind: "unanalysable", problem: `it has a command where Cairn expected a word ("${node.text.slice(0, 60)}")`, segment: node.text.slice(0, 200) });
    }
    if (node.childCount === 0 && !literalLeafTypes.has(node.type)) refuseHiddenCode(node);
    const quoted = inDoubleQuotes || node.type === "string";
    for (const child of node.namedChildren) this.scan(child, depth + 1, quoted);
  }

  private concatenated(nodes: readonly Node[], inDoubleQuotes: boolean, depth: number): Piece[] {
    const pieces: Piece[] = [];
    nodes.forEach((node, i) => {
      // `$"text"` is a translated string: the `$` is not part of the value.
      if (!node.isNamed && node.type === "$" && nodes[i + 1]?.type === "string") return;
      pieces.push(...this.pieces(node, inDoubleQuotes, depth));
    });
    return pieces;
  }

  private pieces(node: Node, inDoubleQuotes: boolean, depth: number): Piece[] {
    if (depth > this.maxDepth) throw new Unanalysable({ kind: "too-deep", problem: "its syntax is nested too deeply" });
    const any = (): Piece[] => [{ kind: "any", source: node.text }];
    switch (node.type) {
      case "word":
      case "number":
        refuseHiddenCode(node);
        return decodeUnquoted(node.text);
      case "variable_name":
      case "special_variable_name":
      case "file_descriptor":
      case "$":
        return [lit(node.text)];
      case "raw_string":
        return [lit(node.text.slice(1, -1))];
      case "ansi_c_string":
        return [lit(decodeAnsiC(node.text.slice(2, -1)))];
      case "string":
        return this.doubleQuoted(node, depth);
      case "translated_string":
      case "concatenation":
        return this.concatenated(node.children, inDoubleQuotes, depth + 1);
      case "command_substitution":
      case "process_substitution":
        this.hooks.substitution(node, inDoubleQuotes);
        return any();
      case "simple_expansion":
      case "expansion":
      case "arithmetic_expansion":
      case "array":
        this.scan(node, depth + 1, inDoubleQuotes);
        return any();
      case "brace_expression":
      case "extglob_pattern":
      case "regex":
        return any();
      default:
        throw new Unanalysable({ kind: "unanalysable", problem: `it uses a word form Cairn does not check ("${node.type}": ${node.text.slice(0, 60)})`, segment: node.text.slice(0, 200) });
    }
  }

  /** "…": text (and the gaps tree-sitter leaves between its children) is decoded as a whole. */
  private doubleQuoted(node: Node, depth: number): Piece[] {
    const pieces: Piece[] = [];
    let raw = "";
    const flush = (): void => {
      if (raw !== "") pieces.push(lit(decodeDoubleQuoted(raw)));
      raw = "";
    };
    const children = node.children;
    let previous = node.startIndex + 1;
    children.forEach((child, i) => {
      const isQuote = child.type === '"' && (i === 0 || i === children.length - 1);
      if (child.startIndex > previous) raw += this.text.slice(previous, child.startIndex);
      previous = Math.max(previous, child.endIndex);
      // tree-sitter-bash gives a string of only blanks no content: the closing quote's token holds them (`" "` is a space).
      if (isQuote) {
        if (i > 0) raw += child.text.slice(0, -1);
        return;
      }
      if (child.type === "string_content" || !child.isNamed) {
        raw += child.text;
        return;
      }
      flush();
      pieces.push(...this.pieces(child, true, depth + 1));
    });
    flush();
    return pieces;
  }
}

/** Variables whose value the shell later runs or sources. */
const codeVariables = new Set(["PROMPT_COMMAND", "BASH_ENV", "ENV"]);

/** Leaves whose text is quoted data. */
const literalLeafTypes = new Set(["raw_string", "ansi_c_string", "string_content", "heredoc_content"]);

/**
 * tree-sitter-bash leaves some text unparsed (`${x#$(cmd)}`, `${x:-`cmd`}`, `[[ a =~ `cmd` ]]`)
 * where bash still runs the substitution: such a leaf is refused.
 */
function refuseHiddenCode(node: Node): void {
  const text = node.text;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "`" || (c === "$" && (text[i + 1] === "(" || text[i + 1] === "["))) {
      throw new Unanalysable({ kind: "unanalysable", problem: `it has a command substitution Cairn cannot see into ("${text.slice(0, 60)}")`, segment: text.slice(0, 200) });
    }
  }
}

const braceExpansion = /\{[^{}]*(,|\.\.)[^{}]*\}/;

/** The unquoted text of a word, with every quoted or computed part as `Q`: brace expansion happens only there. */
function shape(node: Node): string {
  if (node.type === "word") return node.text;
  if (node.type === "concatenation") return node.children.map(shape).join("");
  return "Q";
}

function mergeLiterals(pieces: readonly Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const piece of pieces) {
    const last = out.at(-1);
    if (piece.kind === "lit" && last?.kind === "lit") out[out.length - 1] = lit(last.text + piece.text);
    else if (piece.kind !== "lit" || piece.text !== "") out.push(piece);
  }
  return out;
}

/** Nodes that touch (no space between them) are one shell word. */
export function groupAdjacent(nodes: readonly Node[]): Node[][] {
  const groups: Node[][] = [];
  for (const node of nodes) {
    const last = groups.at(-1);
    const previous = last?.at(-1);
    if (last !== undefined && previous !== undefined && previous.endIndex === node.startIndex) last.push(node);
    else groups.push([node]);
  }
  return groups;
}

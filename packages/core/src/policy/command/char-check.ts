import type { Node } from "web-tree-sitter";

/** Node types whose text is quoted: a line break or control character there is data. */
const quotedTypes = new Set(["string", "raw_string", "ansi_c_string", "translated_string", "heredoc_body", "heredoc_end"]);
/** Inside these, text is code again, even within double quotes. */
const codeTypes = new Set(["command_substitution", "process_substitution"]);

export type ForbiddenCharacter = { kind: "character"; index: number; description: string } | { kind: "too-deep" };

/**
 * Finds a character that must not appear outside quotes: line breaks of any kind (\n, \r, U+2028,
 * U+2029, U+0085) and other control characters; NUL is refused everywhere. Commands separated
 * by line breaks could be shown to a person as one line, and terminals disagree about which
 * characters end a line, so one command is one line (joined with && or ;). A heredoc's body
 * is quoted text.
 */
export function findForbiddenCharacter(root: Node, text: string, maxDepth: number): ForbiddenCharacter | undefined {
  const quoted = new Uint8Array(text.length);
  if (!markQuoted(root, false, quoted, 0, maxDepth)) return { kind: "too-deep" };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0) return { kind: "character", index: i, description: "a NUL character" };
    if (quoted[i] === 1) continue;
    const description = describeForbidden(code);
    if (description !== undefined) return { kind: "character", index: i, description };
  }
  return undefined;
}

function markQuoted(node: Node, parentQuoted: boolean, quoted: Uint8Array, depth: number, maxDepth: number): boolean {
  if (depth > maxDepth) return false;
  const isQuoted = quotedTypes.has(node.type) ? true : codeTypes.has(node.type) ? false : parentQuoted;
  if (isQuoted !== parentQuoted) quoted.fill(isQuoted ? 1 : 0, node.startIndex, node.endIndex);
  let previousEnd = node.startIndex;
  for (const child of node.children) {
    // The line break that ends the `<<EOF` line belongs to the heredoc body.
    if (node.type === "heredoc_redirect" && (child.type === "heredoc_body" || child.type === "heredoc_end")) {
      quoted.fill(1, previousEnd, child.startIndex);
    }
    if (!markQuoted(child, isQuoted, quoted, depth + 1, maxDepth)) return false;
    previousEnd = child.endIndex;
  }
  return true;
}

function describeForbidden(code: number): string | undefined {
  switch (code) {
    case 0x0a:
      return "a line break";
    case 0x0d:
      return "a carriage return (\\r)";
    case 0x2028:
      return "a line separator (U+2028)";
    case 0x2029:
      return "a paragraph separator (U+2029)";
    case 0x85:
      return "a next-line character (U+0085)";
    case 0x09:
      return undefined;
  }
  if (code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f)) {
    return `a control character (U+${code.toString(16).toUpperCase().padStart(4, "0")})`;
  }
  return undefined;
}

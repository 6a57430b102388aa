import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "./language-spec.js";

/** Signatures longer than this are cut, with an ellipsis. */
export const maxSignatureChars = 200;
/** How far along a line to look for its end: a minified file is one line of megabytes. */
const lineScanChars = 1_000;
const defaultTrailing = /[\s{;]+$/;

/** Nodes before the signature proper: `@decorator`, `[Attribute]`, `#[attr]`, comments. */
const prefixTypes = new Set([
  "decorator",
  "annotation",
  "marker_annotation",
  "attribute_list",
  "attribute_item",
  "attribute_declaration",
  "comment",
  "line_comment",
  "block_comment",
]);

export type Signature = { line: number; text: string };

/**
 * The first line of a definition as written, from its first keyword (after decorators and
 * attributes, and taking in an `export` or `declare` on the same line) to the end of the line or
 * the start of its body, whichever comes first. The line is 1-based.
 */
export function signatureOf(
  spec: LanguageSpec,
  source: string,
  definition: Node,
  name: Node | undefined,
  body: Node | undefined,
): Signature {
  let start = firstToken(definition) ?? definition;
  for (let wrapper = definition.parent; wrapper !== null && spec.wrappers.includes(wrapper.type); wrapper = wrapper.parent) {
    const token = firstToken(wrapper);
    if (token === undefined || token.startPosition.row !== start.startPosition.row) break;
    if (token.startIndex < start.startIndex) start = token;
  }

  const from = start.startIndex;
  const window = source.slice(from, from + lineScanChars);
  const newline = window.indexOf("\n");
  let to = newline === -1 ? from + window.length : from + newline;
  if (body !== undefined && body.startIndex > from && body.startIndex < to) to = body.startIndex;

  // Runs of spaces are alignment (gofmt lines up grouped declarations): one space reads the same.
  let text = source
    .slice(from, to)
    .trim()
    .replace(spec.trailing ?? defaultTrailing, "")
    .replace(/\s{2,}/g, " ");
  // `typedef struct {` ... `} store_t;`: the name comes lines later.
  if (name !== undefined && name.startIndex >= to && !text.includes(name.text)) text = `${text} … ${name.text}`;
  return { line: start.startPosition.row + 1, text: shorten(text) };
}

/** The first token of a node that is not part of a decorator, attribute or comment. */
function firstToken(node: Node): Node | undefined {
  if (prefixTypes.has(node.type)) return undefined;
  if (node.childCount === 0) return node;
  for (let i = 0; i < node.childCount; i += 1) {
    const child = node.child(i);
    const token = child === null ? undefined : firstToken(child);
    if (token !== undefined) return token;
  }
  return undefined;
}

function shorten(text: string): string {
  if (text.length <= maxSignatureChars) return text;
  let end = maxSignatureChars - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // don't split a surrogate pair
  return `${text.slice(0, end)}…`;
}

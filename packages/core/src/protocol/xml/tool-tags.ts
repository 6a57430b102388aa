import type { XmlToolSpec } from "./types.js";

/**
 * Tags matched one character at a time: a candidate stays alive while it is a prefix of some tag,
 * so deciding about a `<` never needs more than the longest tag's length of lookahead.
 */
export class TagSet<T> {
  private readonly prefixes = new Set<string>();
  private readonly tags = new Map<string, T>();

  add(tag: string, value: T): void {
    this.tags.set(tag, value);
    for (let k = 1; k <= tag.length; k++) this.prefixes.add(tag.slice(0, k));
  }

  isPrefix(candidate: string): boolean {
    return this.prefixes.has(candidate);
  }

  get(candidate: string): T | undefined {
    return this.tags.get(candidate);
  }
}

/** What a tag seen inside a tool block means. */
export type BlockTag = { kind: "tool-close" } | { kind: "param-open"; param: CompiledParam };

/** What a tag seen inside a file-text value means. */
export type ValueTag = "param-close" | "tool-open" | "tool-close";

export type CompiledParam = {
  name: string;
  /** File text (content, a diff): whitespace kept, and the value ends at its LAST closing tag before `</tool>`. */
  raw: boolean;
  openTag: string;
  closeTag: string;
  /**
   * Trimmed params: what may follow this param's closing tag for that tag to end the value: `</tool>`
   * or another param's opening tag.
   */
  terminators: TagSet<BlockTag>;
  /** Raw params: the tags that matter inside the value: its closing tag, and `<tool>`/`</tool>` (nesting). */
  valueTags: TagSet<ValueTag>;
};

export type CompiledTool = {
  name: string;
  openTag: string;
  closeTag: string;
  /** Tags recognised between params: every param's opening tag and `</tool>`. */
  body: TagSet<BlockTag>;
};

const TAG_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function checkName(name: string, what: string): void {
  if (!TAG_NAME.test(name)) {
    throw new Error(
      `XmlStreamParser: ${what} "${name}" cannot be written as an XML tag; use letters, digits, "_", "." and "-", starting with a letter or "_".`,
    );
  }
}

function compileTool(spec: XmlToolSpec): CompiledTool {
  checkName(spec.name, "tool name");
  const rawNames = new Set(spec.rawParams ?? []);
  for (const raw of rawNames) {
    if (!spec.params.includes(raw)) {
      throw new Error(`XmlStreamParser: raw param "${raw}" of tool "${spec.name}" is not in its params; add it to params or drop it from rawParams.`);
    }
  }
  if (rawNames.size > 1) {
    // A second file-text value after the first could hold the first one's closing tag, which would
    // make the first one's end undecidable; no tool needs two.
    throw new Error(`XmlStreamParser: tool "${spec.name}" has ${rawNames.size} raw params; give it at most one.`);
  }
  const openTag = `<${spec.name}>`;
  const closeTag = `</${spec.name}>`;
  const close: BlockTag = { kind: "tool-close" };
  const params = [...new Set(spec.params)].map((name): CompiledParam => {
    checkName(name, `param of tool "${spec.name}"`);
    const param = { name, raw: rawNames.has(name), openTag: `<${name}>`, closeTag: `</${name}>`, terminators: new TagSet<BlockTag>(), valueTags: new TagSet<ValueTag>() };
    if (param.raw) {
      param.valueTags.add(param.closeTag, "param-close");
      param.valueTags.add(openTag, "tool-open");
      param.valueTags.add(closeTag, "tool-close");
    }
    return param;
  });
  const body = new TagSet<BlockTag>();
  body.add(closeTag, close);
  for (const param of params) {
    body.add(param.openTag, { kind: "param-open", param });
    param.terminators.add(closeTag, close);
    // A trimmed param followed by its own opening tag is the param written twice: the last one wins.
    for (const other of params) param.terminators.add(other.openTag, { kind: "param-open", param: other });
  }
  return { name: spec.name, openTag, closeTag, body };
}

/** Every known tool by its opening tag `<name>`. */
export function compileTools(specs: readonly XmlToolSpec[]): TagSet<CompiledTool> {
  const tools = new TagSet<CompiledTool>();
  const seen = new Set<string>();
  for (const spec of specs) {
    if (seen.has(spec.name)) throw new Error(`XmlStreamParser: tool "${spec.name}" is listed twice; pass each tool once.`);
    seen.add(spec.name);
    tools.add(`<${spec.name}>`, compileTool(spec));
  }
  return tools;
}

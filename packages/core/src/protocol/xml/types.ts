/** One tool as the xml protocol's parser sees it: the tag names it must recognise. */
export type XmlToolSpec = {
  /** The tool's tag, e.g. "write_to_file". */
  name: string;
  /** The tags of its parameters, e.g. ["path", "content"]. */
  params: readonly string[];
  /**
   * Params whose whitespace is kept exactly (file content, diffs): only the newline right after the
   * opening tag and the newline right before the closing tag are framing. Other params are trimmed.
   */
  rawParams?: readonly string[];
};

export type XmlParseEvent =
  /** Prose outside tool blocks (a delta). */
  | { type: "text"; text: string }
  /** A known tool's opening tag was seen. `index` counts tool blocks in the message from 0. */
  | { type: "tool-start"; index: number; name: string }
  /**
   * A piece of a param's value as it streams (a delta). For raw params the concatenated deltas equal
   * the final value. For trimmed params leading whitespace is never sent, but trailing whitespace may
   * be: the final value is the concatenation with its end trimmed. `restart` marks the first delta of
   * a param that appears a second time in the block (the last occurrence wins): drop what was
   * streamed for it before.
   */
  | { type: "param-delta"; index: number; name: string; param: string; text: string; restart?: true }
  /**
   * The block is complete; `params` holds the final value of every param that appeared. `truncated`:
   * the message ended inside the block (the model ran out of output) and it was completed from what
   * had arrived.
   */
  | { type: "tool-end"; index: number; name: string; params: Record<string, string>; truncated?: true };

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
   * had arrived. `ambiguous`: where the block ends cannot be trusted, so it must not run (see
   * BlockAmbiguity). `fenced`: the block was the content of a fenced code block (```xml).
   *
   * A block with a raw param is reported once what follows it is known: at the next tool block or at
   * the end of the message, since a closing tag seen after it would make it ambiguous.
   */
  | {
      type: "tool-end";
      index: number;
      name: string;
      params: Record<string, string>;
      truncated?: true;
      ambiguous?: BlockAmbiguity;
      fenced?: true;
    };

/**
 * Why a block's end is in doubt. `after-block`: `tag` (the raw param's closing tag or the tool's)
 * appeared again after the block closed, so the value may hold that text and have been cut there.
 * `unclosed-nested`: the value holds `tag` (`<tool>`) without its `</tool>`, and the block never closed.
 */
export type BlockAmbiguity = { param: string; tag: string; where: "after-block" | "unclosed-nested" };

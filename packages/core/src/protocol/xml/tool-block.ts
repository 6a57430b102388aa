import { CloseCandidate } from "./close-candidate.js";
import type { EventSink } from "./event-sink.js";
import type { BlockTag, CompiledParam, CompiledTool, ValueTag } from "./tool-tags.js";
import type { XmlParseEvent } from "./types.js";

const NL = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const LT = 60;

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === CR || c === NL;
}

type Mode =
  /** Between params: whitespace, stray text and unknown tags are ignored. */
  | "body"
  /** Between params: a `<` that could start a param's opening tag or the tool's closing tag. */
  | "body-tag"
  /** Inside a param's value. */
  | "value"
  /** Inside a trimmed value: a `<` that could start the param's closing tag (held back). */
  | "close-tag"
  /** A trimmed value's closing tag was seen, then whitespace: held until what follows decides. */
  | "after-close"
  /** ...then a `<` that could start the tool's closing tag or another param's opening tag. */
  | "after-close-tag"
  /** Inside a raw value: a `<` that could start its closing tag, `<tool>` or `</tool>` (held back). */
  | "value-tag"
  /** A raw value's closing tag was seen: what follows is held until it says whether that was the end. */
  | "candidate";

/** The block's end event without its index (the parser numbers and may hold it). */
export type BlockEnd = Extract<XmlParseEvent, { type: "tool-end" }>;

/**
 * One tool block, from just after `<tool>` to its `</tool>`: params and their streamed values.
 *
 * A value may itself contain tag-like text (`</content>`, `</write_to_file>`, `<path>`).
 *
 * A raw value (file text: a file's content, a diff) ends at the LAST closing tag of its param
 * before the tool's closing tag: each `</content>` is a candidate, and the text after it is held
 * (see CloseCandidate) until `</tool>` confirms it or a later `</content>` replaces it. A complete
 * `<tool>...</tool>` inside the value (a file that documents the tool) is nested text: its tags do
 * not end anything. Deltas stream everything before the current candidate, so the concatenated
 * deltas still equal the final value.
 *
 * A trimmed value ends at its param's closing tag when what follows it (after optional whitespace)
 * is the tool's closing tag or another param's opening tag, decided with bounded lookahead.
 */
export class ToolBlock {
  done = false;
  /** Set when done: the block's end, for the parser to emit (now, or once what follows is known). */
  ending: BlockEnd | null = null;
  /** Raw params that appeared: their closing tags, seen again after the block, make it ambiguous. */
  readonly rawSeen: string[] = [];
  private mode: Mode = "body";
  private tag = "";
  private readonly params = new Map<string, string>();
  private param: CompiledParam | null = null;
  private value = "";
  /** A trailing newline of a raw value ("\n", "\r\n", or a "\r" that may become one): framing if the value ends next. */
  private pendingNl = "";
  /** A raw value's first newline is framing. */
  private leadFraming = false;
  private closeMatched = 0;
  private afterWs = "";
  /** How many `<tool>` blocks the raw value holds that are still open. */
  private depth = 0;
  /** The value held a `<tool>` block (reported if the block never closes: its end may have been taken for the nested one's). */
  private nestedSeen = false;
  /** Only blanks since the raw value's last newline (or its start). */
  private lineBlank = true;
  /** The `<` of the tag being matched in a raw value starts its line. */
  private tagAtLineStart = false;
  /** The raw value's newline right before the candidate closing tag: framing if the candidate holds. */
  private candidateNl = "";
  private candidate: CloseCandidate | null = null;

  constructor(
    private readonly tool: CompiledTool,
    private readonly index: number,
    private readonly sink: EventSink,
  ) {}

  /** Reads `s` from `i`; returns the index after `</tool>` (then `done` is set) or the end of `s`. */
  feed(s: string, i: number): number {
    while (i < s.length && !this.done) {
      switch (this.mode) {
        case "body": {
          const lt = s.indexOf("<", i);
          if (lt < 0) return s.length;
          this.mode = "body-tag";
          this.tag = "<";
          i = lt + 1;
          break;
        }
        case "body-tag": {
          const candidate = this.tag + s[i];
          if (!this.tool.body.isPrefix(candidate)) {
            this.tag = "";
            this.mode = "body";
            break;
          }
          this.tag = candidate;
          i++;
          const found = this.tool.body.get(candidate);
          if (found) this.onBlockTag(found);
          break;
        }
        case "value":
          i = this.valueText(s, i);
          break;
        case "close-tag": {
          const param = this.currentParam();
          if (s[i] !== param.closeTag[this.closeMatched]) {
            this.commit(this.pendingNl + param.closeTag.slice(0, this.closeMatched));
            this.pendingNl = "";
            this.closeMatched = 0;
            this.mode = "value";
            break;
          }
          i++;
          this.closeMatched++;
          if (this.closeMatched === param.closeTag.length) {
            this.mode = "after-close";
            this.afterWs = "";
          }
          break;
        }
        case "after-close": {
          const c = s.charCodeAt(i);
          if (c === LT) {
            this.mode = "after-close-tag";
            this.tag = "<";
            i++;
            break;
          }
          if (!isBlank(c)) {
            this.rejectClose();
            break;
          }
          let j = i + 1;
          while (j < s.length && isBlank(s.charCodeAt(j))) j++;
          this.afterWs += s.slice(i, j);
          i = j;
          break;
        }
        case "after-close-tag": {
          const candidate = this.tag + s[i];
          const terminators = this.currentParam().terminators;
          if (!terminators.isPrefix(candidate)) {
            // The held closing tag was content; the candidate may still start the real one.
            const replay = this.tag;
            this.tag = "";
            this.rejectClose();
            this.feed(replay, 0);
            break;
          }
          this.tag = candidate;
          i++;
          const found = terminators.get(candidate);
          if (found) this.onBlockTag(found);
          break;
        }
        case "value-tag": {
          const candidate = this.tag + s[i];
          const valueTags = this.currentParam().valueTags;
          if (!valueTags.isPrefix(candidate)) {
            // Not a tag that matters: the held `<...` is text; the character may start one again.
            this.commit(this.pendingNl + this.tag);
            this.pendingNl = "";
            this.tag = "";
            this.mode = "value";
            break;
          }
          this.tag = candidate;
          i++;
          const found = valueTags.get(candidate);
          if (found) this.onValueTag(found);
          break;
        }
        case "candidate":
          if (this.onCandidateChar(s[i] ?? "")) i++;
          break;
      }
    }
    return i;
  }

  /** The message ended inside this block: complete it from what arrived. */
  end(): void {
    if (this.mode === "candidate") {
      // Cut after a closing tag: it stands, and what was held after it is read for params.
      this.acceptCandidate(this.candidateOrThrow().text);
    } else if (this.param) {
      // A half-written closing tag or a held newline at the very end is framing, not content.
      this.finishParam();
    }
    this.finish(true);
  }

  private currentParam(): CompiledParam {
    if (this.param === null) throw new Error("XmlStreamParser: reading a value outside a param (a parser bug).");
    return this.param;
  }

  private onBlockTag(found: BlockTag): void {
    this.tag = "";
    if (this.param) this.finishParam();
    if (found.kind === "tool-close") {
      this.finish(false);
      return;
    }
    const param = found.param;
    if (this.params.has(param.name)) this.sink.paramRestart(this.index, this.tool.name, param.name);
    if (param.raw && !this.rawSeen.includes(param.name)) this.rawSeen.push(param.name);
    this.params.set(param.name, "");
    this.param = param;
    this.value = "";
    this.pendingNl = "";
    this.leadFraming = param.raw;
    this.closeMatched = 0;
    this.depth = 0;
    this.nestedSeen = false;
    this.lineBlank = true;
    this.mode = "value";
  }

  private onValueTag(found: ValueTag): void {
    const tag = this.tag;
    this.tag = "";
    this.mode = "value";
    if (found === "param-close" && this.depth === 0) {
      this.candidateNl = this.pendingNl;
      this.pendingNl = "";
      this.candidateOrNew().reset();
      this.mode = "candidate";
      return;
    }
    // A `<tool>` that starts a line opens a block written out in the file (an example, a fixture):
    // its closing tags are text. Mid-line it is a mention ("use `<write_to_file>`") and opens nothing.
    if (found === "tool-open" && this.tagAtLineStart) {
      this.depth++;
      this.nestedSeen = true;
    } else if (found === "tool-close" && this.depth > 0) {
      this.depth--;
    }
    this.commit(this.pendingNl + tag);
    this.pendingNl = "";
  }

  /** One character after a raw value's candidate closing tag; false when it was not taken (read it again as value text). */
  private onCandidateChar(ch: string): boolean {
    const candidate = this.candidateOrThrow();
    const closeTag = this.currentParam().closeTag;
    switch (candidate.read(ch)) {
      case "hold":
        return true;
      case "tool-close":
        this.acceptCandidate(candidate.before(this.tool.closeTag));
        if (!this.done) this.finish(false);
        return true;
      case "param-close":
        this.mode = "value";
        this.append(this.candidateNl + closeTag + candidate.before(closeTag));
        this.candidateNl = this.pendingNl;
        this.pendingNl = "";
        candidate.reset();
        this.mode = "candidate";
        return true;
      case "content":
        this.mode = "value";
        this.append(this.candidateNl + closeTag + candidate.text);
        this.candidateNl = "";
        if (candidate.nested) {
          this.depth = 1;
          this.nestedSeen = true;
        }
        return candidate.consumed;
    }
  }

  /** The raw value ended at the candidate; `between` (up to `</tool>` or the message's end) is read as params. */
  private acceptCandidate(between: string): void {
    this.finishParam();
    this.candidateNl = "";
    // `between` holds no closing tag of this value, so reading it cannot start another candidate.
    this.feed(between, 0);
    if (this.param) this.finishParam();
  }

  private candidateOrNew(): CloseCandidate {
    const param = this.currentParam();
    this.candidate ??= new CloseCandidate({
      paramClose: param.closeTag,
      paramOpen: param.openTag,
      toolOpen: this.tool.openTag,
      toolClose: this.tool.closeTag,
    });
    return this.candidate;
  }

  private candidateOrThrow(): CloseCandidate {
    if (this.candidate === null) throw new Error("XmlStreamParser: deciding a closing tag without a candidate (a parser bug).");
    return this.candidate;
  }

  private valueText(s: string, i: number): number {
    const c = s.charCodeAt(i);
    if (this.leadFraming) {
      if (c === NL) {
        this.pendingNl = "";
        this.leadFraming = false;
        return i + 1;
      }
      if (c === CR && this.pendingNl === "") {
        this.pendingNl = "\r";
        return i + 1;
      }
      this.leadFraming = false;
    }
    if (c === LT) {
      // Only a newline right before the closing tag is framing; a lone "\r" is content.
      if (this.pendingNl === "\r") {
        this.commit("\r");
        this.pendingNl = "";
      }
      if (this.currentParam().raw) {
        this.mode = "value-tag";
        this.tag = "<";
        this.tagAtLineStart = this.lineBlank || this.pendingNl !== "";
        return i + 1;
      }
      this.mode = "close-tag";
      this.closeMatched = 1;
      return i + 1;
    }
    const lt = s.indexOf("<", i);
    const end = lt < 0 ? s.length : lt;
    this.append(s.slice(i, end));
    return end;
  }

  /** Adds text to the value, holding back a raw value's trailing newline (framing if the value ends next). */
  private append(text: string): void {
    const param = this.currentParam();
    if (!param.raw) {
      this.commit(text);
      return;
    }
    text = this.pendingNl + text;
    let cut = text.length;
    if (text.endsWith("\r\n")) cut -= 2;
    else if (text.endsWith("\n") || text.endsWith("\r")) cut -= 1;
    this.pendingNl = text.slice(cut);
    this.commit(cut === text.length ? text : text.slice(0, cut));
  }

  private commit(text: string): void {
    const param = this.currentParam();
    if (!param.raw && this.value === "") text = text.trimStart();
    if (text === "") return;
    if (param.raw) {
      let j = text.length - 1;
      for (let c = text.charCodeAt(j); c === SPACE || c === TAB; c = text.charCodeAt(--j));
      if (j >= 0) this.lineBlank = text.charCodeAt(j) === NL;
    }
    this.value += text;
    this.sink.paramDelta(this.index, this.tool.name, param.name, text);
  }

  /** The held closing tag (and whitespace after it) did not end the value: it is content. */
  private rejectClose(): void {
    const held = this.pendingNl + this.currentParam().closeTag + this.afterWs;
    this.pendingNl = "";
    this.afterWs = "";
    this.mode = "value";
    this.append(held);
  }

  private finishParam(): void {
    const param = this.currentParam();
    this.params.set(param.name, param.raw ? this.value : this.value.trim());
    this.param = null;
    this.value = "";
    this.pendingNl = "";
    this.afterWs = "";
    this.closeMatched = 0;
    this.leadFraming = false;
    this.mode = "body";
  }

  private finish(truncated: boolean): void {
    this.done = true;
    const unclosed = truncated && this.nestedSeen ? this.rawSeen[this.rawSeen.length - 1] : undefined;
    this.ending = {
      type: "tool-end",
      index: this.index,
      name: this.tool.name,
      params: Object.fromEntries(this.params),
      ...(truncated ? { truncated: true as const } : {}),
      ...(unclosed ? { ambiguous: { param: unclosed, tag: this.tool.openTag, where: "unclosed-nested" as const } } : {}),
    };
  }
}

import type { EventSink } from "./event-sink.js";
import type { BlockTag, CompiledParam, CompiledTool } from "./tool-tags.js";

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
  /** Inside a value: a `<` that could start the param's closing tag (held back). */
  | "close-tag"
  /** The param's closing tag was seen, then whitespace: held until what follows decides. */
  | "after-close"
  /** ...then a `<` that could start the tool's closing tag or another param's opening tag. */
  | "after-close-tag";

/**
 * One tool block, from just after `<tool>` to its `</tool>`: params and their streamed values.
 *
 * A value may itself contain tag-like text (`</content>`, `</write_to_file>`, `<path>`). Only the
 * param's own closing tag can end it, and only when what follows it (after optional whitespace) is
 * the tool's closing tag or another param's opening tag; otherwise the closing tag and the
 * whitespace were content. So a value ends at the last closing tag of its param before the block's
 * end, decided with bounded lookahead.
 */
export class ToolBlock {
  done = false;
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
      }
    }
    return i;
  }

  /** The message ended inside this block: complete it from what arrived. */
  end(): void {
    // A half-written closing tag or a held newline at the very end is framing, not content.
    if (this.param) this.finishParam();
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
    this.params.set(param.name, "");
    this.param = param;
    this.value = "";
    this.pendingNl = "";
    this.leadFraming = param.raw;
    this.closeMatched = 0;
    this.mode = "value";
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
    this.sink.add({
      type: "tool-end",
      index: this.index,
      name: this.tool.name,
      params: Object.fromEntries(this.params),
      ...(truncated ? { truncated: true as const } : {}),
    });
  }
}

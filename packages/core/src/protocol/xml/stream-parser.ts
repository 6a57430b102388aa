import { EventSink } from "./event-sink.js";
import { ProseScanner } from "./prose-scanner.js";
import { TagWatch } from "./tag-watch.js";
import { ToolBlock, type BlockEnd } from "./tool-block.js";
import { compileTools, type CompiledTool, type TagSet } from "./tool-tags.js";
import type { XmlParseEvent, XmlToolSpec } from "./types.js";

export type { BlockAmbiguity, XmlParseEvent, XmlToolSpec } from "./types.js";

/** A closed block with a raw param, reported once what follows it shows no sign that it closed too early. */
type Pending = { ending: BlockEnd; watch: TagWatch; param: string };

/**
 * Reads an assistant message of the xml tool-call protocol (Cline's format) as it streams:
 *
 *     I'll read it first.
 *     <read_file>
 *     <path>src/a.ts</path>
 *     </read_file>
 *
 * Each chunk is read once: the parser keeps state between pushes instead of re-parsing the message,
 * and holds back only what is still undecided (a `<` that may start a tag, a param's closing tag
 * until what follows it says whether it ends the value, a fence line until its content says code or
 * call). One parser per message.
 *
 * A block with file text (a raw param) is reported at the next tool block or the end of the
 * message: if its raw param's closing tag or its own closing tag shows up in the prose after it,
 * the file text most likely held that text and was cut there, and the block is reported as
 * ambiguous instead of being run with half a file.
 */
export class XmlStreamParser {
  private readonly tools: TagSet<CompiledTool>;
  private readonly sink = new EventSink();
  private readonly prose: ProseScanner;
  private block: ToolBlock | null = null;
  private fenced = false;
  private pending: Pending | null = null;
  private blocks = 0;
  private ended = false;

  constructor(tools: readonly XmlToolSpec[]) {
    this.tools = compileTools(tools);
    this.prose = new ProseScanner(this.tools, this.sink);
  }

  /** Process one chunk; every character is examined a bounded number of times across all calls (no re-parsing of the whole message). */
  push(chunk: string): XmlParseEvent[] {
    if (this.ended) throw new Error("XmlStreamParser: push() after end(); create a new parser for each message.");
    let i = 0;
    while (i < chunk.length) {
      if (this.block) {
        i = this.block.feed(chunk, i);
        if (this.block.done) this.closeBlock(this.block);
        continue;
      }
      const { next, opened, fenced } = this.prose.scan(chunk, i);
      this.pending?.watch.feed(chunk, i, next);
      i = next;
      if (opened) this.open(opened, fenced);
    }
    return this.sink.take();
  }

  /**
   * The message ended: flush held-back text. An unclosed tool block is completed from what arrived
   * (its open param, if any, ends where the message ends) and reported with `truncated: true`.
   */
  end(): XmlParseEvent[] {
    if (this.ended) return [];
    this.ended = true;
    if (this.block) {
      this.block.end();
      this.closeBlock(this.block);
    } else {
      this.prose.end();
    }
    this.flushPending();
    return this.sink.take();
  }

  private open(tool: CompiledTool, fenced: boolean): void {
    this.flushPending();
    const index = this.blocks++;
    this.sink.add({ type: "tool-start", index, name: tool.name });
    this.block = new ToolBlock(tool, index, this.sink);
    this.fenced = fenced;
  }

  private closeBlock(block: ToolBlock): void {
    this.block = null;
    this.prose.resume();
    const ending = block.ending;
    if (ending === null) throw new Error("XmlStreamParser: a block closed without its end (a parser bug).");
    if (this.fenced) ending.fenced = true;
    const param = block.rawSeen[block.rawSeen.length - 1];
    if (param === undefined || ending.truncated) {
      this.sink.add(ending);
      return;
    }
    this.pending = { ending, param, watch: new TagWatch([`</${param}>`, `</${ending.name}>`]) };
  }

  private flushPending(): void {
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    const { ending, watch, param } = pending;
    if (watch.found !== null) ending.ambiguous = { param, tag: watch.found, where: "after-block" };
    this.sink.add(ending);
  }
}

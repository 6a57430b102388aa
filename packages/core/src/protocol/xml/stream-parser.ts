import { EventSink } from "./event-sink.js";
import { ProseScanner } from "./prose-scanner.js";
import { ToolBlock } from "./tool-block.js";
import { compileTools, type CompiledTool, type TagSet } from "./tool-tags.js";
import type { XmlParseEvent, XmlToolSpec } from "./types.js";

export type { XmlParseEvent, XmlToolSpec } from "./types.js";

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
 */
export class XmlStreamParser {
  private readonly tools: TagSet<CompiledTool>;
  private readonly sink = new EventSink();
  private readonly prose: ProseScanner;
  private block: ToolBlock | null = null;
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
        if (this.block.done) {
          this.block = null;
          this.prose.resume();
        }
        continue;
      }
      const { next, opened } = this.prose.scan(chunk, i);
      i = next;
      if (opened) this.open(opened);
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
      this.block = null;
    } else {
      this.prose.end();
    }
    return this.sink.take();
  }

  private open(tool: CompiledTool): void {
    const index = this.blocks++;
    this.sink.add({ type: "tool-start", index, name: tool.name });
    this.block = new ToolBlock(tool, index, this.sink);
  }
}

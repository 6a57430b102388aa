/** What the text after a file-text value's closing tag says about that tag, one character at a time. */
export type CandidateVerdict =
  /** The character was taken; still undecided. */
  | "hold"
  /** `</tool>` was taken: the value ended at the candidate, and `body` (what came between) holds params. */
  | "tool-close"
  /** The param's closing tag came again: `content` (what came between) is value text, and a new candidate starts. */
  | "param-close"
  /** What was held (`content`, with the character if `consumed`) is value text: the candidate was not the end. */
  | "content";

export type CandidateTags = {
  /** `</content>` */
  paramClose: string;
  /** `<content>` */
  paramOpen: string;
  /** `<write_to_file>` */
  toolOpen: string;
  /** `</write_to_file>` */
  toolClose: string;
};

/** Longer tags between params are not param tags: the candidate was content. */
const MAX_TAG = 64;

function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

/**
 * Holds the text after a possible end of a file-text value (`...</content>`) until it is decided.
 *
 * The value ends at the LAST closing tag before the tool's closing tag, so a closing tag is only a
 * candidate: what follows it must look like the rest of a block (whitespace, `<param>...</param>`
 * elements, then `</tool>`). Another `</content>` first makes the candidate content (the later one
 * is the new candidate); stray text, a stray closing tag, `<content>` or `<tool>` make it content at
 * once, so a file full of `</content>` still streams promptly. Each character is read once.
 */
export class CloseCandidate {
  /** Everything taken since the candidate closing tag. */
  text = "";
  /** Set with the verdict "content": whether the character that decided was taken into `text`. */
  consumed = false;
  /** Set with the verdict "content": it was decided by `<tool>`, which opens a nested block in the value. */
  nested = false;
  private state: "gap" | "tag" | "element" = "gap";
  private tag = "";
  private elementClose = "";

  constructor(private readonly tags: CandidateTags) {}

  reset(): void {
    this.text = "";
    this.consumed = false;
    this.nested = false;
    this.state = "gap";
    this.tag = "";
    this.elementClose = "";
  }

  /** What came between the candidate and the tag that decided ("tool-close", "param-close"). */
  before(tag: string): string {
    return this.text.slice(0, this.text.length - tag.length);
  }

  read(ch: string): CandidateVerdict {
    const c = ch.charCodeAt(0);
    switch (this.state) {
      case "gap":
        if (isBlank(c)) {
          this.text += ch;
          return "hold";
        }
        if (ch === "<") {
          this.text += ch;
          this.tag = ch;
          this.state = "tag";
          return "hold";
        }
        return this.content(false);
      case "tag":
        return this.tagChar(ch, c);
      case "element":
        return this.elementChar(ch);
    }
  }

  private tagChar(ch: string, c: number): CandidateVerdict {
    if (ch !== ">") {
      const fits = (ch === "/" && this.tag === "<") || (isNameChar(c) && this.tag.length < MAX_TAG);
      if (!fits) return this.content(false);
      this.tag += ch;
      this.text += ch;
      return "hold";
    }
    this.text += ch;
    const tag = this.tag + ch;
    this.tag = "";
    const { toolClose, paramClose, toolOpen, paramOpen } = this.tags;
    if (tag === toolClose) return "tool-close";
    if (tag === paramClose) return "param-close";
    if (tag === toolOpen) return this.content(true, true);
    if (tag === paramOpen || tag.startsWith("</") || tag === "<>") return this.content(true);
    this.elementClose = `</${tag.slice(1)}`;
    this.state = "element";
    return "hold";
  }

  /** Inside `<name>...`: only `</name>` ends it, but the param's and the tool's tags still count. */
  private elementChar(ch: string): CandidateVerdict {
    this.text += ch;
    if (ch === "<") {
      this.tag = ch;
      return "hold";
    }
    if (this.tag === "") return "hold";
    const tag = this.tag + ch;
    const { toolClose, paramClose, toolOpen } = this.tags;
    const targets = [this.elementClose, paramClose, toolClose, toolOpen];
    if (!targets.some((t) => t.startsWith(tag))) {
      this.tag = "";
      return "hold";
    }
    this.tag = tag;
    if (tag === this.elementClose) {
      this.tag = "";
      this.state = "gap";
      return "hold";
    }
    if (tag === toolClose) return "tool-close";
    if (tag === paramClose) return "param-close";
    if (tag === toolOpen) return this.content(true, true);
    return "hold";
  }

  private content(consumed: boolean, nested = false): CandidateVerdict {
    this.consumed = consumed;
    this.nested = nested;
    return "content";
  }
}

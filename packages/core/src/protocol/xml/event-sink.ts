import type { XmlParseEvent } from "./types.js";

/** Collects the events of one push(), merging consecutive deltas of the same stream into one event. */
export class EventSink {
  private events: XmlParseEvent[] = [];

  text(text: string): void {
    if (text === "") return;
    const last = this.events[this.events.length - 1];
    if (last?.type === "text") {
      last.text += text;
      return;
    }
    this.events.push({ type: "text", text });
  }

  paramDelta(index: number, name: string, param: string, text: string): void {
    if (text === "") return;
    const last = this.events[this.events.length - 1];
    if (last?.type === "param-delta" && last.index === index && last.param === param) {
      last.text += text;
      return;
    }
    this.events.push({ type: "param-delta", index, name, param, text });
  }

  /** A param seen again: consumers drop what they streamed for it (the last occurrence wins). */
  paramRestart(index: number, name: string, param: string): void {
    this.events.push({ type: "param-delta", index, name, param, text: "", restart: true });
  }

  add(event: XmlParseEvent): void {
    this.events.push(event);
  }

  take(): XmlParseEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }
}

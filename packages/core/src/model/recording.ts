import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { FetchHeaders } from "./fetch-headers.js";
import { fetchResponse } from "./fetch-response.js";
import { httpFetch } from "./http-fetch.js";
import { readRecording, recordingVersion, redactedHeaders, type RecordedExchange, type RecordedMessage, type RecordedSession, type RecordingLine } from "./recording-format.js";

/**
 * Writes a run's recording (recording-format.ts) as it happens: the host adds the person's messages
 * and the sessions they open; `fetch` is the transport under the model layer, which copies every
 * request (secrets redacted) and its response body, piece by piece, into the file as the SDK reads
 * it. Each line is appended whole when complete, so a run that is killed leaves a readable file.
 */
export class RunRecorder {
  private steps = 0;

  private constructor(
    readonly file: string,
    /** Takes the secrets out of what is written (a host's redactor); credentials in headers go regardless. */
    private readonly redact: <T>(value: T) => T,
  ) {}

  /** A new recording at `file` (replacing one there), or with `append` the next part of an existing one. */
  static open(file: string, o: { append?: boolean; redact?: <T>(value: T) => T } = {}): RunRecorder {
    const recorder = new RunRecorder(path.resolve(file), o.redact ?? ((value) => value));
    if (o.append) {
      recorder.steps = readRecording(recorder.file).exchanges.reduce((max, e) => Math.max(max, e.step), 0);
      return recorder;
    }
    mkdirSync(path.dirname(recorder.file), { recursive: true });
    writeFileSync(recorder.file, `${JSON.stringify({ type: "recording", version: recordingVersion, created: new Date().toISOString() } satisfies RecordingLine)}\n`);
    return recorder;
  }

  message(message: Omit<RecordedMessage, "type">): void {
    this.write({ type: "message", ...message });
  }

  session(session: Omit<RecordedSession, "type">): void {
    this.write({ type: "session", ...session });
  }

  /** A fetch that records what passes through `base`. */
  fetch(base: typeof globalThis.fetch = httpFetch): typeof globalThis.fetch {
    return async (input, init) => {
      const step = ++this.steps;
      const request = recordedRequest(input, init);
      let response: Response;
      try {
        response = await base(input, init);
      } catch (error) {
        this.write({ type: "exchange", step, request, error: error instanceof Error ? error.message : String(error) });
        throw error;
      }
      const head = { status: response.status, headers: redactedHeaders(response.headers) };
      if (!response.body) {
        this.write({ type: "exchange", step, request, response: { ...head, chunks: [] } });
        return response;
      }
      const decoder = new TextDecoder();
      const chunks: string[] = [];
      let written = false;
      const done = (cut: boolean) => {
        if (written) return;
        written = true;
        const tail = decoder.decode();
        if (tail) chunks.push(tail);
        this.write({ type: "exchange", step, request, response: { ...head, chunks, ...(cut ? { cut: true as const } : {}) } });
      };
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(out) {
          try {
            const { done: end, value } = await reader.read();
            if (end) {
              done(false);
              out.close();
              return;
            }
            const text = decoder.decode(value, { stream: true });
            if (text) chunks.push(text);
            out.enqueue(value);
          } catch (error) {
            done(true);
            out.error(error);
          }
        },
        async cancel(reason) {
          done(true);
          await reader.cancel(reason).catch(() => undefined);
        },
      });
      return fetchResponse(body, { status: response.status, statusText: response.statusText, headers: response.headers, url: response.url, redirected: response.redirected, type: response.type });
    };
  }

  private write(line: RecordingLine): void {
    appendFileSync(this.file, `${JSON.stringify(line.type === "recording" ? line : this.redact(line))}\n`);
  }
}

function recordedRequest(input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]): RecordedExchange["request"] {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const raw = init?.body;
  let body: unknown = typeof raw === "string" ? raw : raw === undefined || raw === null ? null : "[a body that is not text]";
  if (typeof body === "string") {
    try {
      body = JSON.parse(body);
    } catch {
      // kept as the text it was
    }
  }
  return { method: init?.method ?? "GET", url: redactedUrl(url), headers: redactedHeaders(new FetchHeaders(init?.headers)), body };
}

/** A key passed in the query (?key=...) is a credential too, and so is a password in the address. */
export function redactedUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = "[redacted]";
    for (const name of [...url.searchParams.keys()]) if (/key|token|secret|auth/i.test(name)) url.searchParams.set(name, "[redacted]");
    return url.href;
  } catch {
    return raw;
  }
}

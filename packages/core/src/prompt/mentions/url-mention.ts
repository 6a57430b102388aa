import { formatBytes, headBytes } from "../../tools/text-bytes.js";
import { htmlToMarkdown } from "../../tools/web/html-to-markdown.js";
import { decodeText, readCapped } from "../../tools/web/http-body.js";
import { attr, type Expansion, type MentionLimits, refused } from "./limits.js";

const TEXT_TYPES = /^(text\/|application\/(json|xml|x-yaml|yaml|javascript|x-ndjson)|[^;]*\+(json|xml))/i;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)/i;

/**
 * `@https://…`: the page fetched and turned into Markdown (scripts, styles, navigation and other
 * page furniture removed). Plain text and JSON come through as they are; anything else (images,
 * archives, PDFs) is refused with a note.
 */
export async function expandUrl(raw: string, url: string, limits: MentionLimits, signal: AbortSignal | undefined): Promise<Expansion> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refused(raw, "it is not a valid URL.");
  }
  const timeout = AbortSignal.timeout(limits.urlTimeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  let body: { data: Buffer; cut: boolean; total: number };
  try {
    response = await fetch(parsed, {
      signal: combined,
      redirect: "follow",
      headers: { "user-agent": "Cairn/0.1 (coding agent; fetches pages the person mentions)", accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5" },
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      return refused(raw, `the server answered ${response.status} ${response.statusText}`.trimEnd() + ".");
    }
    body = await readCapped(response, limits.urlDownloadBytes);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timeout.aborted) return refused(raw, `the page did not load within ${limits.urlTimeoutMs / 1000} s.`);
    const cause = (error as Error & { cause?: Error }).cause?.message;
    return refused(raw, `it could not be fetched (${cause ?? (error as Error).message}).`);
  }

  const type = response.headers.get("content-type") ?? "text/html";
  const charset = /charset=([^;\s]+)/i.exec(type)?.[1]?.replace(/"/g, "");
  if (!HTML_TYPES.test(type) && !TEXT_TYPES.test(type)) return refused(raw, `it is not a web page or text (${type.split(";")[0]}, ${formatBytes(body.total)}).`);
  const decoded = decodeText(body.data, charset);
  const title = HTML_TYPES.test(type) ? titleOf(decoded) : undefined;
  const markdown = HTML_TYPES.test(type) ? htmlToMarkdown(decoded) : decoded.trim();

  const notes: string[] = [];
  const head = headBytes(markdown, limits.urlMarkdownBytes);
  let content = head.text.trimEnd();
  if (body.cut) notes.push(`${raw}: the page is over ${formatBytes(limits.urlDownloadBytes)}; only its first ${formatBytes(limits.urlDownloadBytes)} were read.`);
  if (head.cut) {
    notes.push(`${raw}: the page's text was cut to ${formatBytes(limits.urlMarkdownBytes)}.`);
    content += `\n[The page's text is cut here, at ${formatBytes(limits.urlMarkdownBytes)} of ${formatBytes(Buffer.byteLength(markdown))}.]`;
  } else if (body.cut) {
    content += `\n[Only the first ${formatBytes(limits.urlDownloadBytes)} of the page were read.]`;
  }
  const finalUrl = response.url && response.url !== parsed.href ? ` final_url="${attr(response.url)}"` : "";
  const titleAttr = title ? ` title="${attr(title)}"` : "";
  return { block: `<url_content url="${attr(url)}"${finalUrl}${titleAttr}>\n${content}\n</url_content>`, notes };
}



function titleOf(html: string): string | undefined {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const clean = title
    ?.replace(/\s+/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .trim();
  return clean === "" ? undefined : clean;
}

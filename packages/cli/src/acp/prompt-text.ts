import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { ImagePart } from "@cairn/core";

/** The pictures providers take. */
const imageTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * A prompt from the editor as the message a task takes. Files the person attached (embedded
 * context) come inline, with their path; links to workspace files become @/ mentions, which the
 * task expands under its own ignore and boundary rules; images go with the message as pictures.
 */
export function promptText(blocks: readonly ContentBlock[], where: { cwd: string }): { text: string; images: ImagePart[] } {
  const parts: string[] = [];
  const images: ImagePart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(linkText(block.uri, where.cwd));
        break;
      case "resource": {
        const resource = block.resource;
        const shown = displayUri(resource.uri, where.cwd);
        if ("text" in resource) parts.push(`<file path="${shown}">\n${resource.text}${resource.text.endsWith("\n") ? "" : "\n"}</file>`);
        else parts.push(`[Attached ${shown} (${resource.mimeType ?? "binary data"}); it is not text, so it is not shown.]`);
        break;
      }
      case "image":
        if (imageTypes.has(block.mimeType)) images.push({ type: "image", mediaType: block.mimeType, data: block.data });
        else parts.push(`[The person attached an image of type ${block.mimeType}, which models do not take; it was left out.]`);
        break;
      case "audio":
        parts.push("[The person attached audio, which Cairn cannot take.]");
        break;
    }
  }
  return { text: parts.join("\n\n").trim(), images };
}

function filePath(uri: string): string | undefined {
  if (!uri.startsWith("file://")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

function displayUri(uri: string, cwd: string): string {
  const file = filePath(uri);
  if (file === undefined) return uri;
  const relative = path.relative(cwd, file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

function linkText(uri: string, cwd: string): string {
  const file = filePath(uri);
  if (file === undefined) return uri;
  const relative = path.relative(cwd, file);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return file;
  return `@/${relative.split(path.sep).join("/")}`;
}

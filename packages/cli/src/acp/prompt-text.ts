import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";

const imageExtensions: Record<string, string> = { "image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp" };

/**
 * A prompt from the editor as the one message a task takes. Files the person attached (embedded
 * context) come inline, with their path; links to workspace files become @/ mentions, which the
 * task expands under its own ignore and boundary rules; images are saved in the task's scratch
 * folder, where read_file shows them to a model that takes images.
 */
export function promptText(blocks: readonly ContentBlock[], where: { cwd: string; scratchDir: string }): string {
  const parts: string[] = [];
  let images = 0;
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
      case "image": {
        images += 1;
        const file = path.join(where.scratchDir, "prompt-images", `image-${Date.now()}-${images}${imageExtensions[block.mimeType] ?? ".img"}`);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, Buffer.from(block.data, "base64"));
        parts.push(`[The person attached an image, saved as ${file}: read it with read_file to see it.]`);
        break;
      }
      case "audio":
        parts.push("[The person attached audio, which Cairn cannot take.]");
        break;
    }
  }
  return parts.join("\n\n").trim();
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

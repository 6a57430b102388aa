import type { CallToolResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { ImagePart, TextPart } from "../../model/types.js";
import type { ToolResult } from "../tool.js";

type Part = TextPart | ImagePart;
type Content = CallToolResult["content"][number];
type ResourceContents = ReadResourceResult["contents"][number];

/**
 * An MCP tool result as the model gets it: text joined, images as pictures when the model takes
 * them, embedded resources as their text, the server's `isError` passed through.
 */
export function toolResultFromMcp(result: CallToolResult, modelSupportsImages: boolean): ToolResult {
  const parts: Part[] = [];
  for (const item of result.content ?? []) parts.push(...contentParts(item, modelSupportsImages));
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push({ type: "text", text: JSON.stringify(result.structuredContent, null, 2) });
  }
  if (parts.length === 0) parts.push({ type: "text", text: "(the tool returned no content)" });
  return { content: simplify(parts), ...(result.isError === true ? { isError: true } : {}) };
}

/** A resource's contents: text as is (a text blob decoded), images as pictures when possible, other binaries described. */
export function resourceResultFromMcp(result: ReadResourceResult, modelSupportsImages: boolean): ToolResult {
  const parts = result.contents.flatMap((c) => resourceParts(c, modelSupportsImages));
  if (parts.length === 0) return { content: "(the resource is empty)" };
  return { content: simplify(parts) };
}

function contentParts(item: Content, modelSupportsImages: boolean): Part[] {
  switch (item.type) {
    case "text":
      return [{ type: "text", text: item.text }];
    case "image":
      if (modelSupportsImages) return [{ type: "image", mediaType: item.mimeType, data: item.data }];
      return [{ type: "text", text: `[an image (${item.mimeType}, ${base64Bytes(item.data)} bytes) left out: the current model cannot take images]` }];
    case "audio":
      return [{ type: "text", text: `[audio (${item.mimeType}, ${base64Bytes(item.data)} bytes) left out: audio cannot be shown to the model]` }];
    case "resource":
      return resourceParts(item.resource, modelSupportsImages);
    case "resource_link":
      return [{ type: "text", text: `[resource ${item.uri}${item.name ? ` (${item.name})` : ""}${item.description ? `: ${item.description}` : ""}; read it with access_mcp_resource]` }];
    default:
      return [{ type: "text", text: JSON.stringify(item) }];
  }
}

function resourceParts(contents: ResourceContents, modelSupportsImages: boolean): Part[] {
  if ("text" in contents && typeof contents.text === "string") return [{ type: "text", text: contents.text }];
  const blob = "blob" in contents && typeof contents.blob === "string" ? contents.blob : "";
  const mime = contents.mimeType ?? "application/octet-stream";
  if (/^text\/|^application\/(json|xml|javascript|x-yaml|yaml)\b|\+(json|xml)$/.test(mime)) {
    return [{ type: "text", text: Buffer.from(blob, "base64").toString("utf8") }];
  }
  if (modelSupportsImages && /^image\/(png|jpeg|gif|webp)$/.test(mime)) return [{ type: "image", mediaType: mime, data: blob }];
  return [{ type: "text", text: `[binary resource ${contents.uri} (${mime}, ${base64Bytes(blob)} bytes); it cannot be shown as text]` }];
}

/** One string when there are no pictures (the common case), the parts otherwise. */
function simplify(parts: Part[]): ToolResult["content"] {
  if (parts.every((p) => p.type === "text")) return parts.map((p) => (p as TextPart).text).join("\n");
  return parts;
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

import path from "node:path";
import type { ImagePart } from "../model/types.js";

/** Images a model can look at, by extension. */
const imageTypes: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** Providers reject larger images (Anthropic: 5 MB per image). */
export const maxImageBytes = 5 * 1024 * 1024;

export type DocumentKind = "image" | "pdf" | "docx";

export function documentKind(file: string): DocumentKind | undefined {
  const ext = path.extname(file).toLowerCase();
  if (ext in imageTypes) return "image";
  if (ext === ".pdf") return "pdf";
  if (ext === ".docx") return "docx";
  return undefined;
}

/** An image's bytes (read by the caller through a checked descriptor) as a part for the model. */
export function imagePart(file: string, data: Buffer): ImagePart {
  return { type: "image", mediaType: imageTypes[path.extname(file).toLowerCase()] ?? "application/octet-stream", data: data.toString("base64") };
}

/**
 * The text of a PDF (pages separated by form feeds turned into blank-line page markers) or a DOCX,
 * from its bytes, which the caller read through a checked descriptor.
 */
export async function extractDocumentText(data: Buffer, kind: "pdf" | "docx"): Promise<string> {
  if (kind === "docx") {
    const mammoth = await import("mammoth");
    const { value } = await mammoth.extractRawText({ buffer: data });
    return value.replace(/\n{3,}/g, "\n\n").trim() + "\n";
  }
  const { extractText, getDocumentProxy } = await import("unpdf");
  const pdf = await getDocumentProxy(new Uint8Array(data));
  const { text } = await extractText(pdf, { mergePages: false });
  return text.map((page, i) => `--- page ${i + 1} ---\n${page.trim()}\n`).join("\n");
}

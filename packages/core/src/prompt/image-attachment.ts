import { readFileSync, statSync } from "node:fs";
import type { ImagePart } from "../model/types.js";
import { documentKind, imagePart, maxImageBytes } from "../tools/read-document.js";
import { formatBytes } from "../tools/text-bytes.js";

/** A picture the person attached to the task (`--image`) that cannot be sent; the message says what to do. */
export class ImageAttachmentError extends Error {
  override name = "ImageAttachmentError";
}

/**
 * An image file the person named (`cairn run --image shot.png`), as a picture for the model. The
 * person's own flag may name any file they can read; it must be a PNG, JPEG, GIF or WebP that a
 * provider accepts.
 */
export function loadImageAttachment(file: string): ImagePart {
  if (documentKind(file) !== "image") throw new ImageAttachmentError(`--image ${file}: not a PNG, JPEG, GIF or WebP file; attach one of those.`);
  let size: number;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) throw new ImageAttachmentError(`--image ${file}: not a file.`);
    size = stats.size;
  } catch (error) {
    if (error instanceof ImageAttachmentError) throw error;
    throw new ImageAttachmentError(`--image ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the path.`);
  }
  if (size > maxImageBytes) throw new ImageAttachmentError(`--image ${file}: ${formatBytes(size)}, over the ${formatBytes(maxImageBytes)} a model accepts per image; attach a smaller one.`);
  return imagePart(file, readFileSync(file));
}

/** The one line a model that does not take images answers with. */
export function imagesRefused(model: string): string {
  return `${model} does not take images; leave the images out, choose a model that does (e.g. claude-sonnet-4-5, gpt-5), or, if it does, say so in settings.json: "models": {"${model}": {"images": true}}.`;
}

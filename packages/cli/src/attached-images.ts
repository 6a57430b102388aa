import path from "node:path";
import { ImageAttachmentError, imagesRefused, loadImageAttachment, type ImagePart, type Model } from "@cairn/core";
import type { RunArgs } from "@cairn/host/run-args";
import { UsageError } from "@cairn/host/usage-error";

/**
 * The pictures of `--image` (relative to where cairn was started), checked before the task runs:
 * a missing or unsupported file, or a model that does not take images, is one line and exit 2.
 * `model`: the model that would answer (asked only when there are images).
 */
export function attachedImages(args: RunArgs, model: () => Model): ImagePart[] {
  if (!args.images || args.images.length === 0) return [];
  let images: ImagePart[];
  try {
    images = args.images.map((file) => loadImageAttachment(path.resolve(file)));
  } catch (error) {
    if (error instanceof ImageAttachmentError) throw new UsageError(error.message);
    throw error;
  }
  const answering = model();
  if (!answering.info.supportsImages) throw new UsageError(imagesRefused(answering.id));
  return images;
}

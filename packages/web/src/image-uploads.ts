import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { maxImageBytes, type ImagePart } from "@cairn/core";
import { imageMediaType } from "./image-type.js";

/** Pictures one message may carry; providers cap a request's images, and a page of thumbnails should stay readable. */
const maxImagesPerMessage = 10;
/** Pictures held at once for every open page (attached, not sent yet): a bound on the memory they take. */
const maxHeld = 3 * maxImagesPerMessage;
/** An attachment left behind (a tab closed before sending) is dropped after this long. */
const heldForMs = 60 * 60 * 1000;

const megabytes = (n: number) => `${(n / 1024 / 1024).toFixed(1).replace(/\.0$/, "")} MB`;

export type Uploaded = { ok: true; id: string; media_type: string; bytes: number } | { ok: false; status: 400 | 413 | 415 | 429; message: string };
export type Taken = { ok: true; images: ImagePart[] } | { ok: false; message: string };

/**
 * Pictures the person attached in the page, held by id until the message they go with is sent.
 * An upload is its own request (a 5 MB picture does not fit a JSON body), checked here once:
 * its format by its bytes, core's per-image size cap, and how many are held.
 */
export class ImageUploads {
  private held = new Map<string, { part: ImagePart; at: number }>();
  /** Uploads whose bytes are still arriving: each may hold up to a picture's cap in memory, so they count as held. */
  private arriving = 0;

  /** Reads an upload's body: raw bytes, sent as image/* or application/octet-stream. */
  async receive(req: IncomingMessage): Promise<Uploaded> {
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    // Not a type a form or a no-cors fetch may send: another site's page cannot post one without asking first.
    if (!type.startsWith("image/") && type !== "application/octet-stream") {
      return { ok: false, status: 415, message: "Send the picture's bytes as image/* or application/octet-stream." };
    }
    const tooLarge = (size?: number): Uploaded => ({
      ok: false,
      status: 413,
      message: `The picture is ${size === undefined ? "" : `${megabytes(size)}, `}over the ${megabytes(maxImageBytes)} a model accepts per image; attach a smaller one.`,
    });
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > maxImageBytes) {
      req.resume();
      return tooLarge(declared);
    }
    // The cap is checked before a byte is read, counting uploads still arriving: parallel uploads
    // past it are refused at once instead of each holding up to a picture's cap first.
    this.dropStale();
    if (this.held.size + this.arriving >= maxHeld) {
      req.resume();
      return { ok: false, status: 429, message: `${maxHeld} pictures are already waiting to be sent; send or remove some first.` };
    }
    this.arriving += 1;
    let bytes: Buffer;
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req) {
        size += (chunk as Buffer).length;
        if (size > maxImageBytes) {
          req.resume();
          return tooLarge();
        }
        chunks.push(chunk as Buffer);
      }
      bytes = Buffer.concat(chunks);
    } finally {
      this.arriving -= 1;
    }
    const mediaType = imageMediaType(bytes);
    if (!mediaType) return { ok: false, status: 415, message: "Not a PNG, JPEG, GIF or WebP picture (judged by its contents, not its name); attach one of those." };
    const id = randomBytes(12).toString("base64url");
    this.held.set(id, { part: { type: "image", mediaType, data: bytes.toString("base64") }, at: Date.now() });
    return { ok: true, id, media_type: mediaType, bytes: bytes.length };
  }

  /** The pictures a message names, in order; each is handed over once. Nothing is taken unless all are there. */
  take(ids: readonly string[]): Taken {
    if (ids.length > maxImagesPerMessage) return { ok: false, message: `A message carries at most ${maxImagesPerMessage} pictures; remove ${ids.length - maxImagesPerMessage}.` };
    if (new Set(ids).size !== ids.length) return { ok: false, message: "The same picture is attached twice; remove one." };
    const missing = ids.filter((id) => !this.held.has(id)).length;
    if (missing > 0) return { ok: false, message: `${missing} attached picture(s) are no longer held by the server (restarted, or left over an hour); attach them again.` };
    return { ok: true, images: ids.map((id) => this.held.get(id)!.part) };
  }

  /** Forgets pictures once their message was accepted, or when the person removes them. */
  release(ids: readonly string[]): void {
    for (const id of ids) this.held.delete(id);
  }

  private dropStale(): void {
    const now = Date.now();
    for (const [id, { at }] of this.held) if (now - at > heldForMs) this.held.delete(id);
  }
}

import { describe, expect, it } from "vitest";
import { fitImage, imageLimits, scaleRgba } from "./image-limits.js";

/** The first bytes of a GIF of width×height (header and logical screen): enough for its size to be read, not to decode it. */
const gifHeader = (width: number, height: number) => {
  const bytes = Buffer.alloc(13);
  bytes.write("GIF89a", 0, "ascii");
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  return bytes.toString("base64");
};

describe("fitImage", () => {
  it("keeps an image within the limits as it is", () => {
    const image = { type: "image" as const, mediaType: "image/gif", data: gifHeader(800, 600) };
    expect(fitImage(image, imageLimits("anthropic"))).toEqual([image]);
  });

  it("sends a GIF over the size the provider uses but within what it accepts unchanged: the provider shrinks it", () => {
    const image = { type: "image" as const, mediaType: "image/gif", data: gifHeader(4000, 3000) };
    expect(fitImage(image, imageLimits("anthropic"))).toEqual([image]);
  });

  it("leaves out, in one line saying its size and the limit, an image it cannot shrink that the provider would reject", () => {
    const [note] = fitImage({ type: "image", mediaType: "image/gif", data: gifHeader(9000, 600) }, imageLimits("anthropic"));
    expect(note).toEqual({
      type: "text",
      text: "[An image (image/gif, 9000×600 px, 0.0 MB as sent) was left out: over Anthropic's limit of 8000 px a side and 5 MB, and it could not be scaled down.]",
    });
  });
});

describe("scaleRgba", () => {
  it("averages the pixels each target pixel covers", () => {
    const source = { width: 2, height: 1, data: Uint8Array.from([0, 0, 0, 255, 200, 100, 50, 255]) };
    expect([...scaleRgba(source, 1, 1)]).toEqual([100, 50, 25, 255]);
  });
});

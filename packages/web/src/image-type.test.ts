import { describe, expect, it } from "vitest";
import { imageMediaType } from "./image-type.js";

const bytes = (...parts: Array<number[] | string>) => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))));

describe("imageMediaType", () => {
  it("names each accepted format by its signature", () => {
    expect(imageMediaType(bytes([0x89], "PNG\r\n\x1a\n", "rest"))).toBe("image/png");
    expect(imageMediaType(bytes([0xff, 0xd8, 0xff, 0xe0], "JFIF"))).toBe("image/jpeg");
    expect(imageMediaType(bytes("GIF89a", [1, 0, 1, 0]))).toBe("image/gif");
    expect(imageMediaType(bytes("GIF87a", [1, 0, 1, 0]))).toBe("image/gif");
    expect(imageMediaType(bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 "))).toBe("image/webp");
  });

  it("refuses what only claims to be a picture: text, SVG, a RIFF that is not WebP, a cut signature", () => {
    expect(imageMediaType(bytes("hello, I am a png"))).toBeUndefined();
    expect(imageMediaType(bytes('<svg xmlns="http://www.w3.org/2000/svg"></svg>'))).toBeUndefined();
    expect(imageMediaType(bytes("RIFF", [0x24, 0, 0, 0], "WAVEfmt "))).toBeUndefined();
    expect(imageMediaType(bytes([0x89], "PNG"))).toBeUndefined();
    expect(imageMediaType(new Uint8Array())).toBeUndefined();
  });
});
